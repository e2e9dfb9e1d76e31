#!/usr/bin/env bash
# Promotes the standby to primary (decision server-0028):
#   1. fences the old primary (stops it if it still runs, so there are never two),
#   2. pg_ctl promote on the standby,
#   3. lets its commits proceed without a standby (there is none yet),
#   4. points HAProxy's PostgreSQL frontends at it; the servers' pooled connections through
#      HAProxy break and reconnect to the new primary.
# Bring the old primary back as the new standby with: deploy/add-standby.sh <old primary>.
source "$(dirname "$0")/lib.sh"
old=$(current_primary)
new=$(other_node "$old")
if node_running "$old"; then
  log "fencing the old primary $old"
  as_pg "$PG_BIN/pg_ctl" -D "$(node_dir "$old")/data" -m immediate -w stop >/dev/null || true
fi
log "promoting $new"
as_pg "$PG_BIN/pg_ctl" -D "$(node_dir "$new")/data" -w -t 60 promote >/dev/null
psql_node "$new" "ALTER SYSTEM SET synchronous_standby_names = ''"
psql_node "$new" "SELECT pg_reload_conf()" >/dev/null
echo "$new" > "$DEPLOY_DIR/primary"
write_haproxy
log "primary is now $new (port $(node_port "$new")); HAProxy :$PG_WRITE_PORT points at it"
