#!/usr/bin/env bash
# Runs every test: unit and property tests, use-case tests with mocks, repository tests and the
# black-box HTTP tests (each against a fresh PostgreSQL database), then the OpenAPI contract check
# with schemathesis. Set SKIP_SCHEMATHESIS=1 to leave the last one out.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  ensure_postgres
  export TEST_DATABASE_URL="$PG_SERVER_URL/postgres"
fi
echo "Testes contra $TEST_DATABASE_URL" >&2

cargo test --workspace

if [ "${SKIP_SCHEMATHESIS:-0}" != 1 ]; then
  scripts/schemathesis.sh
fi
