#!/usr/bin/env bash
# The benchmark harness: measures the service against this machine's own ceilings, in one run.
#
#   bench/run.sh                      # 100,000 proposals, 10 s per measurement
#   BENCH_PROPOSALS=10000 BENCH_SECONDS=3 bench/run.sh
#
# Starts PostgreSQL as the test command does, builds the release binary, seeds the data set, starts
# the service, and measures with wrk (64 connections, --latency) and pgbench (the ceilings). Prints
# one table and writes it to docs/performance.md with the date and the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh

proposals="${BENCH_PROPOSALS:-100000}"
seconds="${BENCH_SECONDS:-10}"
connections="${BENCH_CONNECTIONS:-64}"

if ! command -v wrk >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
  else
    echo "wrk é necessário (Debian: apt-get install wrk)" >&2
    exit 1
  fi
fi
pgbench_bin="$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | head -1)"
[ -n "$pgbench_bin" ] || { echo "pgbench é necessário (Debian: apt-get install postgresql-contrib)" >&2; exit 1; }

ensure_postgres
server="$PG_SERVER_URL"
db="sales_bench"
work="$(mktemp -d)"
port=$((20000 + RANDOM % 20000))
cargo build --release --bin sales-api
bin="${CARGO_TARGET_DIR:-target}/release/sales-api"

psql "$server/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
export DATABASE_URL="$server/$db" JWT_PRIVATE_KEY_FILE="$work/keys/jwt-ed25519.pem" BIND_ADDR="127.0.0.1:$port" RUST_LOG=warn
export MAIL_DIR="$work/mail"
"$bin" keys generate --out "$work/keys" >/dev/null
"$bin" migrate >/dev/null
"$bin" seed demo >/dev/null
echo "Semeando $proposals propostas..." >&2
psql "$DATABASE_URL" -q -v proposals="$proposals" -f bench/seed.sql
psql "$DATABASE_URL" -Atc "SELECT identificador FROM proposals ORDER BY random() LIMIT 10000" > "$work/ids"

"$bin" serve --no-migrate > "$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do curl -sf "http://$BIND_ADDR/health/ready" >/dev/null && break; sleep 0.2; done
token=$(curl -s "http://$BIND_ADDR/signin" -H 'content-type: application/json' \
  -d '{"email":"parceiro@demo.com.br","password":"Parceiro#2026","aplicacao":"PARCEIRO"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
# The back office sees every proposal (reads); the representative creates them.
read_token=$(curl -s "http://$BIND_ADDR/signin" -H 'content-type: application/json' \
  -d '{"email":"backoffice@demo.com.br","password":"Backoffice#2026","aplicacao":"BACKOFFICE"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
export BENCH_TOKEN="$token" BENCH_READ_TOKEN="$read_token" BENCH_IDS="$work/ids"

rows=()
# One wrk run: name, then wrk arguments. Records requests/s, p50, p99 and non-2xx answers.
measure() {
  local name="$1"; shift
  local out
  out=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency "$@" 2>&1)
  local rps p50 p99 errors
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  errors=$(awk '/Non-2xx or 3xx responses/ {print $5}' <<<"$out")
  rows+=("| $name | $rps | $p50 | $p99 | ${errors:-0} |")
}

# The ceilings: PostgreSQL alone.
"$pgbench_bin" -i -q -s 10 "$server/$db" >/dev/null 2>&1
pg_select=$("$pgbench_bin" -S -n -c "$connections" -j 2 -T "$seconds" "$server/$db" 2>/dev/null | awk '/^tps/ {print $3; exit}')
cat > "$work/create.sql" <<'SQL'
\set id random(1, 100000000)
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, :id, 0, now());
SELECT abalance FROM pgbench_accounts WHERE aid = (:id % 1000000) + 1;
SQL
pg_create=$("$pgbench_bin" -f "$work/create.sql" -n -c "$connections" -j 2 -T "$seconds" "$server/$db" 2>/dev/null | awk '/^tps/ {print $3; exit}')

base="http://$BIND_ADDR"
measure "GET /proposal/byIdentifier" -s bench/by_identifier.lua "$base"
measure "POST /proposal/create" -s bench/create_proposal.lua "$base"
measure "GET /billingGroup/list" -s bench/get_with_token.lua "$base/billingGroup/list"
measure "GET /product/payment/101" -s bench/get_with_token.lua "$base/product/payment/101"
measure "POST /signin" -s bench/signin.lua "$base/signin"
peak_kib=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")

table=$(
  echo "| measurement | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Ceilings: pgbench -S ${pg_select:-?} tps; pgbench insert + select by key ${pg_create:-?} tps."
  echo "Service peak memory: $((peak_kib / 1024)) MiB. Proposals stored: $proposals; $connections connections; ${seconds}s per run."
)
echo "$table"
{
  echo "## Run of $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo
  echo "$table"
  echo
} >> docs/performance.md
