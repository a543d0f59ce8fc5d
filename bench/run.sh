#!/usr/bin/env bash
# The benchmark harness: measures the service against this machine's own ceilings, in one run.
#
#   bench/run.sh                      # 100,000 proposals, 10 s per measurement, growth 10k → 1M
#   BENCH_PROPOSALS=10000 BENCH_SECONDS=3 BENCH_GROWTH=0 bench/run.sh
#   BENCH_SMOKE=1 bench/run.sh        # CI: debug build, tiny data, 1 s per route, nothing recorded
#   BENCH_PERF=1 BENCH_PROFILE=profiling bench/run.sh   # also where the CPU goes, per measurement
#   BENCH_BIN_DIR=/tmp/before BENCH_RECORD=0 bench/run.sh  # binaries built elsewhere (a "before")
#   BENCH_PGBOUNCER=0 bench/run.sh    # without the route-7 row through PgBouncer
#   METRICS_ADDR=off bench/run.sh     # the service without its metrics listener (its cost)
#   BENCH_RATE_LIMIT=off bench/run.sh # the service without its rate limit (its cost)
#
# Starts PostgreSQL as the test command does, builds the binaries, seeds the data set, starts the
# service, and measures with wrk (--latency) and pgbench: the ceilings, each right before its route
# (pgbench -S, pgbench insert + select by key, an actix-web hello-JSON server, cores ÷ one bcrypt
# verify), the five routes at 64 connections, route 7 during a sign-in flood, and route 7 and the
# catalog reads with 10,000 and with 1,000,000 proposals stored, and the proposal list at 1,000,000. Prints one table (figure,
# ceiling, ratio, target, latencies, non-2xx) and appends it to docs/performance.md with the date
# and the machine.
set -euo pipefail
# A step that fails says which (several steps hide their output while they succeed).
trap 'echo "bench/run.sh: falhou na linha $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
source scripts/lib/service.sh
source scripts/lib/pgbouncer.sh

smoke="${BENCH_SMOKE:-0}"
if [ "$smoke" = 1 ]; then
  : "${BENCH_PROPOSALS:=2000}" "${BENCH_SECONDS:=1}" "${BENCH_CONNECTIONS:=8}" "${BENCH_GROWTH:=0}"
  : "${BENCH_PROFILE:=dev}" "${BENCH_RECORD:=0}"
fi
proposals="${BENCH_PROPOSALS:-100000}"
seconds="${BENCH_SECONDS:-10}"
connections="${BENCH_CONNECTIONS:-64}"
growth="${BENCH_GROWTH:-1}"
growth_from="${BENCH_GROWTH_FROM:-10000}"
growth_to="${BENCH_GROWTH_TO:-1000000}"
profile="${BENCH_PROFILE:-release}"
record="${BENCH_RECORD:-1}"
perf_on="${BENCH_PERF:-0}"
pgbouncer_on="${BENCH_PGBOUNCER:-1}"
if [ "$perf_on" = 1 ] && ! command -v perf >/dev/null 2>&1; then
  echo "BENCH_PERF=1 precisa de perf (Debian: apt-get install linux-perf)" >&2
  exit 1
fi

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
[ "$pgbouncer_on" = 1 ] && ensure_pgbouncer
work="$(mktemp -d)"
chmod 755 "$work" # PgBouncer runs as postgres when we are root
# Ports the system says are free now (a random one could be a client socket's).
port=$(free_port)
hello_port=$(free_port)
# BENCH_BIN_DIR=<folder> measures binaries built elsewhere (an earlier commit's sales-api,
# hello-json, bcrypt-verify and, from issue 27 on, create-proposal-script), so that a change is
# measured before and after in one sitting.
if [ -n "${BENCH_BIN_DIR:-}" ]; then
  bin_dir="$BENCH_BIN_DIR"
else
  cargo build --profile "$profile" --bin sales-api --bin hello-json --bin bcrypt-verify --bin create-proposal-script
  case "$profile" in dev) dir=debug ;; *) dir="$profile" ;; esac
  bin_dir="${CARGO_TARGET_DIR:-target}/$dir"
