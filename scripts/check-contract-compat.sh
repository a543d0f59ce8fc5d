#!/usr/bin/env bash
# A breaking change fails CI: compares the committed contract (docs/openapi.json, which a
# black-box test holds equal to the served one) with every release's, and fails on a change
# that breaks a client (crates/openapi-compat: a removed operation, member, parameter or enum
# value, a new required member of a request; a removed component schema, a value new to an
# answer's enum, a changed type or format) unless info.version's major moved.
#
# The releases are CHANGELOG.md's headings of the form
#   ## 1.2.0 — 2026-11-26 (commit 0123abc), Sales-Version 2026-11-21
# whose commit's docs/openapi.json is the released contract (the history travels with every
# clone of main; tags may not). A release of a dated version is compared with that version's
# document as served today (docs/openapi/VERSION.json, or docs/openapi.json for the newest): a
# later version may change what the release's clients never read, only through its module.
set -euo pipefail
cd "$(dirname "$0")/.."

releases=$(grep -E '^## [0-9]+\.[0-9]+\.[0-9]+ .*\(commit [0-9a-f]{7,40}\)' CHANGELOG.md || true)
if [ -z "$releases" ]; then
  echo "CHANGELOG.md não nomeia versão publicada (## X.Y.Z — data (commit abc1234))." >&2
  exit 1
fi

released=$(mktemp)
trap 'rm -f "$released"' EXIT
status=0
while read -r release; do
  version=$(sed -E 's/^## ([0-9]+\.[0-9]+\.[0-9]+) .*/\1/' <<<"$release")
  commit=$(sed -E 's/.*\(commit ([0-9a-f]+)\).*/\1/' <<<"$release")
  if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "O commit $commit da versão $version não está neste clone (clone raso? git fetch --unshallow)." >&2
    exit 1
  fi
  git show "$commit:docs/openapi.json" >"$released"
  declared=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["info"]["version"])' "$released")
  if [ "$declared" != "$version" ]; then
    echo "O contrato do commit $commit declara a versão $declared, não $version (CHANGELOG.md)." >&2
    exit 1
  fi
  current=docs/openapi.json
  pinned=$(sed -nE 's/.*Sales-Version ([0-9]{4}-[0-9]{2}-[0-9]{2}).*/\1/p' <<<"$release")
  if [ -n "$pinned" ] && [ -f "docs/openapi/$pinned.json" ]; then
    current="docs/openapi/$pinned.json"
  fi
  echo "Contrato atual ($current) contra a versão $version (commit $commit):" >&2
  cargo run --quiet -p openapi-compat -- "$released" "$current" || status=1
done <<<"$releases"
exit "$status"
