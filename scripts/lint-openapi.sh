#!/usr/bin/env bash
# The contract as client generators read it: docs/openapi.json (the served document, kept equal
# to it by a black-box test) through three outside linters, pinned: openapi-spec-validator,
# @redocly/cli (its recommended rules; .redocly.lint-ignore.yaml lists the findings that are
# decisions) and @stoplight/spectral-cli (`spectral:oas`, .spectral.yaml). Any error or warning
# fails. Argument: the Python virtual environment to install the validator into.
set -euo pipefail
cd "$(dirname "$0")/.."
doc=docs/openapi.json
venv="${1:-$HOME/.cache/sales-lint-venv}"

command -v npx >/dev/null 2>&1 || { echo "npx (Node.js) é necessário (Debian: apt-get install nodejs npm)" >&2; exit 1; }
if [ ! -x "$venv/bin/openapi-spec-validator" ]; then
  python3 -m venv "$venv" 2>/dev/null || true
  "$venv/bin/pip" install --quiet "openapi-spec-validator==0.7.1"
fi

echo "openapi-spec-validator:"
"$venv/bin/openapi-spec-validator" "$doc"
echo "@redocly/cli lint:"
npx --yes @redocly/cli@1.34.3 lint "$doc" --format=summary --max-problems=100 2>&1 | tee "${TMPDIR:-/tmp}/redocly-lint.$$"
if grep -q "warning" "${TMPDIR:-/tmp}/redocly-lint.$$"; then
  rm -f "${TMPDIR:-/tmp}/redocly-lint.$$"
  echo "@redocly/cli: avisos no documento (zero é a meta)" >&2
  exit 1
fi
rm -f "${TMPDIR:-/tmp}/redocly-lint.$$"
echo "spectral lint (spectral:oas):"
npx --yes @stoplight/spectral-cli@6.15.0 lint "$doc" --ruleset .spectral.yaml --fail-severity=warn
