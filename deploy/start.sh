#!/usr/bin/env bash
# Starts the reference deployment on this machine (docs/deploy.md): PostgreSQL node "a" as
# primary, node "b" as its synchronous streaming hot standby, HAProxy in front of both and of
# three `nimbus serve` processes, and the replication watchdog.
#   deploy/start.sh            # everything under $DEPLOY_DIR (default /tmp/nimbus-deploy)
# Stop it with deploy/stop.sh. Needs PostgreSQL 15, HAProxy and a built nimbus ($NIMBUS_BIN).
source "$(dirname "$0")/lib.sh"

[ -x "$NIMBUS_BIN" ] || { log "no nimbus at $NIMBUS_BIN: run swift build (or set NIMBUS_BIN)"; exit 1; }
command -v haproxy >/dev/null || { log "HAProxy is missing: apt-get install -y haproxy"; exit 1; }
[ ! -e "$DEPLOY_DIR/primary" ] || { log "$DEPLOY_DIR already holds a deployment: deploy/stop.sh --purge first"; exit 1; }
mkdir -p "$DEPLOY_DIR"
[ "$(id -u)" != 0 ] || chmod 755 "$DEPLOY_DIR"

# Node a: the primary.
a=$(node_dir a)
mkdir -p "$a"; [ "$(id -u)" != 0 ] || chown postgres:postgres "$a"
as_pg "$PG_BIN/initdb" -D "$a/data" -U postgres -A trust --no-sync >/dev/null
cat >> "$a/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
max_connections = 300
wal_level = replica
max_wal_senders = 10
wal_keep_size = 256MB
hot_standby = on
hot_standby_feedback = on
# A commit is acknowledged once the standby has applied it (decision server-0028); the
# standby list is set below, once there is a standby (until then every commit would wait).
synchronous_commit = remote_apply
cluster_name = 'node_a'
CONF
echo "a" > "$DEPLOY_DIR/primary"
pg_start_node a
as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_A_PORT" -U postgres "$DATABASE"
log "primary a on port $PG_A_PORT"

# Node b: a copy of a that streams from it (-R writes primary_conninfo and standby.signal).
"$(dirname "$0")/add-standby.sh" b
psql_node a "ALTER SYSTEM SET synchronous_standby_names = '$SYNC_NAMES'"
psql_node a "SELECT pg_reload_conf()" >/dev/null
log "standby b on port $PG_B_PORT (synchronous)"

write_haproxy
log "HAProxy: http://127.0.0.1:$HTTP_PORT, PostgreSQL writes :$PG_WRITE_PORT, reads :$PG_READ_PORT"

for port in $SERVER_PORTS; do start_server "$port"; done
for port in $SERVER_PORTS; do wait_http "http://127.0.0.1:$port/health" 60; done
wait_http "http://127.0.0.1:$HTTP_PORT/health" 10
log "nimbus servers on $SERVER_PORTS"

nohup "$(dirname "$0")/watchdog.sh" >>"$DEPLOY_DIR/watchdog.log" 2>&1 &
echo $! > "$DEPLOY_DIR/watchdog.pid"
log "ready: http://127.0.0.1:$HTTP_PORT (add users with: $NIMBUS_BIN users add NAME --data-dir $DEPLOY_DIR/admin --postgres $WRITE_URL)"
