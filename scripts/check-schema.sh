#!/usr/bin/env bash
# `crates/adapters-postgres/src/schema.rs` is what `diesel print-schema` prints for the migrated
# database (`diesel.toml` says how): this migrates a fresh database with the service's own
# `migrate`, prints the schema and fails on any difference. SCHEMA_WRITE=1 writes the file
# instead (after a new migration). diesel_cli is installed once, pinned, into a cache outside the
# clone ($HOME/.cache) when the machine has none; it links libpq (Debian's libpq-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh

DIESEL_CLI_VERSION=2.3.14
root="${DIESEL_CLI_ROOT:-$HOME/.cache/diesel-cli-$DIESEL_CLI_VERSION}"
diesel="$root/bin/diesel"
if [ ! -x "$diesel" ]; then
  echo "Instalando diesel_cli $DIESEL_CLI_VERSION em $root" >&2
  cargo install diesel_cli --version "$DIESEL_CLI_VERSION" --locked --no-default-features \
    --features postgres --root "$root" --quiet
fi

ensure_postgres
database="schema_check_$$"
work="$(mktemp -d)"
cleanup() {
  psql "$PG_SERVER_URL/postgres" -qc "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
psql "$PG_SERVER_URL/postgres" -qc "CREATE DATABASE $database"
DATABASE_URL="$PG_SERVER_URL/$database" SALES_ENV=development \
  cargo run -q -p api-actix --bin sales-api -- migrate >/dev/null
"$diesel" print-schema --database-url "$PG_SERVER_URL/$database" > "$work/schema.rs"

committed=crates/adapters-postgres/src/schema.rs
if [ "${SCHEMA_WRITE:-0}" = 1 ]; then
  cp "$work/schema.rs" "$committed"
  echo "$committed escrito por diesel print-schema" >&2
elif ! diff -u "$committed" "$work/schema.rs"; then
  echo "$committed difere do que diesel print-schema imprime para o banco migrado;" >&2
  echo "escreva-o com: SCHEMA_WRITE=1 scripts/check-schema.sh" >&2
  exit 1
fi
