#!/usr/bin/env bash
# Checks the running service against its own OpenAPI document with schemathesis (an outside tool):
# no answer may be a 5xx, every status must be documented, and every answer must match its schema.
# Starts the real binary on a fresh database with the demo data, signed in with a demo token.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
source scripts/lib/service.sh

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  ensure_postgres
  export TEST_DATABASE_URL="$PG_SERVER_URL/postgres"
fi
server="${TEST_DATABASE_URL%/*}"

venv="${SCHEMATHESIS_VENV:-$HOME/.cache/sales-schemathesis-venv}"
if [ ! -x "$venv/bin/st" ]; then
  python3 -m venv "$venv" || { echo "python3 com venv é necessário (Debian: apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/pip" install --quiet "schemathesis==4.32.5"
fi

cargo build --bin sales-api
bin="${CARGO_TARGET_DIR:-target}/debug/sales-api"

work="$(mktemp -d)"
db="sales_schemathesis_$$_$RANDOM"
port=$(free_port)
export SALES_ENV=development
export DATABASE_URL="$server/$db"
export JWT_PRIVATE_KEY_FILE="$work/keys/jwt-ed25519.pem"
export BIND_ADDR="127.0.0.1:$port"
export BCRYPT_COST=4
export LOG_JSON=true
# Warnings, and the one line per request that the tally at the end counts.
export RUST_LOG=warn,api_actix::http::middleware=info METRICS_ADDR=off
# The tool sends thousands of requests a minute with one token: past the rate limit it would
# only meet 429s (documented, and tested on their own: tests/tests/black_box/rate_limits.rs).
export RATE_LIMIT_REQUESTS_PER_MINUTE=off
# The generated subscriptions point at the loopback (a port nothing listens on: their deliveries
# fail and are retried, as a partner's down endpoint's would), and the run creates more than an
# owner's usual limit.
export HOOKS_ALLOWED_CIDRS=127.0.0.0/8 HOOKS_MAX_SUBSCRIPTIONS_PER_OWNER=100000
export SCHEMATHESIS_HOOK_ENDPOINT="http://127.0.0.1:$(free_port)/webhooks"

cleanup() {
  if [ -n "${pid:-}" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if command -v psql >/dev/null 2>&1; then
    psql "$server/postgres" -qc "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  else
    echo "psql ausente: remova o banco $db manualmente" >&2
  fi
  # SCHEMATHESIS_KEEP_LOG=<file> keeps the service's log of the run, to see why answers were 4xx.
  if [ -n "${SCHEMATHESIS_KEEP_LOG:-}" ]; then cp "$work/server.log" "$SCHEMATHESIS_KEEP_LOG"; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$bin" keys generate --out "$work/keys" >/dev/null
"$bin" migrate --create-database >/dev/null
"$bin" seed demo >/dev/null
"$bin" serve --no-migrate >"$work/server.log" 2>&1 &
pid=$!
wait_until_ready "http://$BIND_ADDR" "$pid" "$work/server.log"

sign_in() { # e-mail password application
  "$venv/bin/python" - "$BIND_ADDR" "$1" "$2" "$3" <<'PY'
import json, sys, urllib.request
address, email, password, application = sys.argv[1:]
body = json.dumps({"email": email, "password": password, "aplicacao": application}).encode()
request = urllib.request.Request(f"http://{address}/signin", data=body, headers={"Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(request))["token"])
PY
}

# One pass per application, each over the routes that application may call, so that the
# creation routes are exercised past their permission check.
status=0
# Lets every body generated as valid past the rules the schema cannot say (valid CPFs, the demo
# catalog's codes, what an earlier call created), and counts the creations' answers per mode:
# scripts/schemathesis_hooks.py.
export SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
export SCHEMATHESIS_STATS="$work/creations.jsonl"
# The answers are checked against the document fetched (the newest): every request names its
# version, or the service would answer in the version of a credential never pinned.
sales_version=$("$venv/bin/python" -c 'import json, sys, urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1]))["info"]["x-sales-version"])' "http://$BIND_ADDR/openapi.json")
run_pass() { # token, then schemathesis filter options
  local token="$1"
  shift
  "$venv/bin/st" run "http://$BIND_ADDR/openapi.json" \
    --header "Authorization: Bearer $token" \
    --header "Sales-Version: $sales_version" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --max-examples "${SCHEMATHESIS_MAX_EXAMPLES:-50}" \
    --seed 20261122 \
    --generation-database none \
    --no-color "$@" || status=$?
}
# Every token first: the first pass fuzzes /signin, and its wrong passwords soon block this
# address's sign-ins (the throttle working), so a later sign-in would get no token.
backoffice_token="$(sign_in backoffice@demo.com.br 'Backoffice#2026' BACKOFFICE)"
partner_token="$(sign_in parceiro@demo.com.br 'Parceiro#2026' PARCEIRO)"
shop_token="$(sign_in ecommerce@demo.com.br 'Ecommerce#2026' ECOMMERCE)"
# Sign-out ends the token's session: it has a pass of its own, the last.
# Each pass leaves out the creation routes its application may not call (their 403 is tested on
# its own), so that each creation's tally counts the calls that could succeed; the stateful phase
# then follows the document's links from what a pass created to the routes that read, send and
# change it (create → read → send → history).
seller_only='^/(customer/create|proposal/create|ecommerce/|signer$)'
run_pass "$backoffice_token" --exclude-path /signout --exclude-path-regex "$seller_only"
run_pass "$partner_token" --include-path-regex '^/(customer/(create|validCustomer)|proposal|signer)' \
  --exclude-path /proposal/create/ecommerce
run_pass "$shop_token" --include-path-regex '^/(proposal|ecommerce/)' --exclude-path /proposal/create
# Nothing links to sign-out: no stateful phase.
run_pass "$backoffice_token" --include-path /signout --phases examples,coverage,fuzzing

# How deep the generated cases went: the answers by status class, and per route how many were 2xx.
"$venv/bin/python" - "$work/server.log" <<'PY'
import collections, json, sys
classes, routes = collections.Counter(), collections.defaultdict(collections.Counter)
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try:
        entry = json.loads(line)
    except ValueError:
        continue
    if entry.get("message") not in ("request finished", "request failed"):
        continue
    status = int(entry.get("status", 0))
    span = entry.get("span", {})
    route = f'{span.get("method", "?")} {span.get("route", "?")}'
    classes[f"{status // 100}xx"] += 1
    routes[route]["2xx" if 200 <= status < 300 else "outras"] += 1
total = sum(classes.values())
print(f"schemathesis: {total} respostas; " + ", ".join(f"{k} {v}" for k, v in sorted(classes.items())))
# The documented operations schemathesis exercised (other methods on a path it tries once each).
for route, counts in sorted(routes.items()):
    total = counts["2xx"] + counts["outras"]
    if total >= 5:
        print(f"  {route:<58} 2xx {counts['2xx']:>4} de {total:>4}")
PY

# How many of the calls to each creation route answered 2xx, of every call and of those generated
# as valid: fewer than a third of every call fails the run.
"$venv/bin/python" - "$SCHEMATHESIS_STATS" <<'PY' || status=1
import collections, sys
counts = collections.Counter()
for line in open(sys.argv[1], encoding="utf-8"):
    for path, mode, outcome, count in __import__("json").loads(line):
        counts[(path, mode, outcome)] += count
short = []
print("criações (2xx de todas as chamadas; das geradas válidas):")
for path in sorted({p for p, _, _ in counts}):
    ok = sum(counts[(path, m, "2xx")] for m in ("positive", "negative"))
    total = ok + sum(counts[(path, m, "outras")] for m in ("positive", "negative"))
    valid_ok, valid = counts[(path, "positive", "2xx")], counts[(path, "positive", "2xx")] + counts[(path, "positive", "outras")]
    print(f"  POST {path:<32} {ok:>4} de {total:>4}; {valid_ok:>4} de {valid:>4}")
    if 3 * ok < total:
        short.append(path)
if short:
    print("menos de um terço de 2xx em: " + ", ".join(short), file=sys.stderr)
    sys.exit(1)
PY

if [ "$status" != 0 ]; then
  echo "--- registro do servidor ---" >&2
  tail -50 "$work/server.log" >&2
fi
exit "$status"