fi
cores=$(nproc)

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  stop_pgbouncer "$work/bouncer"
  rm -rf "$work"
}
trap cleanup EXIT

export SALES_ENV=development JWT_PRIVATE_KEY_FILE="$work/keys/jwt-ed25519.pem" BIND_ADDR="127.0.0.1:$port" RUST_LOG=warn MAIL_DIR="$work/mail"
# wrk stands in for the edge: the sign-in rows say which client each attempt comes from.
export TRUSTED_PROXIES=127.0.0.1/32
# The rate limit is on in production: measured on, at a limit no row reaches (each row's own
# traffic is one client), so that its counting is in every figure. BENCH_RATE_LIMIT=off measures
# the service without it (its cost, issue 28: route 7 within 3%).
export RATE_LIMIT_REQUESTS_PER_MINUTE="${BENCH_RATE_LIMIT:-1000000000}"
"$bin_dir/sales-api" keys generate --out "$work/keys" >/dev/null

# A fresh database with the demo catalog and proposals 1..$2: name, count.
fresh_database() {
  psql "$server/postgres" -qc "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" >/dev/null
  export DATABASE_URL="$server/$1"
  "$bin_dir/sales-api" migrate >/dev/null
  "$bin_dir/sales-api" seed demo >/dev/null
  echo "Semeando $2 propostas em $1..." >&2
  psql "$DATABASE_URL" -q -v first=1 -v last="$2" -f bench/seed.sql
  # The PEP list at its monthly size, which route 5 screens every sale against (issue 70).
  psql "$DATABASE_URL" -q -f bench/pep_list.sql
  # The seed writes past the service: its proposals' documents are built by the service's own
  # definition (decision 168; a no-op for binaries whose triggers built them).
  "$bin_dir/sales-api" check read-model --repair >/dev/null
}

