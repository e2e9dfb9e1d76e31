#!/usr/bin/env bash
# Stops the reference deployment started by deploy/start.sh; --purge also deletes $DEPLOY_DIR.
source "$(dirname "$0")/lib.sh"
stop_pid() { # stop_pid PIDFILE
  [ -f "$1" ] || return 0
  local pid; pid=$(cat "$1")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}
stop_pid "$DEPLOY_DIR/watchdog.pid"
for port in $SERVER_PORTS; do stop_pid "$(server_pidfile "$port")"; done
stop_pid "$DEPLOY_DIR/haproxy.pid"
for node in a b; do
  if [ -d "$(node_dir "$node")/data" ] && node_running "$node"; then
    as_pg "$PG_BIN/pg_ctl" -D "$(node_dir "$node")/data" -m fast -w stop >/dev/null || true
  fi
done
if [ "${1:-}" = --purge ]; then rm -rf "$DEPLOY_DIR"; fi
log "stopped"
