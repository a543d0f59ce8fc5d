#!/usr/bin/env bash
# The service against a real streaming standby (README, "Réplicas de leitura"): a private primary
# and a hot standby of it made with pg_basebackup -R (scripts/lib/replication.sh), two instances
# reading from the standby (DATABASE_READ_URLS), one within the default 1 s of lag and one that
# accepts any lag. scripts/replicas_check.py then checks read-your-writes over 500
# create-then-read pairs, a standby stopped and started again under reads, and a sign-out and a
# client's own writes seen at once while the standby applies everything 3 s late. Part of the test
# command.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
source scripts/lib/service.sh
source scripts/lib/replication.sh

cargo build --bin sales-api
bin="${CARGO_TARGET_DIR:-target}/debug/sales-api"

work="$(mktemp -d)"
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  stop_primary_and_standby
  rm -rf "$work"
}
trap cleanup EXIT

start_primary_and_standby "$work/pg"
echo "Réplica: primário em $PRIMARY_PORT, réplica em $STANDBY_PORT" >&2

export SALES_ENV=development
export DATABASE_URL="$PRIMARY_URL/sales"
export JWT_PRIVATE_KEY_FILE="$work/keys/jwt-ed25519.pem"
export BCRYPT_COST=4 RUST_LOG=warn MAIL_DIR="$work/mail"
# One client makes about 1,200 requests a minute here.
export RATE_LIMIT_REQUESTS_PER_MINUTE=off
"$bin" keys generate --out "$work/keys" >/dev/null
"$bin" migrate --create-database >/dev/null
"$bin" seed demo >/dev/null

# A: lag allowed as by default (1 s); B: any lag, so that its reads go to a standby that is late.
port_a="$(free_port)"
metrics_a="$(free_port)"
BIND_ADDR="127.0.0.1:$port_a" METRICS_ADDR="127.0.0.1:$metrics_a" \
  DATABASE_READ_URLS="$STANDBY_URL/sales" "$bin" serve --no-migrate >"$work/server-a.log" 2>&1 &
pids+=($!)
wait_until_ready "http://127.0.0.1:$port_a" "${pids[-1]}" "$work/server-a.log"
port_b="$(free_port)"
metrics_b="$(free_port)"
BIND_ADDR="127.0.0.1:$port_b" METRICS_ADDR="127.0.0.1:$metrics_b" DATABASE_READ_MAX_LAG_MS=600000 \
  DATABASE_READ_URLS="$STANDBY_URL/sales" "$bin" serve --no-migrate >"$work/server-b.log" 2>&1 &
pids+=($!)
wait_until_ready "http://127.0.0.1:$port_b" "${pids[-1]}" "$work/server-b.log"

# The check stops and starts the standby and delays its apply through these.
export REPLICATION_SCRIPT_DIR="$work/pg"
control="$work/standby-control.sh"
{
  echo "#!/usr/bin/env bash"
  echo "set -euo pipefail"
  echo "cd '$PWD'"
  echo "source scripts/lib/postgres.sh; source scripts/lib/service.sh; source scripts/lib/replication.sh"
  printf 'REPLICATION_DIR=%q STANDBY_DATA=%q STANDBY_PORT=%q\n' "$REPLICATION_DIR" "$STANDBY_DATA" "$STANDBY_PORT"
  if [ "${#REPLICATION_AS_OWNER[@]}" -gt 0 ]; then echo "REPLICATION_AS_OWNER=(runuser -u postgres --)"; fi
  echo 'case "$1" in stop) stop_standby ;; start) start_standby ;; delay) delay_standby_apply "$2" ;; esac'
} >"$control"
chmod +x "$control"

if ! SALES_A="http://127.0.0.1:$port_a" SALES_B="http://127.0.0.1:$port_b" \
  METRICS_A="http://127.0.0.1:$metrics_a/metrics" METRICS_B="http://127.0.0.1:$metrics_b/metrics" \
  STANDBY_CONTROL="$control" python3 scripts/replicas_check.py; then
  for name in a b; do echo "--- instância $name" >&2; tail -30 "$work/server-$name.log" >&2; done
  echo "--- réplica" >&2; tail -30 "$work/pg/standby.log" >&2
  exit 1
fi
echo "Réplica de leitura: leituras das próprias escritas, réplica parada e de volta, saída vista na hora" >&2
