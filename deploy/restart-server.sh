#!/usr/bin/env bash
# (Re)starts the nimbus server on PORT (one of $SERVER_PORTS) and waits for its /health.
#   deploy/restart-server.sh 55421
source "$(dirname "$0")/lib.sh"
port=$1
pidfile=$(server_pidfile "$port")
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then kill "$(cat "$pidfile")"; sleep 0.5; fi
start_server "$port"
wait_http "http://127.0.0.1:$port/health" 60
log "server on $port is up"
