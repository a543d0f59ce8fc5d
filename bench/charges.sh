#!/usr/bin/env bash
# The billing's benchmarks (issue 46), in one run:
#   1. the daily charge run (`sales-api charges run`) over 1,000,000 running contracts, each with
#      one charge falling due within the run's 10 days (so the pass creates 1,000,000 charges with
#      their events and documents), against pgbench's insert ceiling on the same server: single-row
#      INSERTs of a charge-shaped row, one client, as many per second as it can (the run is one
#      connection too). Target: the run's charges per second ≥ 30% of it.
#   2. a remessa of 100,000 debits (`sales-api debits remessa`) and its return read
#      (`sales-api debits retorno`, every debit paid), each timed.
#   3. the notice pass (issue 67, Lei 15.040/2024 art. 20): 1% of the contracts (10,000 of the
#      1,000,000) made 20 days past due, then one `sales-api charges run`: the billing judges them
#      late and the arrears pass notices each (an e-mail written, a sandbox text message, the
#      notice and its deliveries recorded with the history), against pgbench's single-row UPDATEs
#      of a billing on the same server (one client).
#
#   bench/charges.sh                                   # 1,000,000 contracts, 100,000 debits
#   BENCH_CONTRACTS=100000 BENCH_DEBITS=10000 bench/charges.sh
#   BENCH_SMOKE=1 bench/charges.sh                     # CI-sized: debug build, 2,000 and 500, nothing recorded
#   BENCH_BIN_DIR=/tmp/bin bench/charges.sh            # a sales-api built elsewhere
#
# Starts PostgreSQL as the test command does, seeds the proposals (bench/seed.sql), makes them
# accepted contracts past the service (as the acceptance sweep's benchmark does), measures, prints
# the table and appends it to docs/performance.md.
set -euo pipefail
trap 'echo "bench/charges.sh: falhou na linha $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh

if [ "${BENCH_SMOKE:-0}" = 1 ]; then
  : "${BENCH_CONTRACTS:=2000}" "${BENCH_DEBITS:=500}" "${BENCH_PROFILE:=dev}" "${BENCH_RECORD:=0}" "${BENCH_SECONDS:=2}"
fi
contracts="${BENCH_CONTRACTS:-1000000}"
debits="${BENCH_DEBITS:-100000}"
seconds="${BENCH_SECONDS:-20}"
profile="${BENCH_PROFILE:-release}"
record="${BENCH_RECORD:-1}"
[ "$debits" -le "$contracts" ] || { echo "BENCH_DEBITS ($debits) > BENCH_CONTRACTS ($contracts)" >&2; exit 1; }
pgbench_bin="$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | head -1)"
[ -n "$pgbench_bin" ] || { echo "pgbench é necessário (Debian: apt-get install postgresql-contrib)" >&2; exit 1; }

ensure_postgres
server="$PG_SERVER_URL"
db="sales_bench_charges"
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
# One agreement: the bank every bench debit is at.
export DEBIT_AGREEMENTS="341:BENCH0001:SEGURADORA BENCH"
"$bin" migrate >/dev/null
"$bin" seed demo >/dev/null
echo "Semeando $contracts contratos..." >&2
psql "$DATABASE_URL" -q -v first=1 -v last="$contracts" -f bench/seed.sql
# Every bench proposal an accepted contract whose first charge falls due in 5 days (within the
# run's 10); the first $debits paid by débito em conta at bank 341 with an active authorisation,
# the rest by payroll discount under an active averbação. Written past the service and its
# triggers (bench data).
psql "$DATABASE_URL" -q -v debits="$debits" <<'SQL'
\set ON_ERROR_STOP on
BEGIN;
SET LOCAL session_replication_role = replica;
UPDATE proposals SET status = 'APROVADO' WHERE alterado_por = 'bench';
WITH numbered AS (
  SELECT id, row_number() OVER (ORDER BY id) AS n FROM proposals WHERE alterado_por = 'bench'
)
UPDATE proposals p SET tipo_pagamento = 'DÉBITO EM CONTA' FROM numbered WHERE p.id = numbered.id AND numbered.n <= :debits;
UPDATE proposal_payments pp SET tipo = 'DÉBITO EM CONTA', banco = '341', agencia = '1234', conta = lpad(pp.id_proposta::text, 8, '0') || '-1',
       numero_folha = NULL, tipo_folha = NULL, especie = NULL
