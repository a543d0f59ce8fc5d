#!/usr/bin/env bash
# Runs the service on this machine: finds (or starts) PostgreSQL, creates and migrates the
# database, seeds the demo data when it is empty, prints the URL and the demo credentials, serves.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh

ensure_postgres
# The sandboxes and generated keys of local use; production (the default) refuses them.
export SALES_ENV=development
export DATABASE_URL="${DATABASE_URL:-$PG_SERVER_URL/sales}"
export JWT_PRIVATE_KEY_FILE="${JWT_PRIVATE_KEY_FILE:-target/dev-keys/jwt-ed25519.pem}"
export MAIL_DIR="${MAIL_DIR:-target/mail}"

cargo build --bin sales-api
bin="${CARGO_TARGET_DIR:-target}/debug/sales-api"

if [ ! -f "$JWT_PRIVATE_KEY_FILE" ]; then
  "$bin" keys generate --out "$(dirname "$JWT_PRIVATE_KEY_FILE")" --keep-existing
fi
"$bin" migrate --create-database
"$bin" seed demo --if-empty

echo
echo "Sales API em ${PUBLIC_URL:-http://${BIND_ADDR:-127.0.0.1:8080}}  (documentação: /docs, contrato: /openapi.json)"
echo
exec "$bin" serve --no-migrate
