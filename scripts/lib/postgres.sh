# Finds a PostgreSQL server for the run and test commands, or starts a private one.
# Sourced, not run. Sets PG_SERVER_URL (no database name), e.g. postgres://postgres@127.0.0.1:5432
#
# Order: the server of DATABASE_URL when it is set; else the server on 127.0.0.1:5432 when it
# answers; else a private cluster under target/pg, started with this machine's initdb and pg_ctl
# (Debian's postgresql package is installed first when there are none; SALES_PG_INSTALL=0 does
# not). SALES_PG=private forces the private cluster.

PRIVATE_PG_PORT="${PRIVATE_PG_PORT:-55432}"

pg_answers() { # host port
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -h "$1" -p "$2" >/dev/null 2>&1
  else
    (exec 3<>"/dev/tcp/$1/$2") >/dev/null 2>&1
  fi
}

find_pg_bin() { # name
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return 0; fi
  local candidate
  for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$candidate/$1" ]; then echo "$candidate/$1"; return 0; fi
  done
  return 1
}

# A machine with no PostgreSQL at all gets Debian's package (as root, or with sudo), as the test
# command does for Chromium; the package's own cluster is not used: the private one below is.
install_postgres_package() {
  local as_root=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || return 1
    as_root=(sudo)
  fi
  command -v apt-get >/dev/null 2>&1 || return 1
  echo "Instalando o PostgreSQL da distribuição (pacote postgresql)" >&2
  "${as_root[@]}" apt-get update -qq >&2 \
    && "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
}

start_private_cluster() {
  local root data initdb pg_ctl as_owner=()
  root="$(pwd)/target/pg"
  data="$root/data"
  if ! find_pg_bin initdb >/dev/null || ! find_pg_bin pg_ctl >/dev/null; then
    if [ "${SALES_PG_INSTALL:-1}" = 1 ]; then
      install_postgres_package || true
    fi
  fi
  if ! initdb="$(find_pg_bin initdb)" || ! pg_ctl="$(find_pg_bin pg_ctl)"; then
    echo "PostgreSQL não encontrado: nenhum servidor em 127.0.0.1:5432 e nenhum initdb/pg_ctl nesta máquina," >&2
    echo "e não foi possível instalá-lo (é preciso root ou sudo, e apt-get)." >&2
    echo "Instale o servidor (Debian/Ubuntu: sudo apt-get install postgresql) ou defina DATABASE_URL." >&2
    return 1
  fi
  mkdir -p "$root"
  # initdb refuses to run as root: run the private cluster as the postgres system user.
  if [ "$(id -u)" = 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
      echo "Como root, o cluster privado precisa do usuário de sistema 'postgres' (pacote postgresql)." >&2
      return 1
    fi
    chown postgres "$root"
    as_owner=(runuser -u postgres --)
  fi
  if [ ! -f "$data/PG_VERSION" ]; then
    echo "Criando cluster PostgreSQL privado em $data" >&2
    "${as_owner[@]}" "$initdb" -D "$data" -U postgres --auth=trust -E UTF8 >"$root/initdb.log" 2>&1 \
      || { cat "$root/initdb.log" >&2; return 1; }
  fi
  if ! pg_answers 127.0.0.1 "$PRIVATE_PG_PORT"; then
    echo "Iniciando PostgreSQL privado na porta $PRIVATE_PG_PORT" >&2
    "${as_owner[@]}" "$pg_ctl" -D "$data" -l "$root/server.log" -w \
      -o "-p $PRIVATE_PG_PORT -c listen_addresses=127.0.0.1 -k $root -c max_connections=300" start >&2 \
      || { cat "$root/server.log" >&2; return 1; }
  fi
  PG_SERVER_URL="postgres://postgres@127.0.0.1:$PRIVATE_PG_PORT"
}

ensure_postgres() {
  if [ "${SALES_PG:-}" = private ]; then
    # Forces the private cluster (to try that path on a machine that has a server).
    start_private_cluster || return 1
  elif [ -n "${DATABASE_URL:-}" ]; then
    # The server part of DATABASE_URL: everything before the last path segment.
    PG_SERVER_URL="${DATABASE_URL%/*}"
  elif pg_answers 127.0.0.1 5432; then
    PG_SERVER_URL="postgres://postgres@127.0.0.1:5432"
  else
    start_private_cluster || return 1
  fi
  export PG_SERVER_URL
}
