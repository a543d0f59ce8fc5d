#!/usr/bin/env bash
# The acceptance sweep's benchmark (issue 45): one pass of `sales-api acceptance sweep` over
# 1,000,000 proposals in analysis, 10,000 of them due (their product accepts by silence, so each
# becomes APROVADO with its history, event, certificate due and document, in batches of 500),
# against the same number of single-row updates by pgbench, one client, in the same run.
#
#   bench/acceptance_sweep.sh                          # 1,000,000 in analysis, 10,000 due
#   BENCH_PROPOSALS=100000 BENCH_DUE=1000 bench/acceptance_sweep.sh
#   BENCH_SMOKE=1 bench/acceptance_sweep.sh            # CI: debug build, 2,000 and 100, nothing recorded
#
# Starts PostgreSQL as the test command does, seeds the proposals (bench/seed.sql, then every one
# put in analysis with its clock), measures, prints the table and appends it to docs/performance.md.
set -euo pipefail
trap 'echo "bench/acceptance_sweep.sh: falhou na linha $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh

if [ "${BENCH_SMOKE:-0}" = 1 ]; then
  : "${BENCH_PROPOSALS:=2000}" "${BENCH_DUE:=100}" "${BENCH_PROFILE:=dev}" "${BENCH_RECORD:=0}"
fi
proposals="${BENCH_PROPOSALS:-1000000}"
due="${BENCH_DUE:-10000}"
profile="${BENCH_PROFILE:-release}"
record="${BENCH_RECORD:-1}"
pgbench_bin="$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | head -1)"
[ -n "$pgbench_bin" ] || { echo "pgbench é necessário (Debian: apt-get install postgresql-contrib)" >&2; exit 1; }

ensure_postgres
server="$PG_SERVER_URL"
db="sales_bench_sweep"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cargo build --profile "$profile" --bin sales-api
case "$profile" in dev) dir=debug ;; *) dir="$profile" ;; esac
target="${CARGO_TARGET_DIR:-target}/$dir"

psql "$server/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
export SALES_ENV=development DATABASE_URL="$server/$db" RUST_LOG=warn MAIL_DIR="$work/mail"
"$target/sales-api" migrate >/dev/null
"$target/sales-api" seed demo >/dev/null
echo "Semeando $proposals propostas em análise, $due vencendo..." >&2
psql "$DATABASE_URL" -q -v first=1 -v last="$proposals" -f bench/seed.sql
# Every proposal in analysis with a running clock of the demo's tacit product; the first $due
# (by id) past their deadline, the rest ten days ahead. Written past the service and its
# triggers (bench data: the documents of those the sweep moves are built by the sweep itself).
psql "$DATABASE_URL" -q -v due="$due" <<'SQL'
\set ON_ERROR_STOP on
BEGIN;
SET LOCAL session_replication_role = replica;
UPDATE proposals SET status = 'EM ANÁLISE' WHERE status <> 'EM ANÁLISE';
INSERT INTO proposal_acceptances (id_proposta, recebida_em, prazo_em, tacito, suspensoes_permitidas)
SELECT id, now() - interval '20 days',
       CASE WHEN row_number() OVER (ORDER BY id) <= :due THEN now() - interval '1 hour'
            ELSE now() + interval '10 days' END,
       true, 1
FROM proposals;
COMMIT;
VACUUM ANALYZE proposals;
VACUUM ANALYZE proposal_acceptances;
SQL
in_analysis=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM proposal_acceptances WHERE decidida_em IS NULL")

# The sweep: one pass, as `sales-api acceptance sweep` runs it (process start included).
started=$(date +%s.%N)
"$target/sales-api" acceptance sweep > "$work/sweep.out"
finished=$(date +%s.%N)
accepted=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM proposals WHERE status = 'APROVADO'")
[ "$accepted" = "$due" ] || { echo "a varredura aceitou $accepted, esperava $due" >&2; exit 1; }
sweep_s=$(python3 -c "print(f'{$finished - $started:.2f}')")

# The ceiling: the same number of single-row updates of the clocks' table, one client, each its
# own transaction (what a row-at-a-time pass would cost at best).
cat > "$work/update.sql" <<SQL
\set id random(1, $proposals)
UPDATE proposal_acceptances SET suspensoes_permitidas = suspensoes_permitidas WHERE id_proposta = :id;
SQL
tps=$("$pgbench_bin" -n -c 1 -j 1 -t "$due" -f "$work/update.sql" "$DATABASE_URL" 2>/dev/null \
  | awk '/^tps = / {print $3; exit}')
pgbench_s=$(python3 -c "print(f'{$due / $tps:.2f}')")
ratio=$(python3 -c "print(f'{$sweep_s / $pgbench_s:.2f}')")
per_second=$(python3 -c "print(f'{$due / $sweep_s:.0f}')")

table="| Figure | Seconds | Per second | Ceiling (pgbench, s) | Ratio |
|---|---|---|---|---|
| \`sales-api acceptance sweep\`: $due due of $in_analysis in analysis, accepted by silence | $sweep_s | $per_second | $pgbench_s ($due single-row UPDATEs, 1 client) | $ratio× |"
echo "$table"
[ "$record" = 1 ] || exit 0
{
  echo "## Acceptance sweep, run of $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo
  echo "$table"
  echo
  echo "Each accepted proposal: the status move, its history, its event, its certificate due and its document, in transactions of 500 (\`FOR UPDATE SKIP LOCKED\`); the rest of the clocks are outside the index's range (\`proposal_acceptances_running\`)."
  echo
} >> docs/performance.md
