#!/usr/bin/env bash
# Webhook delivery benchmark: commit-to-receipt latency at a fixed rate of status changes, and
# deliveries per second at saturation, from a release `sales-api serve` to a receiver on loopback.
#
#   bench/webhooks.sh       # 400 changes/s for 10 s, then 10,000 as fast as they commit, then a
#                           # backlog of 10,000 deliveries due at one instant (the engine alone)
#   BENCH_RATE=200 BENCH_SECONDS=3 BENCH_SATURATION=1000 bench/webhooks.sh
#   BENCH_SMOKE=1 bench/webhooks.sh            # CI: debug build, 1 s at 50/s, 200 at once, nothing recorded
#
# Starts PostgreSQL as the test command does, seeds proposals (bench/seed.sql), starts the service
# and runs webhook-bench (bench/tools), which commits the changes through the service's own store code and
# times each webhook from the start of its committing transaction. Prints the table and appends it
# to docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
source scripts/lib/service.sh

if [ "${BENCH_SMOKE:-0}" = 1 ]; then
  : "${BENCH_RATE:=50}" "${BENCH_SECONDS:=1}" "${BENCH_SATURATION:=200}" "${BENCH_BACKLOG:=500}"
  : "${BENCH_PROFILE:=dev}" "${BENCH_RECORD:=0}"
fi
rate="${BENCH_RATE:-400}"
seconds="${BENCH_SECONDS:-10}"
saturation="${BENCH_SATURATION:-10000}"
backlog="${BENCH_BACKLOG:-10000}"
profile="${BENCH_PROFILE:-release}"
record="${BENCH_RECORD:-1}"
# A quarter of the seeded proposals are in NOVO: seed enough for both phases.
proposals=$(( (rate * seconds + saturation) * 4 + 1000 ))

ensure_postgres
server="$PG_SERVER_URL"
db="sales_bench_hooks"
work="$(mktemp -d)"
# A port the system says is free now (a random one could be a client socket's).
port=$(free_port)
cargo build --profile "$profile" --bin sales-api --bin webhook-bench
case "$profile" in dev) dir=debug ;; *) dir="$profile" ;; esac
target="${CARGO_TARGET_DIR:-target}/$dir"

psql "$server/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
key_byte=7
key=$(python3 -c "import base64; print(base64.b64encode(bytes([$key_byte] * 32)).decode())")
export SALES_ENV=development DATABASE_URL="$server/$db" JWT_PRIVATE_KEY_FILE="$work/keys/jwt-ed25519.pem" BIND_ADDR="127.0.0.1:$port" RUST_LOG=warn METRICS_ADDR=off
export MAIL_DIR="$work/mail" HOOKS_ENCRYPTION_KEY="$key" HOOKS_ENCRYPTION_KEY_BYTE="$key_byte" HOOKS_ALLOWED_CIDRS="127.0.0.0/8"
"$target/sales-api" keys generate --out "$work/keys" >/dev/null
"$target/sales-api" migrate >/dev/null
"$target/sales-api" seed demo >/dev/null
echo "Semeando $proposals propostas..." >&2
psql "$DATABASE_URL" -q -v first=1 -v last="$proposals" -f bench/seed.sql

"$target/sales-api" serve --no-migrate > "$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do curl -sf "http://$BIND_ADDR/health/ready" >/dev/null && break; sleep 0.2; done

table=$(BENCH_RATE="$rate" BENCH_SECONDS="$seconds" BENCH_SATURATION="$saturation" BENCH_BACKLOG="$backlog" "$target/webhook-bench")
peak_kib=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
table="$table
Service peak memory: $((peak_kib / 1024)) MiB. One subscription; per-subscription limit 16 in flight; receiver: actix-web on loopback answering 204."
echo "$table"
[ "$record" = 1 ] || exit 0
{
  echo "## Webhook delivery, run of $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo
  echo "$table"
  echo
} >> docs/performance.md
