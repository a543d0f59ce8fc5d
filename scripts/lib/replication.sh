# A private PostgreSQL primary and a streaming hot standby of it, on this machine, for the replica
# test and the replica bench. Sourced, not run (after scripts/lib/postgres.sh and
# scripts/lib/service.sh).
#
# A private primary rather than the shared server: a standby needs a replication connection and
# the primary's WAL settings, which a machine's own server need not allow (this one's pg_hba.conf
# has no replication line). Both run as the postgres system user when the script runs as root
# (initdb refuses root), each on a free port, their sockets in the given folder.
#
#   start_primary_and_standby DIR   sets PRIMARY_URL, STANDBY_URL (no database name), PRIMARY_PORT,
#                                   STANDBY_PORT, STANDBY_DATA
#   stop_standby / start_standby    stops (fast) or starts the standby again
#   delay_standby_apply MS          sets recovery_min_apply_delay on the standby (0: none)
#   stop_primary_and_standby        stops both (for the caller's cleanup)

REPLICATION_AS_OWNER=()
REPLICATION_DIR=""

replication_pg() { # name args…
  local bin
  bin="$(find_pg_bin "$1")" || { echo "PostgreSQL: $1 não encontrado nesta máquina" >&2; return 1; }
  shift
  "${REPLICATION_AS_OWNER[@]}" "$bin" "$@"
}

start_primary_and_standby() {
  REPLICATION_DIR="$1"
  mkdir -p "$REPLICATION_DIR"
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || { echo "Como root, é preciso o usuário de sistema 'postgres'." >&2; return 1; }
    chown postgres "$REPLICATION_DIR"
    REPLICATION_AS_OWNER=(runuser -u postgres --)
  fi
  PRIMARY_PORT="$(free_port)"
  STANDBY_PORT="$(free_port)"
  while [ "$STANDBY_PORT" = "$PRIMARY_PORT" ]; do STANDBY_PORT="$(free_port)"; done
  local primary="$REPLICATION_DIR/primary"
  STANDBY_DATA="$REPLICATION_DIR/standby"
  # The initdb default pg_hba.conf trusts local replication connections with --auth=trust.
  replication_pg initdb -D "$primary" -U postgres --auth=trust -E UTF8 >"$REPLICATION_DIR/initdb.log" 2>&1 \
    || { cat "$REPLICATION_DIR/initdb.log" >&2; return 1; }
  replication_pg pg_ctl -D "$primary" -l "$REPLICATION_DIR/primary.log" -w -o \
    "-p $PRIMARY_PORT -c listen_addresses=127.0.0.1 -k $REPLICATION_DIR -c wal_level=replica -c max_wal_senders=5 \
     -c max_connections=200 -c fsync=off" start >/dev/null \
    || { cat "$REPLICATION_DIR/primary.log" >&2; return 1; }
  # -R writes primary_conninfo and standby.signal: the copy starts as a streaming standby.
  replication_pg pg_basebackup -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$STANDBY_DATA" -R -X stream \
    -c fast >"$REPLICATION_DIR/basebackup.log" 2>&1 \
    || { cat "$REPLICATION_DIR/basebackup.log" >&2; return 1; }
  start_standby
  PRIMARY_URL="postgres://postgres@127.0.0.1:$PRIMARY_PORT"
  STANDBY_URL="postgres://postgres@127.0.0.1:$STANDBY_PORT"
  export PRIMARY_URL STANDBY_URL PRIMARY_PORT STANDBY_PORT STANDBY_DATA
}

start_standby() {
  replication_pg pg_ctl -D "$STANDBY_DATA" -l "$REPLICATION_DIR/standby.log" -w -o \
    "-p $STANDBY_PORT -c listen_addresses=127.0.0.1 -k $REPLICATION_DIR -c hot_standby=on -c max_connections=200 \
     -c fsync=off" start >/dev/null \
    || { cat "$REPLICATION_DIR/standby.log" >&2; return 1; }
}

stop_standby() {
  replication_pg pg_ctl -D "$STANDBY_DATA" -m fast -w stop >/dev/null
}

delay_standby_apply() { # milliseconds
  replication_pg psql -qAt -h 127.0.0.1 -p "$STANDBY_PORT" -U postgres -d postgres \
    -c "ALTER SYSTEM SET recovery_min_apply_delay = '$1ms'" -c "SELECT pg_reload_conf()" >/dev/null
}

stop_primary_and_standby() {
  [ -n "$REPLICATION_DIR" ] || return 0
  local data
  for data in "$REPLICATION_DIR/standby" "$REPLICATION_DIR/primary"; do
    if [ -f "$data/postmaster.pid" ]; then
      replication_pg pg_ctl -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
  done
}
