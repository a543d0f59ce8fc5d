#!/usr/bin/env bash
# Route 7 read from a streaming replica beside route 7 read from its primary, in one run (issue 30:
# the replica's row within 10% of the primary's).
#
#   bench/replica.sh                      # 100,000 proposals, 10 s per measurement, recorded
#   BENCH_SMOKE=1 bench/replica.sh        # CI: debug build, tiny data, 1 s per run, nothing recorded
#   BENCH_BIN_DIR=/tmp/before BENCH_RECORD=0 bench/replica.sh
#
# A private primary and a hot standby of it (scripts/lib/replication.sh: the machine's own server
# may refuse replication), the bench's data set seeded on the primary and replayed by the standby,
# then two instances of the service: one reading the primary only, one with the standby in
# DATABASE_READ_URLS. Each row is measured twice, alternating, with its ceiling (pgbench -S
# against the server that answers it) right before it. Both servers share this machine's cores
# with the service and wrk, as the primary's row does in bench/run.sh.
set -euo pipefail
trap 'echo "bench/replica.sh: falhou na linha $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
source scripts/lib/service.sh
source scripts/lib/replication.sh

smoke="${BENCH_SMOKE:-0}"
if [ "$smoke" = 1 ]; then
  : "${BENCH_PROPOSALS:=2000}" "${BENCH_SECONDS:=1}" "${BENCH_CONNECTIONS:=8}"
  : "${BENCH_PROFILE:=dev}" "${BENCH_RECORD:=0}"
fi
proposals="${BENCH_PROPOSALS:-100000}"
seconds="${BENCH_SECONDS:-10}"
connections="${BENCH_CONNECTIONS:-64}"
profile="${BENCH_PROFILE:-release}"
record="${BENCH_RECORD:-1}"

command -v wrk >/dev/null 2>&1 || { echo "wrk é necessário (Debian: apt-get install wrk)" >&2; exit 1; }
pgbench_bin="$(find_pg_bin pgbench)" || { echo "pgbench é necessário (postgresql-contrib)" >&2; exit 1; }
psql_bin="$(find_pg_bin psql)"

if [ -n "${BENCH_BIN_DIR:-}" ]; then
  bin="$BENCH_BIN_DIR/sales-api"
else
  cargo build --profile "$profile" --bin sales-api
  case "$profile" in dev) dir=debug ;; *) dir="$profile" ;; esac
  bin="${CARGO_TARGET_DIR:-target}/$dir/sales-api"
fi

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
primary_db="$PRIMARY_URL/sales_bench"
standby_db="$STANDBY_URL/sales_bench"
export SALES_ENV=development JWT_PRIVATE_KEY_FILE="$work/keys/jwt-ed25519.pem" RUST_LOG=warn MAIL_DIR="$work/mail"
export RATE_LIMIT_REQUESTS_PER_MINUTE=1000000000
"$bin" keys generate --out "$work/keys" >/dev/null
DATABASE_URL="$primary_db" "$bin" migrate --create-database >/dev/null
DATABASE_URL="$primary_db" "$bin" seed demo >/dev/null
echo "Semeando $proposals propostas no primário..." >&2
"$psql_bin" "$primary_db" -q -v first=1 -v last="$proposals" -f bench/seed.sql
"$pgbench_bin" -i -q -s 10 "$primary_db" >/dev/null 2>&1
"$psql_bin" "$primary_db" -qc "ANALYZE" >/dev/null
# The standby has everything once it has replayed the primary's position now.
target="$("$psql_bin" "$PRIMARY_URL/postgres" -Atc "SELECT pg_current_wal_insert_lsn()")"
for _ in $(seq 1 600); do
  [ "$("$psql_bin" "$STANDBY_URL/postgres" -Atc "SELECT pg_last_wal_replay_lsn() >= '$target'::pg_lsn")" = t ] && break
  sleep 0.2
