#!/usr/bin/env bash
# The OpenAPI document as client generators read it, checked by three outside linters, pinned:
# openapi-spec-validator, @redocly/cli (its recommended rules) and @stoplight/spectral-cli
# (`spectral:oas`, .spectral.yaml). Any error fails; warnings are printed (issue 28 takes them to
# zero). Arguments: the document's file, and the Python virtual environment to install into.
set -euo pipefail
cd "$(dirname "$0")/.."
doc="$1"
venv="$2"

command -v npx >/dev/null 2>&1 || { echo "npx (Node.js) é necessário (Debian: apt-get install nodejs npm)" >&2; exit 1; }
if [ ! -x "$venv/bin/openapi-spec-validator" ]; then
  "$venv/bin/pip" install --quiet "openapi-spec-validator==0.7.1"
fi

echo "openapi-spec-validator:"
"$venv/bin/openapi-spec-validator" "$doc"
echo "@redocly/cli lint:"
npx --yes @redocly/cli@1.34.3 lint "$doc" --format=summary
echo "spectral lint (spectral:oas):"
npx --yes @stoplight/spectral-cli@6.15.0 lint "$doc" --ruleset .spectral.yaml --fail-severity=error