start_service() {
  "$bin_dir/sales-api" serve --no-migrate > "$work/server.log" 2>&1 &
  service_pid=$!
  pids+=("$service_pid")
  for _ in $(seq 1 150); do curl -sf "http://$BIND_ADDR/health/ready" >/dev/null && break; sleep 0.2; done
  local login='{"email":"parceiro@demo.com.br","password":"Parceiro#2026","aplicacao":"PARCEIRO"}'
  BENCH_TOKEN=$(curl -s "http://$BIND_ADDR/signin" -H 'content-type: application/json' -d "$login" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
  # The back office sees every proposal (reads); the representative creates them.
  login='{"email":"backoffice@demo.com.br","password":"Backoffice#2026","aplicacao":"BACKOFFICE"}'
  BENCH_READ_TOKEN=$(curl -s "http://$BIND_ADDR/signin" -H 'content-type: application/json' -d "$login" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
  export BENCH_TOKEN BENCH_READ_TOKEN BENCH_IDS="$work/ids"
}

stop_service() { kill "$service_pid" 2>/dev/null || true; wait "$service_pid" 2>/dev/null || true; }

sample_identifiers() {
  psql "$DATABASE_URL" -Atc "SELECT identificador FROM proposals TABLESAMPLE SYSTEM (10) LIMIT 10000" > "$work/ids"
  [ -s "$work/ids" ] || psql "$DATABASE_URL" -Atc "SELECT identificador FROM proposals LIMIT 10000" > "$work/ids"
}

# With BENCH_PERF=1: samples every process on the machine through the middle of a wrk run
# (perf, 499 Hz) and sets last_profile to the CPU split by process and the hottest functions of
# the service and of PostgreSQL (self time). Argument: seconds to sample.
profile_start() {
  last_profile=""
  perf_pid=""
  # Only while the service runs: the ceilings are other programs.
  [ "$perf_on" = 1 ] && [ -n "${service_pid:-}" ] || return 0
  (sleep 1; perf record -a -F 499 -o "$work/perf.data" -- sleep "$1" >/dev/null 2>&1) &
  perf_pid=$!
}
profile_finish() {
  [ -n "${perf_pid:-}" ] || return 0
  wait "$perf_pid" || true
  local report=(perf report -i "$work/perf.data" --stdio --no-children)
  top() { grep -E '^ +[0-9.]+%' | head -"$1" | sed -E 's/^ +//; s/ +/ /g' | cut -c1-110; }
  last_profile=$(
    echo "CPU by process:"
    "${report[@]}" --sort comm 2>/dev/null | top 4 | sed 's/^/    /'
    echo "Service, hottest functions (share of the service's samples):"
    "${report[@]}" --pid "${service_pid:-0}" --sort sym --percentage relative 2>/dev/null | top 8 | sed 's/^/    /'
    echo "PostgreSQL, hottest functions (share of its samples):"
    "${report[@]}" --comm postgres --sort sym --percentage relative 2>/dev/null | top 8 | sed 's/^/    /'
  ) || true # head closes the pipe on perf report: SIGPIPE, not a failure
}

# One wrk run: sets rps, p50, p99 (milliseconds) and errors. Arguments: wrk's.
wrk_run() {
  local out
  profile_start "$((seconds > 3 ? seconds - 2 : 1))"
  out=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency "$@" 2>&1)
  profile_finish
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out" | python3 bench/to_ms.py)
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out" | python3 bench/to_ms.py)
  errors=$(awk '/Non-2xx or 3xx responses/ {print $5}' <<<"$out")
  errors="${errors:-0}"
  if grep -q "Socket errors" <<<"$out"; then errors="$errors (+ $(grep 'Socket errors' <<<"$out" | sed 's/^ *//'))"; fi
}

rows=()
# A table row: name, figure, ceiling (or -), target text.
row() {
  local ratio="-"
  if [ "$3" != "-" ] && [ -n "$3" ]; then ratio=$(python3 -c "print(f'{100 * $2 / $3:.0f}%')"); fi
  rows+=("| $1 | $2 | $3 | $ratio | $4 | $p50 | $p99 | $errors |")
  if [ -n "${last_profile:-}" ]; then profiles+=("$1" "$last_profile"); fi
}
profiles=()

base="http://$BIND_ADDR"

# --- The main data set -------------------------------------------------------------------------
fresh_database sales_bench "$proposals"
sample_identifiers

# Ceilings: PostgreSQL alone, the HTTP layer alone, bcrypt alone. This machine's speed drifts
# within a run, so each ceiling is measured right before the route it is the ceiling of.
"$pgbench_bin" -i -q -s 10 "$DATABASE_URL" >/dev/null 2>&1
cat > "$work/create.sql" <<'SQL'
\set id random(1, 100000000)
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, :id, 0, now());
SELECT abalance FROM pgbench_accounts WHERE aid = (:id % 1000000) + 1;
SQL
# Transactions per second of pgbench; arguments: pgbench's script options. A failure says why.
pgbench_tps() {
  local out
  if ! out=$("$pgbench_bin" "$@" -n -c "$connections" -j 2 -T "$seconds" "$DATABASE_URL" 2>"$work/pgbench.err"); then
    echo "pgbench falhou ($*):" >&2
    cat "$work/pgbench.err" >&2
    return 1
  fi
  awk '/^tps/ {print $3; exit}' <<<"$out"
}
BIND_ADDR="127.0.0.1:$hello_port" "$bin_dir/hello-json" > /dev/null 2>&1 &
hello_pid=$!
pids+=("$hello_pid")
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$hello_port/hello" >/dev/null && break; sleep 0.1; done
# Sets hello_rps and adds its row (never profiled: it is not the service).
measure_hello() {
  local perf_was="$perf_on"
  perf_on=0
  wrk_run "http://127.0.0.1:$hello_port/hello"
  perf_on="$perf_was"
  hello_rps="$rps"
  row "actix-web hello JSON (ceiling of the next row)" "$rps" - "-"
}
verify_secs=$(BCRYPT_COST="${BCRYPT_COST:-12}" "$bin_dir/bcrypt-verify")
signin_ceiling=$(python3 -c "print(f'{$cores / $verify_secs:.1f}')")

