#!/usr/bin/env bash
# A breaking change fails CI: compares the committed contract (docs/openapi.json, which a
# black-box test holds equal to the served one) with the last release's, and fails on a change
# that breaks a client (crates/openapi-compat: a removed operation, member, parameter or enum
# value, a new required member of a request) unless info.version's major moved.
#
# The last release is the newest heading of CHANGELOG.md of the form
#   ## 1.2.0 — 2026-11-26 (commit 0123abc)
# whose commit's docs/openapi.json is the released contract (the history travels with every
# clone of main; tags may not).
set -euo pipefail
cd "$(dirname "$0")/.."

release=$(grep -m1 -E '^## [0-9]+\.[0-9]+\.[0-9]+ .*\(commit [0-9a-f]{7,40}\)' CHANGELOG.md || true)
if [ -z "$release" ]; then
  echo "CHANGELOG.md não nomeia versão publicada (## X.Y.Z — data (commit abc1234))." >&2
  exit 1
fi
version=$(sed -E 's/^## ([0-9]+\.[0-9]+\.[0-9]+) .*/\1/' <<<"$release")
commit=$(sed -E 's/.*\(commit ([0-9a-f]+)\).*/\1/' <<<"$release")
if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "O commit $commit da versão $version não está neste clone (clone raso? git fetch --unshallow)." >&2
  exit 1
fi

released=$(mktemp)
trap 'rm -f "$released"' EXIT
git show "$commit:docs/openapi.json" >"$released"
declared=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["info"]["version"])' "$released")
if [ "$declared" != "$version" ]; then
  echo "O contrato do commit $commit declara a versão $declared, não $version (CHANGELOG.md)." >&2
  exit 1
fi

echo "Contrato atual contra a versão $version (commit $commit):" >&2
cargo run --quiet -p openapi-compat -- "$released" docs/openapi.json