FROM proposals p WHERE p.id = pp.id_proposta AND p.tipo_pagamento = 'DÉBITO EM CONTA' AND p.alterado_por = 'bench';
INSERT INTO contract_billings (id_proposta, metodo, valor, aceita_em, primeiro_vencimento, proximo_vencimento,
    retentativas_dias, carencia_dias, suspensao_dias, situacao_desde, situacao_por)
SELECT p.id, p.tipo_pagamento, p.valor, now() - interval '5 days',
       (now() AT TIME ZONE 'America/Sao_Paulo')::date + 5, (now() AT TIME ZONE 'America/Sao_Paulo')::date + 5,
       '{1,3,5}', 5, 30, now(), 'bench'
FROM proposals p WHERE p.alterado_por = 'bench';
INSERT INTO debit_authorizations (id_proposta, banco, autorizada_em, situacao_em)
SELECT b.id_proposta, '341', b.aceita_em, now() FROM contract_billings b WHERE b.metodo = 'DÉBITO EM CONTA';
-- The payroll contracts in force are registered with their payroll (decision 268).
INSERT INTO averbacoes (id_proposta, id_externo, situacao, solicitada_em, situacao_em, alterada_por)
SELECT b.id_proposta, 'BENCH-' || b.id_proposta, 'ativa', b.aceita_em, b.aceita_em, 'bench'
FROM contract_billings b WHERE b.metodo = 'DESCONTO EM FOLHA';
COMMIT;
VACUUM ANALYZE proposals;
VACUUM ANALYZE contract_billings;
VACUUM ANALYZE debit_authorizations;
VACUUM ANALYZE averbacoes;
SQL
running=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM contract_billings WHERE encerrada_em IS NULL")

# 1. The run: one pass, as every instance runs it (process start included).
started=$(date +%s.%N)
"$bin" charges run > "$work/run.out"
finished=$(date +%s.%N)
created=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM charges")
[ "$created" = "$running" ] || { echo "a passada criou $created cobranças, esperava $running" >&2; exit 1; }
run_s=$(python3 -c "print(f'{$finished - $started:.2f}')")
# What autovacuum does after a million inserts (this machine's server runs without it): without
# statistics the checks of the retorno below read the unpaid charges' whole index per contract.
psql "$DATABASE_URL" -qc "ANALYZE charges"
run_rate=$(python3 -c "print(f'{$created / ($finished - $started):.0f}')")

# The ceiling: single-row INSERTs of a charge-shaped row (its unique period, its unpaid index),
# one client, each its own transaction, for $seconds seconds.
psql "$DATABASE_URL" -q <<'SQL'
CREATE TABLE bench_charge_inserts (LIKE charges INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES);
ALTER TABLE bench_charge_inserts DROP CONSTRAINT IF EXISTS bench_charge_inserts_id_proposta_periodo_key;
CREATE SEQUENCE bench_charge_inserts_seq;
SQL
cat > "$work/insert.sql" <<'SQL'
INSERT INTO bench_charge_inserts (id, id_proposta, periodo, vencimento, valor, metodo, criada_em, alterada_em, alterada_por)
VALUES (nextval('bench_charge_inserts_seq'), currval('bench_charge_inserts_seq'), 1, current_date + 5, 4990, 'DESCONTO EM FOLHA', now(), now(), 'bench');
SQL
tps=$("$pgbench_bin" -n -c 1 -j 1 -T "$seconds" -f "$work/insert.sql" "$DATABASE_URL" 2>/dev/null \
  | awk '/^tps = / {print $3; exit}')
tps=$(python3 -c "print(f'{$tps:.0f}')")
ratio=$(python3 -c "print(f'{100 * $run_rate / $tps:.0f}')")