start_service
pg_select=$(pgbench_tps -S)
wrk_run -s bench/get_by_key.lua "$base"
quiet_p99="$p99"
quiet_rps="$rps"
row "GET /proposal/byIdentifier" "$rps" "$pg_select" "≥ 40% of pgbench -S, p99 ≤ 25 ms"
# The rate limit's cost on route 7 (issue 28: at most 3%): a second instance without it, on the
# same database, measured twice around one more run of the instance with it; the figure is the
# two runs without it, the ceiling the two with it, so the ratio is what the limit leaves.
if [ "${RATE_LIMIT_REQUESTS_PER_MINUTE}" != off ]; then
  unlimited="127.0.0.1:$(free_port)"
  BIND_ADDR="$unlimited" RATE_LIMIT_REQUESTS_PER_MINUTE=off METRICS_ADDR=off \
    "$bin_dir/sales-api" serve --no-migrate > "$work/unlimited.log" 2>&1 &
  unlimited_pid=$!
  pids+=("$unlimited_pid")
  for _ in $(seq 1 150); do curl -sf "http://$unlimited/health/ready" >/dev/null && break; sleep 0.2; done
  wrk_run -s bench/get_by_key.lua "http://$unlimited"
  without_first="$rps"
  wrk_run -s bench/get_by_key.lua "$base"
  with_second="$rps"
  wrk_run -s bench/get_by_key.lua "http://$unlimited"
  kill "$unlimited_pid" 2>/dev/null || true
  wait "$unlimited_pid" 2>/dev/null || true
  without=$(python3 -c "print(f'{($without_first + $rps) / 2:.2f}')")
  with=$(python3 -c "print(f'{($quiet_rps + $with_second) / 2:.2f}')")
  # The ratio is with ÷ without: the figure column holds the runs with the limit.
  p50="-" p99="-"
  row "GET /proposal/byIdentifier with the rate limit, against a second instance without it (2 runs each, alternated)" \
    "$with" "$without" "≥ 97% (the limit costs ≤ 3%)"
