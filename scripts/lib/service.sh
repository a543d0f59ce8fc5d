# Starting the built service for a script's own run (sourced): a free port, and the wait for
# its readiness that says why when it never comes.

# A port nothing listens on now (the system's choice), for BIND_ADDR.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until $1/health/ready answers (up to 30 s). Fails with the end of the service's log ($3)
# when its process ($2) ended or it never became ready.
wait_until_ready() {
  local base="$1" pid="$2" log="$3"
  for _ in $(seq 1 150); do
    if python3 -c "import urllib.request; urllib.request.urlopen('$base/health/ready', timeout=1)" 2>/dev/null; then
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      break
    fi
    sleep 0.2
  done
  echo "O serviço não ficou pronto em $base; fim do seu log:" >&2
  tail -30 "$log" >&2
  return 1
}
