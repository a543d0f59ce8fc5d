#!/usr/bin/env bash
# Runs every test: unit and property tests, use-case tests with mocks, repository tests and the
# black-box HTTP tests (each against a fresh PostgreSQL database), two instances behind PgBouncer,
# the service reading from a streaming standby,
# the committed OpenAPI document through three outside linters (the served one equals it: a
# black-box test) and against the last release's for breaking changes, the generated Python and
# TypeScript SDKs through the partner's and the shop's journeys, then the OpenAPI contract check
# with schemathesis. Set SKIP_SCHEMATHESIS=1 to leave the last one out.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
# Tests run the sandboxes; production (the default) refuses them. Tests of production set their own.
export SALES_ENV=development

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  ensure_postgres
  export TEST_DATABASE_URL="$PG_SERVER_URL/postgres"
fi
echo "Testes contra $TEST_DATABASE_URL" >&2

# The browser test drives Debian's Chromium through chromedriver; the document tests read PDFs
# back with poppler's pdftotext and pdffonts.
install_packages() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Instalando $* (pacotes da distribuição) para os testes" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "Os testes precisam de $* (Debian: apt-get install $*)." >&2
    exit 1
  fi
}
if ! command -v chromedriver >/dev/null 2>&1 || ! { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; }; then
  install_packages chromium chromium-driver
fi
if ! command -v pdftotext >/dev/null 2>&1 || ! command -v pdffonts >/dev/null 2>&1; then
  install_packages poppler-utils
fi
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}"
export CHROME_BIN="${CHROME_BIN:-$(command -v chromium || command -v chromium-browser)}"
# A test process killed outright (a timeout) cannot stop its browser: whatever is left of the
# tests' browsers (their profiles are named sales-api-chromium-…) is killed when this script ends.
stop_test_browsers() {
  pkill -KILL -f 'sales-api-chromium-' 2>/dev/null || true
}
trap stop_test_browsers EXIT

# The black-box services log into this folder; the audit below reads it after the whole suite.
# Absolute: the tests run from their own crate's folder.
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export SALES_TEST_LOG_DIR="$target_dir/test-logs"
rm -rf "$SALES_TEST_LOG_DIR"
cargo test --workspace
scripts/audit-test-logs.sh "$SALES_TEST_LOG_DIR"

# Two instances behind PgBouncer in transaction pooling mode (building PgBouncer 1.21+ when the
# machine's is older).
scripts/pgbouncer.sh

# The service against a real streaming standby of a private primary: read-your-writes, a standby
# stopped and started under reads, a sign-out seen at once while the standby applies 3 s late.
scripts/replicas.sh

# The contract as client generators read it: zero errors and warnings from three linters.
scripts/lint-openapi.sh

# Nothing in the contract breaks a client of the last release unless the major version moved.
scripts/check-contract-compat.sh

# The SDKs a partner generates (Python, TypeScript), each through the partner's and the shop's
# journeys against the running service.
scripts/sdk-journeys.sh

if [ "${SKIP_SCHEMATHESIS:-0}" != 1 ]; then
  scripts/schemathesis.sh
fi