done
"$psql_bin" "$primary_db" -Atc "SELECT identificador FROM proposals TABLESAMPLE SYSTEM (10) LIMIT 10000" >"$work/ids"
[ -s "$work/ids" ] || "$psql_bin" "$primary_db" -Atc "SELECT identificador FROM proposals LIMIT 10000" >"$work/ids"

# Starts an instance (extra environment as arguments) and sets its base URL in started_base.
start_instance() {
  local port
  port="$(free_port)"
  local metrics_port
  metrics_port="$(free_port)"
  started_metrics="http://127.0.0.1:$metrics_port/metrics"
  env BIND_ADDR="127.0.0.1:$port" METRICS_ADDR="127.0.0.1:$metrics_port" DATABASE_URL="$primary_db" "$@" \
    "$bin" serve --no-migrate >"$work/server-$port.log" 2>&1 &
  pids+=($!)
  wait_until_ready "http://127.0.0.1:$port" "${pids[-1]}" "$work/server-$port.log"
  started_base="http://127.0.0.1:$port"
}
start_instance
primary_base="$started_base"
start_instance DATABASE_READ_URLS="$standby_db"
replica_base="$started_base"
replica_metrics="$started_metrics"
login='{"email":"backoffice@demo.com.br","password":"Backoffice#2026","aplicacao":"BACKOFFICE"}'
BENCH_READ_TOKEN=$(curl -s "$primary_base/signin" -H 'content-type: application/json' -d "$login" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
export BENCH_READ_TOKEN BENCH_IDS="$work/ids"
# The replica's instance uses the standby once its first polls find it caught up.
sleep 1

# One wrk run of route 7: sets rps, p50, p99 (ms) and errors.
route7() {
  local out
  out=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency -s bench/get_by_key.lua "$1" 2>&1)
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out" | python3 bench/to_ms.py)
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out" | python3 bench/to_ms.py)
  errors=$(awk '/Non-2xx or 3xx responses/ {print $5}' <<<"$out")
  errors="${errors:-0}"
}
select_tps() {
  "$pgbench_bin" -S -n -c "$connections" -j 2 -T "$seconds" "$1" 2>/dev/null | awk '/^tps/ {print $3; exit}'
}

rows=()
declare -A total=([primary]=0 [replica]=0)
for round in 1 2; do
  for side in primary replica; do
    if [ "$side" = primary ]; then ceiling=$(select_tps "$primary_db"); base="$primary_base"
    else ceiling=$(select_tps "$standby_db"); base="$replica_base"; fi
    route7 "$base"
    ratio=$(python3 -c "print(f'{100 * $rps / $ceiling:.0f}%')")
    total[$side]=$(python3 -c "print(${total[$side]} + $rps)")
    rows+=("| route 7 from the $side, run $round | $rps | $ceiling | $ratio | $p50 | $p99 | $errors |")
  done
done
# How many of the replica instance's reads the standby served (the rest: the primary's).
served=$(curl -s "$replica_metrics" | awk -F' ' '/^db_reads_total\{target="replica-1"\}/ {print $2}')
fallback=$(curl -s "$replica_metrics" | awk -F' ' '/^db_reads_total\{target="primary"\}/ {print $2}')
share=$(python3 -c "print(f'{100 * ${total[replica]} / ${total[primary]}:.0f}%')")
table=$(
  echo "| measurement | requests/s | pgbench -S on that server | ratio | p50 ms | p99 ms | non-2xx |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Route 7 from the replica at $share of route 7 from the primary (the two runs of each summed; target ≥ 90%)." \
    "Reads the standby served for the replica's instance: ${served:-0} (the primary: ${fallback:-0})." \
    "Proposals stored: $proposals; $connections connections; ${seconds}s per run; build profile $profile; primary and standby on this machine."
)
echo "$table"
[ "${served:-0}" != 0 ] || { echo "a réplica não atendeu nenhuma leitura: a linha não a mediu" >&2; exit 1; }
if [ "$record" = 1 ]; then
  {
    echo "## Route 7 from a replica, run of $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
    echo
    echo "$table"
    echo
  } >> docs/performance.md
fi
