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
