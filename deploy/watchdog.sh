#!/usr/bin/env bash
# Keeps synchronous replication from stopping writes (decision server-0029): when the
# primary has had no synchronous standby for SYNC_GRACE_SECONDS, commits stop waiting for one
# (synchronous_standby_names = ''); once a standby streams again, they wait again.
# Started by deploy/start.sh; logs to $DEPLOY_DIR/watchdog.log.
source "$(dirname "$0")/lib.sh"
missing_since=""
while true; do
  sleep 1
  primary=$(current_primary) || continue
  state=$(psql_node "$primary" "SELECT current_setting('synchronous_standby_names') <> '',
      (SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'),
      (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum'))" 2>/dev/null) || continue
  IFS='|' read -r waiting streaming sync <<<"$state"
  if [ "$waiting" = t ]; then
    if [ "$sync" -gt 0 ]; then missing_since=""; continue; fi
    now=$(date +%s)
    missing_since=${missing_since:-$now}
    if [ $((now - missing_since)) -ge "$SYNC_GRACE_SECONDS" ]; then
      psql_node "$primary" "ALTER SYSTEM SET synchronous_standby_names = ''" && psql_node "$primary" "SELECT pg_reload_conf()" >/dev/null
      log "primary $primary: no synchronous standby for ${SYNC_GRACE_SECONDS}s; commits no longer wait for one (acknowledged writes are on one node until a standby is back)"
      missing_since=""
    fi
  elif [ "$streaming" -gt 0 ]; then
    psql_node "$primary" "ALTER SYSTEM SET synchronous_standby_names = '$SYNC_NAMES'" && psql_node "$primary" "SELECT pg_reload_conf()" >/dev/null
    log "primary $primary: a standby streams again; commits wait for it again"
  fi
done