fi
pg_create=$(pgbench_tps -f "$work/create.sql")
# Route 5's own writes: the service's create statement with the benchmark body's values (its
# document's write is one of its parts), replayed by pgbench (printed by bench-tools' create-proposal-script from the very constant the
# service binds, so that the two cannot drift). Binaries from before it have no such script.
pg_writes=""
if [ -x "$bin_dir/create-proposal-script" ]; then
  "$bin_dir/create-proposal-script" > "$work/writes.sql"
  partner_id=$(psql "$DATABASE_URL" -Atc "SELECT id FROM partners WHERE cpf_cnpj = '11222333000181'")
  representative_id=$(psql "$DATABASE_URL" -Atc "SELECT r.id FROM representatives r JOIN users u ON u.id = r.user_id
    WHERE u.email = 'parceiro@demo.com.br'")
  product_id=$(psql "$DATABASE_URL" -Atc "SELECT id FROM products WHERE codigo_produto = 101")
  # The scripts of 3d5fa79 and before it wrote the document as a second statement: they take a
  # stored document of the same shape (`:document`) when they name one.
  document_args=()
  if grep -q ':document' "$work/writes.sql"; then
    document_args=(-D document="$(psql "$DATABASE_URL" -Atc \
      "SELECT documento::text FROM proposal_read_models ORDER BY id_proposta DESC LIMIT 1")")
  fi
  pg_writes=$(pgbench_tps -M prepared -D partner="$partner_id" -D representative="$representative_id" \
    -D product="$product_id" "${document_args[@]}" -f "$work/writes.sql")
  p50="-" p99="-" errors="-" last_profile=""
  row "route 5's own writes, replayed (pgbench)" "$pg_writes" "$pg_create" "≥ 30% of pgbench insert+select"
fi
# The proposals route 5's row is about to create are those after this one (their CPFs are valid:
# the export below reads them).
before_route5=$(psql "$DATABASE_URL" -Atc "SELECT coalesce(max(id), 0) FROM proposals")
wrk_run -s bench/create_proposal.lua "$base"
row "POST /proposal/create" "$rps" "$pg_create" "≥ 60% of pgbench insert+select, p99 ≤ 50 ms"
if [ -n "$pg_writes" ]; then
  last_profile=""
  row "POST /proposal/create, against its own writes" "$rps" "$pg_writes" "≥ 90% of route 5's own writes"
fi
# Route 5 naming two beneficiaries (decision 279), against its own writes with them: binaries
# from before beneficiaries have neither the body nor the script's argument.
if [ -x "$bin_dir/create-proposal-script" ] && "$bin_dir/create-proposal-script" beneficiaries > "$work/writes_named.sql" \
   && grep -q proposal_beneficiaries "$work/writes_named.sql"; then
  p50="-" p99="-" errors="-" last_profile=""
  pg_writes_named=$(pgbench_tps -M prepared -D partner="$partner_id" -D representative="$representative_id" \
    -D product="$product_id" -f "$work/writes_named.sql")
  row "route 5's own writes with two beneficiaries, replayed (pgbench)" "$pg_writes_named" "$pg_writes" "≥ 80% of route 5's own writes"
  export BENCH_BENEFICIARIES=1
  wrk_run -s bench/create_proposal.lua "$base"
  unset BENCH_BENEFICIARIES
  row "POST /proposal/create, two beneficiaries, against its own writes" "$rps" "$pg_writes_named" "≥ 90% of its own writes"
fi
measure_hello
wrk_run -s bench/get_with_token.lua "$base/billingGroup/list"
row "GET /billingGroup/list" "$rps" "$hello_rps" "≥ 50% of hello JSON"
wrk_run -s bench/get_as_back_office.lua "$base/proposal/list"
row "GET /proposal/list, first page of 50" "$rps" "$quiet_rps" "≥ 50% of route 7 (time ≤ 2×)"
# The back office's other reads of a proposal (issue 27: no slower than before its read model;
# compared with an earlier binary through BENCH_BIN_DIR in the same sitting): the console's
# proposal page, and the LGPD export of a customer (who has one proposal here).
BENCH_PREFIX=/console/proposals/ wrk_run -s bench/get_by_key.lua "$base"
row "GET /console/proposals/:id (the console's proposal page)" "$rps" "$quiet_rps" "no slower than before issue 27 (same sitting)"
# The seed's CPFs (and those of route 5's writes replayed by pgbench) only have the database's
# shape; the export checks its path's CPF, so it reads the people route 5's row registered (valid
# CPFs, one proposal each).
psql "$DATABASE_URL" -Atc "SELECT cpf_cliente FROM proposals WHERE id > $before_route5 LIMIT 10000" > "$work/cpfs"
if [ -s "$work/cpfs" ]; then
  # Each export also records an `exportacao` entry in the history of the person's proposals, as
  # it does in use.
  BENCH_PREFIX=/privacy/customers/ BENCH_KEYS="$work/cpfs" wrk_run -s bench/get_by_key.lua "$base"
  row "GET /privacy/customers/:cpf (the LGPD export)" "$rps" "$quiet_rps" "no slower than before issue 27 (same sitting)"
fi
measure_hello
wrk_run -s bench/get_with_token.lua "$base/product/payment/101"
row "GET /product/payment/101" "$rps" "$hello_rps" "≥ 50% of hello JSON"
# Forged callbacks cost a bounded amount whatever they carry (decision 82): refused, never 2xx.
# Before the sign-ins, whose queued hashes go on for seconds after their run.
# Four connections: the latency is then one refusal's cost, not the queue of 64 connections.
all_connections="$connections"
connections=4
export BENCH_CALLBACK=payment
wrk_run -s bench/forged_callback.lua "$base/callbacks/payment"
row "POST /callbacks/payment, forged, Stripe-Signature of 12,000 entries (refused), 4 connections" "$rps" - "p99 < 5 ms"
export BENCH_CALLBACK=signature
wrk_run -s bench/forged_callback.lua "$base/callbacks/signature"
row "POST /callbacks/signature, forged, 60 KiB body (refused), 4 connections" "$rps" - "p99 < 5 ms"
connections="$all_connections"
wrk_run -s bench/signin.lua "$base/signin"
row "POST /signin" "$rps" "$signin_ceiling" "≥ 80% of cores ÷ bcrypt verify"

# Route 7 while sign-ins flood the service (the flood runs a little longer than the measurement).
wrk -t1 -c"$connections" -d"$((seconds + 2))s" -s bench/signin.lua "$base/signin" > /dev/null 2>&1 &
flood_pid=$!
sleep 1
wrk_run -s bench/get_by_key.lua "$base"
wait "$flood_pid" || true
row "GET /proposal/byIdentifier during a sign-in flood" "$rps" "-" "p99 ≤ 2 × quiet ($quiet_p99 ms)"

# Route 7 while one account is hammered from one address: refused (429) before any hash, each
# refusal one lock-free read, so the other routes keep their connections.
wrk -t1 -c"$connections" -d"$((seconds + 2))s" -s bench/signin_hammer.lua "$base/signin" > "$work/hammer.txt" 2>&1 &
hammer_pid=$!
sleep 1
wrk_run -s bench/get_by_key.lua "$base"
wait "$hammer_pid" || true
hammered=$(awk '/Requests\/sec/ {print $2}' "$work/hammer.txt")
row "GET /proposal/byIdentifier while one account is hammered from one address (${hammered:-?} refusals/s)" "$rps" "-" "p99 ≤ 2 × quiet ($quiet_p99 ms)"
peak_kib=$(awk '/VmHWM/ {print $2}' "/proc/$service_pid/status")
stop_service

# Route 7 through PgBouncer in transaction pooling mode (README, "PgBouncer"), beside the direct
# row above: the pools through it, LISTEN on the direct session. BENCH_PGBOUNCER=0 leaves it out.
if [ "$pgbouncer_on" = 1 ]; then
  mkdir -p "$work/bouncer"
  bouncer_port=$(free_port)
  PGBOUNCER_POOL_SIZE=20 start_pgbouncer "$work/bouncer" "$bouncer_port"
  direct_url="$DATABASE_URL"
  DATABASE_DIRECT_URL="$direct_url" DATABASE_URL="postgres://postgres@127.0.0.1:$bouncer_port/sales_bench" start_service
  wrk_run -s bench/get_by_key.lua "$base"
  row "GET /proposal/byIdentifier through PgBouncer (transaction mode)" "$rps" "$quiet_rps" "beside the direct row (the first; its figure is the ceiling)"
  stop_service
  stop_pgbouncer "$work/bouncer"
fi

# --- Growth: the same reads with few and with many proposals ----------------------------------
growth_lines=""
if [ "$growth" = 1 ]; then
  fresh_database sales_bench_growth "$growth_from"
  sample_identifiers
  start_service
  wrk_run -s bench/get_by_key.lua "$base"
  small_rps="$rps"
  row "GET /proposal/byIdentifier, $growth_from proposals" "$rps" - "-"
  wrk_run -s bench/get_with_token.lua "$base/billingGroup/list"
  small_list="$rps"
  row "GET /billingGroup/list, $growth_from proposals" "$rps" - "-"
  stop_service
  echo "Semeando até $growth_to propostas..." >&2
  psql "$DATABASE_URL" -q -v first="$((growth_from + 1))" -v last="$growth_to" -f bench/seed.sql
  "$bin_dir/sales-api" check read-model --repair >/dev/null
  sample_identifiers
  start_service
  wrk_run -s bench/get_by_key.lua "$base"
  row "GET /proposal/byIdentifier, $growth_to proposals" "$rps" "$small_rps" "within 10% of $growth_from"
  route7_rps="$rps"
  wrk_run -s bench/get_with_token.lua "$base/billingGroup/list"
  row "GET /billingGroup/list, $growth_to proposals" "$rps" "$small_list" "within 10% of $growth_from"
  # The proposal list (its time within twice route 7's: requests/s at least half): the back
  # office's first page, a page half-way down the cursor, and a representative's page of one status.
  wrk_run -s bench/get_as_back_office.lua "$base/proposal/list"
  row "GET /proposal/list, first page of 50, $growth_to proposals" "$rps" "$route7_rps" "≥ 50% of route 7 here (time ≤ 2×)"
  deep_cursor=$(psql "$DATABASE_URL" -Atc "SELECT (extract(epoch FROM criado_em) * 1000000)::bigint || ':' || id
    FROM proposals ORDER BY criado_em DESC, id DESC OFFSET $((growth_to / 2)) LIMIT 1" \
    | python3 -c 'import base64,sys; print(base64.urlsafe_b64encode(sys.stdin.read().strip().encode()).decode().rstrip("="))')
  wrk_run -s bench/get_as_back_office.lua "$base/proposal/list?cursor=$deep_cursor"
  row "GET /proposal/list, a page $((growth_to / 2)) proposals deep, $growth_to proposals" "$rps" "$route7_rps" "≥ 50% of route 7 here (time ≤ 2×)"
  wrk_run -s bench/get_with_token.lua "$base/proposal/list?conditions%5Bstatus%5D=EM%20AN%C3%81LISE"
  row "GET /proposal/list, a representative's EM ANÁLISE, $growth_to proposals" "$rps" "$route7_rps" "≥ 50% of route 7 here (time ≤ 2×)"
  # The costliest name search the list accepts: five words of three letters, each found in every
  # stored name ('Cliente De Carga'), so the trigram index narrows nothing.
  wrk_run -s bench/get_as_back_office.lua "$base/proposal/list?q=cli%20ent%20lie%20car%20rga"
  row "GET /proposal/list?q=five 3-letter words in every name, $growth_to proposals" "$rps" "$route7_rps" "≥ 50% of route 7 here (time ≤ 2×)"
  # A word found in no name: the index answers alone.
  wrk_run -s bench/get_as_back_office.lua "$base/proposal/list?q=xyz"
  row "GET /proposal/list?q=a word in no name, $growth_to proposals" "$rps" "$route7_rps" "≥ 50% of route 7 here (time ≤ 2×)"
  stop_service
  # A million proposals take gigabytes: not left behind.
  psql "$server/postgres" -qc "DROP DATABASE IF EXISTS sales_bench_growth WITH (FORCE)" >/dev/null
fi

table=$(
  echo "| measurement | requests/s | ceiling | ratio | target | p50 ms | p99 ms | non-2xx |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Ceilings, each measured right before its route: pgbench -S ${pg_select:-?} tps; pgbench insert + select by key ${pg_create:-?} tps;" \
    "hello JSON in its rows; one bcrypt verify at cost ${BCRYPT_COST:-12}: ${verify_secs}s, so $cores cores give $signin_ceiling sign-ins/s."
  echo "Service peak memory: $((peak_kib / 1024)) MiB (target < 150 MiB). Proposals stored: $proposals; $connections connections; ${seconds}s per run; build profile $profile."
)
if [ "${#profiles[@]}" -gt 0 ]; then
  table+=$'\n\n'"Profiles (perf, every process, self time; build profile $profile):"$'\n'
  for ((i = 0; i < ${#profiles[@]}; i += 2)); do
    table+=$'\n'"- ${profiles[i]}"$'\n\n'"$(sed 's/^/    /' <<<"${profiles[i + 1]}")"$'\n'
  done
fi
echo "$table"
if [ "$record" = 1 ]; then
  {
    echo "## Run of $(date -u +%Y-%m-%dT%H:%MZ) on $cores cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
    echo
    echo "$table"
    echo
  } >> docs/performance.md
fi
