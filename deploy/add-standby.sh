#!/usr/bin/env bash
# Makes node NODE (a or b) a fresh streaming standby of the current primary: its old data,
# if any, is moved aside, then pg_basebackup -R copies the primary.
#   deploy/add-standby.sh b
# After a failover, this is how the old primary comes back, as the new primary's standby.
source "$(dirname "$0")/lib.sh"
node=$1
primary=$(current_primary)
[ "$node" != "$primary" ] || { log "$node is the primary"; exit 1; }
dir=$(node_dir "$node")
if node_running "$node"; then as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null; fi
mkdir -p "$dir"; [ "$(id -u)" != 0 ] || chown postgres:postgres "$dir"
if [ -d "$dir/data" ]; then mv "$dir/data" "$dir/data.old.$(date +%s)"; fi
as_pg "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$(node_port "$primary")" -U postgres -D "$dir/data" -X stream -R -c fast \
  -d "application_name=node_$node"
# The copy carries the primary's settings; these are the standby's own.
cat >> "$dir/data/postgresql.auto.conf" <<CONF
cluster_name = 'node_$node'
primary_conninfo = 'host=127.0.0.1 port=$(node_port "$primary") user=postgres application_name=node_$node'
CONF
pg_start_node "$node"
