# Shared settings of the one-machine reference deployment (sourced by the other scripts).
# Every setting may be overridden from the environment; the tests give their own ports and folder.
set -euo pipefail

DEPLOY_DIR=${DEPLOY_DIR:-/tmp/nimbus-deploy}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${NIMBUS_BIN:-}" ]; then
  if [ -x "$REPO_DIR/.build/release/nimbus" ]; then NIMBUS_BIN="$REPO_DIR/.build/release/nimbus"; else NIMBUS_BIN="$REPO_DIR/.build/debug/nimbus"; fi
fi
# The two PostgreSQL nodes ("a" starts as primary, "b" as its streaming standby).
PG_A_PORT=${PG_A_PORT:-55401}
PG_B_PORT=${PG_B_PORT:-55402}
# HAProxy: the PostgreSQL primary (writes), the standby (reads), and the HTTP front door.
PG_WRITE_PORT=${PG_WRITE_PORT:-55410}
PG_READ_PORT=${PG_READ_PORT:-55411}
HTTP_PORT=${HTTP_PORT:-8080}
HAPROXY_STATS_PORT=${HAPROXY_STATS_PORT:-55419}
# The nimbus servers' ports: one server per port.
SERVER_PORTS=${SERVER_PORTS:-"55421 55422 55423"}
DATABASE=${DATABASE:-nimbus}
# How long the primary may go without a synchronous standby before the watchdog lets
# commits proceed without one (decision server-0029).
SYNC_GRACE_SECONDS=${SYNC_GRACE_SECONDS:-5}
# The standbys a commit waits for: the first of these that streams.
SYNC_NAMES="FIRST 1 (node_a, node_b)"

WRITE_URL="postgres://postgres@127.0.0.1:$PG_WRITE_PORT/$DATABASE"
READ_URL="postgres://postgres@127.0.0.1:$PG_READ_PORT/$DATABASE"

log() { echo "[deploy $(date -u +%H:%M:%S)] $*" >&2; }

# Runs a PostgreSQL tool as the postgres user when we are root (PostgreSQL refuses root).
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

node_dir() { echo "$DEPLOY_DIR/pg-$1"; }
node_port() { if [ "$1" = a ]; then echo "$PG_A_PORT"; else echo "$PG_B_PORT"; fi; }
other_node() { if [ "$1" = a ]; then echo b; else echo a; fi; }
# The node HAProxy sends writes to (written by start.sh and failover.sh).
current_primary() { cat "$DEPLOY_DIR/primary"; }

psql_node() { # psql_node NODE SQL...
  local node=$1; shift
  as_pg "$PG_BIN/psql" -h 127.0.0.1 -p "$(node_port "$node")" -U postgres -d postgres -XqAt -v ON_ERROR_STOP=1 -c "$*"
}

pg_start_node() {
  local node=$1
  as_pg "$PG_BIN/pg_ctl" -D "$(node_dir "$node")/data" -l "$(node_dir "$node")/log" \
    -o "-p $(node_port "$node") -k $(node_dir "$node")" -w -t 60 start >/dev/null
}

node_running() { as_pg "$PG_BIN/pg_ctl" -D "$(node_dir "$1")/data" status >/dev/null 2>&1; }

# Writes haproxy.cfg for the current primary and (re)starts HAProxy, handing over from the
# old process (-sf) so that the HTTP front door stays open.
write_haproxy() {
  local primary; primary=$(current_primary)
  local standby; standby=$(other_node "$primary")
  local servers="" i=1
  for port in $SERVER_PORTS; do servers+="    server nimbus$i 127.0.0.1:$port check inter 1s fall 2 rise 1
"; i=$((i + 1)); done
  cat > "$DEPLOY_DIR/haproxy.cfg" <<CFG
global
    pidfile $DEPLOY_DIR/haproxy.pid
    stats socket $DEPLOY_DIR/haproxy.sock mode 600 level admin
    # An old process handed over at reload (failover) ends its remaining sessions (WebSockets) within 10 s.
    hard-stop-after 10s
    maxconn 4096

defaults
    timeout connect 2s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
    timeout client-fin 5s

# The sync servers. A TCP check only: a server whose database is away answers 503 with
# Retry-After itself, which clients understand better than HAProxy's own page.
frontend http_in
    mode http
    bind 127.0.0.1:$HTTP_PORT
    default_backend nimbus
backend nimbus
    mode http
    balance leastconn
    retry-on conn-failure empty-response
    option redispatch
$servers
# PostgreSQL writes: only the current primary ($primary). failover.sh rewrites this file.
listen pg_write
    mode tcp
    bind 127.0.0.1:$PG_WRITE_PORT
    server $primary 127.0.0.1:$(node_port "$primary") check inter 1s on-marked-down shutdown-sessions
# PostgreSQL reads: the standby ($standby), else the primary.
listen pg_read
    mode tcp
    bind 127.0.0.1:$PG_READ_PORT
    server $standby 127.0.0.1:$(node_port "$standby") check inter 1s on-marked-down shutdown-sessions
    server $primary 127.0.0.1:$(node_port "$primary") check inter 1s backup

listen stats
    mode http
    bind 127.0.0.1:$HAPROXY_STATS_PORT
    stats enable
    stats uri /
CFG
  if [ -f "$DEPLOY_DIR/haproxy.pid" ] && kill -0 "$(cat "$DEPLOY_DIR/haproxy.pid")" 2>/dev/null; then
    haproxy -q -D -f "$DEPLOY_DIR/haproxy.cfg" -sf "$(cat "$DEPLOY_DIR/haproxy.pid")"
  else
    haproxy -q -D -f "$DEPLOY_DIR/haproxy.cfg"
  fi
}

server_pidfile() { echo "$DEPLOY_DIR/server-$1.pid"; }

start_server() { # start_server PORT
  local port=$1
  mkdir -p "$DEPLOY_DIR/server-$port"
  nohup "$NIMBUS_BIN" serve --port "$port" --data-dir "$DEPLOY_DIR/server-$port" \
    --postgres "$WRITE_URL" --postgres-replica "$READ_URL" --rate-limit 0 --log-level "${NIMBUS_LOG_LEVEL:-notice}" \
    >>"$DEPLOY_DIR/server-$port.log" 2>&1 &
  echo $! > "$(server_pidfile "$port")"
}

wait_http() { # wait_http URL SECONDS
  local url=$1 limit=$2 i=0
  until curl -fs -o /dev/null "$url"; do
    i=$((i + 1)); [ "$i" -lt $((limit * 10)) ] || { log "no answer from $url"; return 1; }
    sleep 0.1
  done
}
