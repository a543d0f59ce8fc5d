# Finds a PgBouncer that supports prepared statements in transaction pooling mode (1.21 or later:
# `max_prepared_statements`), or builds one. Sourced, not run. Sets PGBOUNCER_BIN.
#
# The service's statements are always named prepared statements (diesel-async through
# tokio-postgres), so an older PgBouncer cannot run it in transaction mode (docs/decisions.md).
# Order: PGBOUNCER_BIN when set; else `pgbouncer` on the PATH when it is 1.21 or later (Debian's
# package is installed first when there is none, as root or with sudo); else PgBouncer 1.24.1
# built once under $CARGO_TARGET_DIR/pgbouncer (or target/pgbouncer) from Debian's own source
# package (trixie), its checksum checked against the one Debian publishes.

PGBOUNCER_SOURCE_VERSION=1.24.1
PGBOUNCER_SOURCE_URL="http://deb.debian.org/debian/pool/main/p/pgbouncer/pgbouncer_${PGBOUNCER_SOURCE_VERSION}.orig.tar.gz"
PGBOUNCER_SOURCE_SHA256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else return 1; fi
}

apt_install() { # packages...
  command -v apt-get >/dev/null 2>&1 || return 1
  as_root apt-get update -qq >&2 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# "1.18.0" from "PgBouncer 1.18.0" and the like; true when it is 1.21 or later.
pgbouncer_supports_prepared() { # binary
  local version major minor
  version="$("$1" --version 2>/dev/null | head -1 | grep -oE '[0-9]+\.[0-9]+' | head -1)" || return 1
  major="${version%%.*}"; minor="${version#*.}"
  [ -n "$major" ] && { [ "$major" -gt 1 ] || { [ "$major" = 1 ] && [ "$minor" -ge 21 ]; }; }
}

build_pgbouncer() {
  # Beside the build cache when there is one (CI reuses it), else under target/.
  local root source
  root="$(cd "${CARGO_TARGET_DIR:-target}" 2>/dev/null && pwd || echo "$(pwd)/target")/pgbouncer"
  if [ -x "$root/bin/pgbouncer" ]; then PGBOUNCER_BIN="$root/bin/pgbouncer"; return 0; fi
  echo "Compilando PgBouncer $PGBOUNCER_SOURCE_VERSION (fonte do Debian) em $root" >&2
  for tool in gcc make pkg-config curl; do
    command -v "$tool" >/dev/null 2>&1 || apt_install gcc make pkg-config curl || return 1
  done
  if ! pkg-config --exists libevent openssl; then
    apt_install libevent-dev libssl-dev || return 1
  fi
  mkdir -p "$root/src"
  source="$root/src/pgbouncer.tar.gz"
  curl -fsSL --retry 3 -o "$source" "$PGBOUNCER_SOURCE_URL" || return 1
  echo "$PGBOUNCER_SOURCE_SHA256  $source" | sha256sum -c --quiet - || { echo "checksum do PgBouncer não confere" >&2; return 1; }
  tar -xzf "$source" -C "$root/src"
  (cd "$root/src/pgbouncer-$PGBOUNCER_SOURCE_VERSION" \
    && ./configure --prefix="$root" --without-cares --without-systemd >"$root/build.log" 2>&1 \
    && make -j"$(nproc)" >>"$root/build.log" 2>&1 && make install >>"$root/build.log" 2>&1) \
    || { tail -20 "$root/build.log" >&2; return 1; }
  PGBOUNCER_BIN="$root/bin/pgbouncer"
}

ensure_pgbouncer() {
  if [ -n "${PGBOUNCER_BIN:-}" ]; then return 0; fi
  local packaged
  packaged="$(command -v pgbouncer || ls /usr/sbin/pgbouncer 2>/dev/null || true)"
  if [ -z "$packaged" ]; then
    echo "Instalando pgbouncer (pacote da distribuição)" >&2
    apt_install pgbouncer || true
    packaged="$(command -v pgbouncer || ls /usr/sbin/pgbouncer 2>/dev/null || true)"
  fi
  if [ -n "$packaged" ] && pgbouncer_supports_prepared "$packaged"; then
    PGBOUNCER_BIN="$packaged"
  else
    [ -n "$packaged" ] && echo "$("$packaged" --version | head -1) não tem max_prepared_statements (1.21+)" >&2
    build_pgbouncer || { echo "PgBouncer 1.21+ indisponível" >&2; return 1; }
  fi
  export PGBOUNCER_BIN
}

# Starts PgBouncer in transaction pooling mode on 127.0.0.1:$2 in front of the server of
# PG_SERVER_URL (trust authentication, as the test server has), its files under $1.
start_pgbouncer() { # work-dir port
  local work="$1" port="$2" host pgport
  host="$(echo "$PG_SERVER_URL" | sed -E 's#^postgres(ql)?://([^@]*@)?([^:/]+).*#\3#')"
  pgport="$(echo "$PG_SERVER_URL" | sed -E 's#^.*:([0-9]+)$#\1#')"
  echo '"postgres" ""' > "$work/userlist.txt"
  cat > "$work/pgbouncer.ini" <<INI
[databases]
* = host=$host port=$pgport
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $work/userlist.txt
pool_mode = transaction
max_prepared_statements = 200
default_pool_size = ${PGBOUNCER_POOL_SIZE:-10}
max_client_conn = 500
logfile = $work/pgbouncer.log
pidfile = $work/pgbouncer.pid
INI
  local as_user=() binary="$PGBOUNCER_BIN"
  # PgBouncer refuses to run as root: as the postgres user, from a copy in the work folder (the
  # build cache may sit under root's home, which that user cannot enter).
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "como root, o PgBouncer precisa do usuário postgres" >&2; return 1; }
    binary="$work/pgbouncer"
    install -m 755 "$PGBOUNCER_BIN" "$binary"
    chown -R postgres "$work"
    as_user=(runuser -u postgres --)
  fi
  "${as_user[@]}" "$binary" -d "$work/pgbouncer.ini" || { cat "$work/pgbouncer.log" >&2; return 1; }
  for _ in $(seq 1 50); do pg_answers 127.0.0.1 "$port" && return 0; sleep 0.1; done
  cat "$work/pgbouncer.log" >&2
  return 1
}

stop_pgbouncer() { # work-dir
  [ -f "$1/pgbouncer.pid" ] && kill "$(cat "$1/pgbouncer.pid")" 2>/dev/null || true
}
