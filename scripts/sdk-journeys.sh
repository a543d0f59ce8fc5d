#!/usr/bin/env bash
# SDKs, generated and exercised (issue 28): from the running service's /openapi.json, a Python
# client (openapi-python-client) and TypeScript types with a fetch client (openapi-typescript +
# openapi-fetch, type-checked by tsc with skipLibCheck off) are generated into target/sdk (ignored
# by git), and each runs the partner's journey and the shop's against the service, asserting the
# parsed values (tests/sdk/). Starts the real binary on a fresh database with the demo data. The
# generators and their runtimes are pinned here and in docs/sdk/ (the configurations published with
# the contract: docs/sdk/python/generator.yaml, docs/sdk/typescript/package.json and tsconfig.json).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/postgres.sh
source scripts/lib/service.sh

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  ensure_postgres
  export TEST_DATABASE_URL="$PG_SERVER_URL/postgres"
fi
server="${TEST_DATABASE_URL%/*}"
command -v npm >/dev/null 2>&1 || { echo "npm (Node.js) é necessário (Debian: apt-get install nodejs npm)" >&2; exit 1; }

venv="${SDK_VENV:-$HOME/.cache/sales-sdk-venv}"
if [ ! -x "$venv/bin/openapi-python-client" ]; then
  python3 -m venv "$venv" || { echo "python3 com venv é necessário (Debian: apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/pip" install --quiet "openapi-python-client==0.29.1"
fi

cargo build --bin sales-api
bin="${CARGO_TARGET_DIR:-target}/debug/sales-api"
out="$PWD/target/sdk"
rm -rf "$out"
mkdir -p "$out"

work="$(mktemp -d)"
db="sales_sdk_$$_$RANDOM"
port=$(free_port)
export SALES_ENV=development
export DATABASE_URL="$server/$db"
export JWT_PRIVATE_KEY_FILE="$work/keys/jwt-ed25519.pem"
export BIND_ADDR="127.0.0.1:$port"
export PUBLIC_URL="http://127.0.0.1:$port"
export BCRYPT_COST=4 RUST_LOG=warn METRICS_ADDR=off MAIL_DIR="$work/mail"
# The journeys' hook points at a closed port on loopback: its deliveries fail, its log is read.
export HOOKS_ALLOWED_CIDRS=127.0.0.0/8

cleanup() {
  if [ -n "${pid:-}" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  psql "$server/postgres" -qc "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# The service on a database of its own with the demo data, started anew for each SDK generation
# whose journey expects to be the first to use it (the released ones).
fresh_service() {
  if [ -n "${pid:-}" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  psql "$server/postgres" -qc "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null
  "$bin" migrate --create-database >/dev/null
  "$bin" seed demo >/dev/null
  "$bin" serve --no-migrate >"$work/server.log" 2>&1 &
  pid=$!
  wait_until_ready "$base" "$pid" "$work/server.log"
}

"$bin" keys generate --out "$work/keys" >/dev/null
base="http://$BIND_ADDR"
fresh_service
python3 -c "import urllib.request; open('$out/openapi.json', 'wb').write(urllib.request.urlopen('$base/openapi.json').read())"

status=0
echo "SDK Python (openapi-python-client):"
"$venv/bin/openapi-python-client" generate --path "$out/openapi.json" --output-path "$out/python/sales_client" \
  --meta none --config docs/sdk/python/generator.yaml >"$out/python-generator.log" 2>&1 ||
  { cat "$out/python-generator.log" >&2; exit 1; }
# The SDKs name the version of the document they were generated from, as a partner's would.
version=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["info"]["x-sales-version"])' "$out/openapi.json")
PYTHONPATH="$out/python" "$venv/bin/python" tests/sdk/python/journeys.py "$base" "$version" || status=$?

echo "SDK TypeScript (openapi-typescript + openapi-fetch, tsc --noEmit):"
ts="$out/typescript"
mkdir -p "$ts"
cp docs/sdk/typescript/package.json docs/sdk/typescript/tsconfig.json tests/sdk/typescript/journeys.ts "$ts/"
(
  cd "$ts"
  npm install --no-audit --no-fund --loglevel=error >/dev/null
  npx --no-install openapi-typescript "$out/openapi.json" --output schema.d.ts >/dev/null
  npx --no-install tsc --noEmit
  npx --no-install tsc --outDir dist
  node dist/journeys.js "$base" "$version"
) || status=$?

# Old SDKs keep working (issue 49): each released version's Python SDK, generated from the
# OpenAPI of its release commit (CHANGELOG.md's headings), runs that release's own journey
# unchanged against this service, the demo users pinned to the release's contract version
# (those SDKs send no Sales-Version). Every version back to the first release, oldest last.
releases=$(sed -nE 's/^## ([0-9]+\.[0-9]+\.[0-9]+) .*\(commit ([0-9a-f]+)\).*Sales-Version ([0-9]{4}-[0-9]{2}-[0-9]{2}).*/\1 \2 \3/p' CHANGELOG.md)
[ -n "$releases" ] || { echo "CHANGELOG.md não nomeia versão publicada com seu Sales-Version" >&2; exit 1; }
while read -r release commit pinned; do
  echo "SDK Python da versão $release (commit $commit), fixado em $pinned:"
  old="$out/released/$release"
  mkdir -p "$old"
  git cat-file -e "$commit^{commit}" 2>/dev/null ||
    { echo "o commit $commit não está neste clone (clone raso? git fetch --unshallow)" >&2; exit 1; }
  git show "$commit:docs/openapi.json" >"$old/openapi.json"
  git show "$commit:tests/sdk/python/journeys.py" >"$old/journeys.py"
  # The generator's configuration lived in the test tree before it was published in docs/sdk/.
  git show "$commit:docs/sdk/python/generator.yaml" >"$old/generator.yaml" 2>/dev/null ||
    git show "$commit:tests/sdk/python/generator.yaml" >"$old/generator.yaml"
  fresh_service
  for email in parceiro@demo.com.br ecommerce@demo.com.br backoffice@demo.com.br; do
    "$bin" user version --email "$email" --version "$pinned" >/dev/null
  done
  "$venv/bin/openapi-python-client" generate --path "$old/openapi.json" --output-path "$old/python/sales_client" \
    --meta none --config "$old/generator.yaml" >"$old/generator.log" 2>&1 ||
    { cat "$old/generator.log" >&2; exit 1; }
  # The version as the journey's second argument too: a release's journey that names its
  # version sends it (0.1.0's, from before versions, reads only the first).
  PYTHONPATH="$old/python" "$venv/bin/python" "$old/journeys.py" "$base" "$pinned" || status=$?
done <<<"$releases"

if [ "$status" != 0 ]; then
  echo "--- registro do servidor ---" >&2
  tail -30 "$work/server.log" >&2
fi
exit "$status"
