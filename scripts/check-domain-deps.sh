#!/usr/bin/env bash
# The domain crate stays pure: no web framework, database driver or HTTP client among its
# (non-dev) dependencies, direct or transitive.
set -euo pipefail
cd "$(dirname "$0")/.."
deny='^(actix[a-z_-]*|axum|warp|rocket|hyper[a-z_-]*|reqwest|ureq|diesel[a-z_-]*|sqlx[a-z_-]*|tokio-postgres|postgres[a-z_-]*|deadpool[a-z_-]*|bb8|lettre|jsonwebtoken|bcrypt|utoipa[a-z_-]*) '
found=$(cargo tree -p domain -e normal --prefix none --no-dedupe | sort -u | grep -E "$deny" || true)
if [ -n "$found" ]; then
  echo "crates/domain depende de crates de infraestrutura proibidos:" >&2
  echo "$found" >&2
  exit 1
fi
echo "domain: nenhuma dependência de web, banco ou cliente HTTP"

# Each adapter depends on the domain, never on another adapter nor on the contract's versions (an
# edge concern the composition root hands in): its normal and build dependencies, direct.
for manifest in crates/adapters-*/Cargo.toml; do
  adapter=$(basename "$(dirname "$manifest")")
  reached=$(cargo tree -p "$adapter" -e normal,build --depth 1 --prefix none | sed 1d | awk '{print $1}' |
    grep -E '^(adapters-[a-z-]+|contract-versions|api-actix)$' | grep -vx "$adapter" || true)
  if [ -n "$reached" ]; then
    echo "$adapter depende de outro adaptador ou das versões do contrato: $reached" >&2
    exit 1
  fi
done
echo "adaptadores: cada um depende do domínio, de nenhum outro adaptador"
