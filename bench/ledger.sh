#!/usr/bin/env bash
# The ledger check's benchmark (issue 65): `sales-api ledger check --dry-run` over 1,000,000
# contracts, each with two charges (one paid) and so three ledger entries, against pgbench's scan
# of the same rows on the same server (one client reading every charge and every entry:
# `count(*)` and `sum(valor)` of both tables). The check reads both and compares them entry by
# entry, so its floor is one such scan; the table says how many scans it costs.
#
#   bench/ledger.sh                                  # 1,000,000 contracts
#   BENCH_CONTRACTS=100000 bench/ledger.sh
#   BENCH_SMOKE=1 bench/ledger.sh                    # CI-sized: debug build, 2,000, nothing recorded
#   BENCH_BIN_DIR=/tmp/bin bench/ledger.sh           # a sales-api built elsewhere
#
# Starts PostgreSQL as the test command does, seeds the proposals (bench/seed.sql), writes their
# charges through the ledger's triggers (as the service's writes do), measures, prints the table
# and appends it to docs/performance.md.
set -euo pipefail
trap 'echo "bench/ledger.sh: falhou na linha $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh

if [ "${BENCH_SMOKE:-0}" = 1 ]; then
  : "${BENCH_CONTRACTS:=2000}" "${BENCH_PROFILE:=dev}" "${BENCH_RECORD:=0}" "${BENCH_SECONDS:=2}"
fi
contracts="${BENCH_CONTRACTS:-1000000}"
seconds="${BENCH_SECONDS:-20}"
profile="${BENCH_PROFILE:-release}"
record="${BENCH_RECORD:-1}"
pgbench_bin="$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | head -1)"
[ -n "$pgbench_bin" ] || { echo "pgbench é necessário (Debian: apt-get install postgresql-contrib)" >&2; exit 1; }

ensure_postgres
server="$PG_SERVER_URL"
db="sales_bench_ledger"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -n "${BENCH_BIN_DIR:-}" ]; then
  bin="$BENCH_BIN_DIR/sales-api"
else
  cargo build --profile "$profile" --bin sales-api
  case "$profile" in dev) dir=debug ;; *) dir="$profile" ;; esac
  bin="${CARGO_TARGET_DIR:-target}/$dir/sales-api"
fi

psql "$server/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
export SALES_ENV=development DATABASE_URL="$server/$db" RUST_LOG=warn MAIL_DIR="$work/mail"
"$bin" migrate >/dev/null
"$bin" seed demo >/dev/null
echo "Semeando $contracts contratos..." >&2
psql "$DATABASE_URL" -q -v first=1 -v last="$contracts" -f bench/seed.sql
# Every bench proposal an accepted payroll contract with two charges, the first paid: the
# contracts are written past the service (bench data), the charges through the ledger's triggers.
psql "$DATABASE_URL" -q <<'SQL'
\set ON_ERROR_STOP on
BEGIN;
SET LOCAL session_replication_role = replica;
UPDATE proposals SET status = 'APROVADO', tipo_pagamento = 'DESCONTO EM FOLHA' WHERE alterado_por = 'bench';
INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
    retentativas_dias, carencia_dias, suspensao_dias, situacao_desde, situacao_por)
SELECT p.id, 'DESCONTO EM FOLHA', p.valor, now() - interval '40 days', current_date - 30, current_date,
       '{1,3,5}', 5, 30, now(), 'bench'
FROM proposals p WHERE p.alterado_por = 'bench';
COMMIT;
INSERT INTO charges (id_proposta, periodo, vencimento, valor, metodo, status, pago_em, valor_pago, criada_em, alterada_em, alterada_por)
SELECT b.id_proposta, n, b.primeiro_vencimento + (n - 1) * 30, b.valor, b.metodo,
       CASE n WHEN 1 THEN 'paga' ELSE 'aberta' END, CASE n WHEN 1 THEN now() END, CASE n WHEN 1 THEN b.valor END,
       now(), now(), 'bench'
FROM contract_billings b, generate_series(1, 2) n;
VACUUM ANALYZE charges;
VACUUM ANALYZE ledger_entries;
VACUUM ANALYZE proposals;
SQL
entries=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM ledger_entries")

# The check, as an operator runs it (process start included); clean data: exit 0.
started=$(date +%s.%N)
"$bin" ledger check --dry-run > "$work/check.out"
finished=$(date +%s.%N)
check_s=$(python3 -c "print(f'{$finished - $started:.2f}')")
checked=$(awk '{print $1; exit}' "$work/check.out")
[ "$checked" -ge "$contracts" ] || { echo "a conferência leu $checked contratos: $(cat "$work/check.out")" >&2; exit 1; }

# The ceiling: one client scanning every charge and every entry, as many times as it can.
cat > "$work/scan.sql" <<'SQL'
SELECT count(*), sum(valor) FROM charges;
SELECT count(*), sum(valor) FROM ledger_entries;
SQL
tps=$("$pgbench_bin" -n -c 1 -j 1 -T "$seconds" -f "$work/scan.sql" "$DATABASE_URL" 2>/dev/null \
  | awk '/^tps = / {print $3; exit}')
scan_s=$(python3 -c "print(f'{1 / $tps:.2f}')")
ratio=$(python3 -c "print(f'{$check_s / (1 / $tps):.1f}')")

table="| Figure | Seconds | Contracts per second | Ceiling | Cost in scans |
|---|---|---|---|---|
| \`sales-api ledger check --dry-run\`: $checked contracts, $entries entries, no drift | $check_s | $(python3 -c "print(f'{$checked / $check_s:.0f}')") | one scan of the charges and the entries: $scan_s s (pgbench, 1 client, ${seconds} s) | ${ratio}× |"
echo "$table"
[ "$record" = 1 ] || exit 0
{
  echo "## The ledger check, run of $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo
  echo "$table"
  echo
} >> docs/performance.md