# 2. The remessa of the debits due (every débito em conta contract's first charge) and its return.
mkdir -p "$work/files"
started=$(date +%s.%N)
"$bin" debits remessa --out "$work/files" > "$work/remessa.out"
finished=$(date +%s.%N)
remessa_s=$(python3 -c "print(f'{$finished - $started:.2f}')")
remessa=$(ls "$work/files"/*.REM)
sent=$(grep -c '^E' "$remessa")
[ "$sent" = "$debits" ] || { echo "a remessa levou $sent débitos, esperava $debits" >&2; exit 1; }
# The bank's return: every debit paid (F, code 00), as a bank writes it from the remessa.
python3 - "$remessa" "$work/files/retorno.RET" <<'PY'
import sys
lines = open(sys.argv[1], encoding="latin-1").read().splitlines()
out, total = [], 0
for line in lines:
    if line.startswith("A"):
        out.append("A2" + line[2:])
    elif line.startswith("E"):
        amount = int(line[52:67])
        total += amount
        # F: the E's client, branch, account and date, the amount debited, return code 00, its use.
        out.append(("F" + line[1:44] + line[44:52] + line[52:67] + "00" + line[69:129]).ljust(149) + "0")
    elif line.startswith("Z"):
        out.append("Z" + str(len(out) + 1).zfill(6) + str(total).zfill(17) + " " * 126)
open(sys.argv[2], "w", encoding="latin-1").write("\r\n".join(out) + "\r\n")
PY
started=$(date +%s.%N)
"$bin" debits retorno "$work/files/retorno.RET" > "$work/retorno.out"
finished=$(date +%s.%N)
retorno_s=$(python3 -c "print(f'{$finished - $started:.2f}')")
paid=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM charges WHERE status = 'paga'")
[ "$paid" = "$debits" ] || { echo "o retorno pagou $paid cobranças, esperava $debits: $(cat "$work/retorno.out")" >&2; exit 1; }

# 3. The notice pass: 1% of the payroll contracts' first charges presented and due 20 days ago.
late=$((contracts / 100))
psql "$DATABASE_URL" -q -v late="$late" -v debits="$debits" <<'SQL'
\set ON_ERROR_STOP on
UPDATE charges SET vencimento = vencimento - 25, apresentada_em = now() - interval '25 days'
WHERE id IN (SELECT id FROM charges WHERE metodo = 'DESCONTO EM FOLHA' ORDER BY id LIMIT :late);
ANALYZE charges;
SQL
started=$(date +%s.%N)
"$bin" charges run > "$work/notices.out"
finished=$(date +%s.%N)
notices_s=$(python3 -c "print(f'{$finished - $started:.2f}')")
noticed=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM billing_notices WHERE tipo = 'atraso' AND recebido_em IS NOT NULL")
[ "$noticed" = "$late" ] || { echo "a passada avisou $noticed contratos, esperava $late: $(cat "$work/notices.out")" >&2; exit 1; }
notice_rate=$(python3 -c "print(f'{$noticed / ($finished - $started):.0f}')")
cat > "$work/update.sql" <<SQL
\set id random(1, $running)
UPDATE contract_billings SET situacao_por = 'bench' WHERE id_proposta = (SELECT min(id_proposta) FROM contract_billings) + :id - 1;
SQL
update_tps=$("$pgbench_bin" -n -c 1 -j 1 -T "$seconds" -f "$work/update.sql" "$DATABASE_URL" 2>/dev/null \
  | awk '/^tps = / {print $3; exit}')
update_tps=$(python3 -c "print(f'{$update_tps:.0f}')")
notice_ratio=$(python3 -c "print(f'{100 * $notice_rate / $update_tps:.0f}')")

table="| Figure | Seconds | Per second | Ceiling | Ratio | Target |
|---|---|---|---|---|---|
| \`sales-api charges run\`: $created charges created for $running running contracts (events, documents) | $run_s | $run_rate | $tps single-row INSERTs/s (pgbench, 1 client, ${seconds} s) | ${ratio}% | ≥ 30% |
| \`sales-api debits remessa\`: one CNAB 150 file of $sent debits | $remessa_s | $(python3 -c "print(f'{$sent / $remessa_s:.0f}')") | | | |
| \`sales-api debits retorno\`: its return read, $paid debits paid | $retorno_s | $(python3 -c "print(f'{$paid / $retorno_s:.0f}')") | | | |
| \`sales-api charges run\` with the notice pass: $noticed of $running contracts late and noticed (e-mail, text message, history) | $notices_s | $notice_rate | $update_tps single-row UPDATEs/s (pgbench, 1 client, ${seconds} s) | ${notice_ratio}% | |"
echo "$table"
[ "$record" = 1 ] || exit 0
{
  echo "## Billing: the charge run, a remessa and its return, the notice pass, run of $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo
  echo "$table"
  echo
} >> docs/performance.md
