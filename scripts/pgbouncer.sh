#!/usr/bin/env bash
# Two instances of the service behind PgBouncer in transaction pooling mode, as a deployment of N
# instances would run (README, "PgBouncer"): the pools through PgBouncer (DATABASE_URL), LISTEN
# and the migration lock on a direct session (DATABASE_DIRECT_URL). scripts/pgbouncer_check.py
# then creates proposals concurrently through both and reads each through the other, changes the
# catalog through one and waits for the other to see it, and checks that webhook deliveries of
# status changes made through both arrive exactly once each. Part of the test command.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
source scripts/lib/pgbouncer.sh
source scripts/lib/service.sh

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  PG_SERVER_URL="${TEST_DATABASE_URL%/*}"
else
  ensure_postgres
fi
ensure_pgbouncer
echo "PgBouncer: $("$PGBOUNCER_BIN" --version | head -1)" >&2

cargo build --bin sales-api
bin="${CARGO_TARGET_DIR:-target}/debug/sales-api"

work="$(mktemp -d)"
chmod 755 "$work"
db="sales_pgbouncer_$$_$RANDOM"
# Ports the system says are free now: a random one in 20000-40000 could be a client socket's
# (the ephemeral range starts at 32768).
bouncer_port=$(free_port)
port_a=$(free_port)
port_b=$(free_port)
receiver_port=$(free_port)
pids=()

cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  stop_pgbouncer "$work/bouncer"
  if command -v psql >/dev/null 2>&1; then
    psql "$PG_SERVER_URL/postgres" -qc "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/bouncer"
start_pgbouncer "$work/bouncer" "$bouncer_port"

export SALES_ENV=development
export DATABASE_URL="postgres://postgres@127.0.0.1:$bouncer_port/$db"
export DATABASE_DIRECT_URL="$PG_SERVER_URL/$db"
export JWT_PRIVATE_KEY_FILE="$work/keys/jwt-ed25519.pem"
export BCRYPT_COST=4 RUST_LOG=warn METRICS_ADDR=off MAIL_DIR="$work/mail"
export HOOKS_ALLOWED_CIDRS=127.0.0.0/8 HOOKS_POLL_INTERVAL_MS=200
# Each instance's pools stay within what PgBouncer is given, as the README sizes them.
export DB_POOL_MAX_SIZE=8

"$bin" keys generate --out "$work/keys" >/dev/null
# Creating the database and migrating go over the direct session (the advisory lock needs one).
"$bin" migrate --create-database >/dev/null
"$bin" seed demo >/dev/null

for port in "$port_a" "$port_b"; do
  BIND_ADDR="127.0.0.1:$port" "$bin" serve --no-migrate >"$work/server-$port.log" 2>&1 &
  pids+=($!)
done
for port in "$port_a" "$port_b"; do
  ready=0
  for _ in $(seq 1 150); do
    if curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null; then ready=1; break; fi
    sleep 0.2
  done
  [ "$ready" = 1 ] || { echo "instância em $port não ficou pronta" >&2; cat "$work/server-$port.log" >&2; exit 1; }
done

if ! SALES_A="http://127.0.0.1:$port_a" SALES_B="http://127.0.0.1:$port_b" RECEIVER_PORT="$receiver_port" \
  python3 scripts/pgbouncer_check.py; then
  for port in "$port_a" "$port_b"; do echo "--- instância $port" >&2; tail -30 "$work/server-$port.log" >&2; done
  echo "--- pgbouncer" >&2; tail -30 "$work/bouncer/pgbouncer.log" >&2
  exit 1
fi
echo "PgBouncer (modo transação): duas instâncias corretas" >&2
