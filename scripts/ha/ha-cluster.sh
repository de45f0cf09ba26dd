#!/usr/bin/env bash
# A PostgreSQL high-availability cluster on this machine, from Debian packages, loopback only:
# one etcd member, two Patroni-managed PostgreSQL nodes in synchronous mode (a commit is
# acknowledged only once the standby has flushed it), HAProxy sending connections to whichever
# node is the primary (Patroni's REST `/primary` health check), and pgbouncer in transaction
# pooling mode in front of HAProxy. See docs/scaling.md ("High availability").
#
#   scripts/ha/ha-cluster.sh up DIR       start everything in DIR (created), wait for a leader and
#                                         a sync standby, write DIR/env (DATABASE_URL=… lines)
#   scripts/ha/ha-cluster.sh status DIR   the Patroni view (patronictl list)
#   scripts/ha/ha-cluster.sh down DIR     stop everything started in DIR and remove DIR
#
# Backups (docs/backups.md): when pgBackRest is installed (HA_PGBACKREST=0 turns it off), both nodes
# archive their WAL with `pgbackrest archive-push` to one repository, DIR/pgbackrest/repo, stanza
# `tributary` (DIR/pgbackrest.conf lists both nodes; pgBackRest finds the primary itself), and `up`
# creates the stanza; HA_PGBACKREST_FULL=1 also takes a first full backup. A new replica is built
# from the repository when it can (create_replica_methods: pgbackrest, then basebackup).
#
# Ports (all 127.0.0.1) come from the environment, defaults in parentheses: HA_ETCD_PORT (23790),
# HA_ETCD_PEER_PORT (23800), HA_PG1_PORT (25433), HA_PG2_PORT (25434), HA_REST1_PORT (28008),
# HA_REST2_PORT (28009), HA_HAPROXY_PORT (25440), HA_PGBOUNCER_PORT (26432). HA_PGBOUNCER=0 skips
# pgbouncer. Needs root (the clusters run as the `postgres` user) and
# `apt-get install -y patroni etcd-server etcd-client haproxy pgbouncer`.
#
# One etcd member is a demonstration, not a deployment: production runs three (or five) etcd
# members on separate machines, and each Patroni node on its own machine.
set -euo pipefail

cmd="${1:-}"
dir="${2:-}"
[[ -n "$cmd" && -n "$dir" ]] || {
  echo "usage: $0 up|status|down DIR" >&2
  exit 2
}

ETCD_PORT="${HA_ETCD_PORT:-23790}"
ETCD_PEER_PORT="${HA_ETCD_PEER_PORT:-23800}"
PG1_PORT="${HA_PG1_PORT:-25433}"
PG2_PORT="${HA_PG2_PORT:-25434}"
REST1_PORT="${HA_REST1_PORT:-28008}"
REST2_PORT="${HA_REST2_PORT:-28009}"
HAPROXY_PORT="${HA_HAPROXY_PORT:-25440}"
PGBOUNCER_PORT="${HA_PGBOUNCER_PORT:-26432}"
WITH_PGBOUNCER="${HA_PGBOUNCER:-1}"
WAIT_SECONDS="${HA_WAIT_SECONDS:-90}"
WITH_PGBACKREST="${HA_PGBACKREST:-1}"
command -v pgbackrest >/dev/null 2>&1 || WITH_PGBACKREST=0
PG_BIN="${PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}"

log() { printf '[ha] %s\n' "$*" >&2; }

as_postgres() {
  if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# shellcheck source=processes.sh
source "$(dirname "$0")/processes.sh"

http_ok() { curl -sf -o /dev/null --max-time 1 "$1"; }

patroni_config() {
  local name="$1" pg_port="$2" rest_port="$3"
  cat <<EOF
scope: tributary
name: $name
log:
  level: WARNING
restapi:
  listen: 127.0.0.1:$rest_port
  connect_address: 127.0.0.1:$rest_port
etcd3:
  hosts: 127.0.0.1:$ETCD_PORT
bootstrap:
  dcs:
    # Failure detection: the leader key lives ttl seconds; every loop_wait seconds each node runs
    # its HA loop. loop_wait + 2 * retry_timeout <= ttl.
    ttl: 20
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 1048576
    # A crashed primary is failed over at once instead of restarted in place (the scenario of
    # test/reliability/failover.test.ts: kill -9 of the postmaster).
    primary_start_timeout: 0
    # Commits wait for the synchronous standby; Patroni promotes only that standby, so an
    # acknowledged commit survives the loss of the primary.
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        max_connections: 200
        shared_buffers: 64MB
        wal_level: replica
        hot_standby: 'on'
        wal_log_hints: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
        synchronous_commit: 'on'
$(pgbackrest_parameters)
  initdb:
    - encoding: UTF8
    - locale: C
postgresql:
  listen: 127.0.0.1:$pg_port
  connect_address: 127.0.0.1:$pg_port
  data_dir: $dir/$name/data
  bin_dir: $PG_BIN
  pgpass: $dir/$name/pgpass
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
  authentication:
    superuser:
      username: postgres
      password: postgres
    replication:
      username: replicator
      password: replicator
    rewind:
      username: postgres
      password: postgres
  parameters:
    unix_socket_directories: '$dir/$name'
$(pgbackrest_replica_methods)
EOF
}

# Continuous archiving (bootstrap parameters, so they are the cluster's, in the DCS).
pgbackrest_parameters() {
  [[ "$WITH_PGBACKREST" == 1 ]] || return 0
  cat <<EOF
        archive_mode: 'on'
        archive_command: 'pgbackrest --config=$dir/pgbackrest.conf --stanza=tributary archive-push %p'
        archive_timeout: 60
EOF
}

# A replica restores from the repository, then streams the rest; basebackup when that fails.
pgbackrest_replica_methods() {
  [[ "$WITH_PGBACKREST" == 1 ]] || return 0
  cat <<EOF
  create_replica_methods:
    - pgbackrest
    - basebackup
  pgbackrest:
    command: pgbackrest --config=$dir/pgbackrest.conf --stanza=tributary --delta restore --type=standby
    keep_data: true
    no_params: true
  basebackup:
    checkpoint: fast
EOF
}

pgbackrest_config() {
  cat <<EOF
[global]
repo1-path=$dir/pgbackrest/repo
repo1-retention-full=2
log-path=$dir/pgbackrest/log
lock-path=$dir/pgbackrest/lock
spool-path=$dir/pgbackrest/spool
log-level-console=warn
start-fast=y

[tributary]
pg1-path=$dir/node1/data
pg1-port=$PG1_PORT
pg1-socket-path=$dir/node1
pg1-user=postgres
pg2-path=$dir/node2/data
pg2-port=$PG2_PORT
pg2-socket-path=$dir/node2
pg2-user=postgres
EOF
}

up() {
  command -v patroni >/dev/null && command -v etcd >/dev/null && command -v haproxy >/dev/null || {
    log "patroni, etcd and haproxy are needed: apt-get install -y patroni etcd-server etcd-client haproxy pgbouncer"
    exit 3
  }
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
  if [[ "$(id -u)" == 0 ]]; then chown postgres:postgres "$dir"; fi

  log "etcd on 127.0.0.1:$ETCD_PORT"
  start etcd "$(id -un)" etcd --name ha --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "ha=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new \
    --listen-metrics-urls "" --log-level warn
  for _ in $(seq 1 100); do http_ok "http://127.0.0.1:$ETCD_PORT/health" && break; sleep 0.1; done
  http_ok "http://127.0.0.1:$ETCD_PORT/health" || {
    log "etcd is not healthy"
    exit 1
  }

  if [[ "$WITH_PGBACKREST" == 1 ]]; then
    log "pgbackrest: WAL archive and backups in $dir/pgbackrest (stanza tributary)"
    as_postgres mkdir -p "$dir/pgbackrest/repo" "$dir/pgbackrest/log" "$dir/pgbackrest/lock" "$dir/pgbackrest/spool"
    pgbackrest_config >"$dir/pgbackrest.conf"
    chmod 644 "$dir/pgbackrest.conf"
  fi

  local node pg rest
  for node in node1 node2; do
    if [[ $node == node1 ]]; then pg=$PG1_PORT rest=$REST1_PORT; else pg=$PG2_PORT rest=$REST2_PORT; fi
    as_postgres mkdir -p "$dir/$node"
    patroni_config "$node" "$pg" "$rest" >"$dir/$node.yml"
    chmod 644 "$dir/$node.yml"
    log "patroni $node: PostgreSQL on 127.0.0.1:$pg, REST on 127.0.0.1:$rest"
    start "$node" postgres patroni "$dir/$node.yml"
  done

  log "haproxy on 127.0.0.1:$HAPROXY_PORT (to the node whose /primary answers 200)"
  cat >"$dir/haproxy.cfg" <<EOF
global
  maxconn 2000
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen primary
  bind 127.0.0.1:$HAPROXY_PORT
  option httpchk OPTIONS /primary
  http-check expect status 200
  # Checked every 500 ms, down after 2 failures; connections to a node marked down are cut so
  # that clients reconnect to the new primary instead of waiting on the old one.
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
  server node1 127.0.0.1:$PG1_PORT maxconn 500 check port $REST1_PORT
  server node2 127.0.0.1:$PG2_PORT maxconn 500 check port $REST2_PORT
EOF
  start haproxy "$(id -un)" haproxy -W -db -f "$dir/haproxy.cfg"

  if [[ "$WITH_PGBOUNCER" == 1 ]]; then
    log "pgbouncer (transaction pooling) on 127.0.0.1:$PGBOUNCER_PORT, to haproxy"
    as_postgres sh -c "printf '\"postgres\" \"\"\n' > '$dir/userlist.txt'"
    cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=$HAPROXY_PORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGBOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
; node-postgres sends the per-connection timeouts as startup parameters; in transaction pooling
; they cannot follow a client, so pgbouncer ignores them and the server-side defaults apply
; (set them on the role: ALTER ROLE … SET statement_timeout = '5s'). See docs/scaling.md.
ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout
server_reset_query =
server_check_delay = 0
server_connect_timeout = 2
; After a failed server connection pgbouncer waits this long before trying again (default 15 s):
; during a failover that is how long clients keep getting errors after the new primary is up.
server_login_retry = 1
query_wait_timeout = 5
logfile = $dir/pgbouncer-own.log
EOF
    chmod 644 "$dir/pgbouncer.ini"
    start pgbouncer postgres pgbouncer "$dir/pgbouncer.ini"
  fi

  log "waiting for a leader and a synchronous standby (at most ${WAIT_SECONDS}s)"
  local deadline=$((SECONDS + WAIT_SECONDS)) leader="" sync=""
  while ((SECONDS < deadline)); do
    leader="" sync=""
    for rest in "$REST1_PORT" "$REST2_PORT"; do
      http_ok "http://127.0.0.1:$rest/primary" && leader=$rest
      http_ok "http://127.0.0.1:$rest/sync" && sync=$rest
    done
    [[ -n "$leader" && -n "$sync" ]] && break
    sleep 0.5
  done
  if [[ -z "$leader" || -z "$sync" ]]; then
    log "no leader + sync standby after ${WAIT_SECONDS}s (leader: ${leader:-none}, sync: ${sync:-none}); logs in $dir"
    tail -n 20 "$dir"/node*.log >&2 || true
    exit 1
  fi
  for _ in $(seq 1 50); do
    as_postgres "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$HAPROXY_PORT" && break
    sleep 0.1
  done
  if [[ "$WITH_PGBACKREST" == 1 ]]; then
    # The stanza must exist before archive-push succeeds; until then PostgreSQL keeps the WAL and
    # retries. A failure here is reported, not fatal: the cluster serves without backups.
    as_postgres pgbackrest --config="$dir/pgbackrest.conf" --stanza=tributary stanza-create ||
      log "pgbackrest stanza-create failed: WAL is not archived (see $dir/pgbackrest/log)"
    if [[ "${HA_PGBACKREST_FULL:-0}" == 1 ]]; then
      as_postgres pgbackrest --config="$dir/pgbackrest.conf" --stanza=tributary --type=full backup ||
        log "pgbackrest full backup failed (see $dir/pgbackrest/log)"
    fi
  fi
  {
    echo "DATABASE_URL=postgres://postgres@127.0.0.1:$HAPROXY_PORT/postgres"
    echo "PGBOUNCER_URL=postgres://postgres@127.0.0.1:$PGBOUNCER_PORT/postgres"
    echo "NODE1_URL=postgres://postgres@127.0.0.1:$PG1_PORT/postgres"
    echo "NODE2_URL=postgres://postgres@127.0.0.1:$PG2_PORT/postgres"
    echo "NODE1_REST=http://127.0.0.1:$REST1_PORT"
    echo "NODE2_REST=http://127.0.0.1:$REST2_PORT"
    echo "LEADER_REST=http://127.0.0.1:$leader"
  } >"$dir/env"
  log "ready: leader REST :$leader, sync standby REST :$sync; $dir/env"
  cat "$dir/env"
}

case "$cmd" in
  up) up ;;
  status) patronictl -c "$dir/node1.yml" list ;;
  down)
    [[ -d "$dir" ]] || exit 0
    stop pgbouncer 5
    stop haproxy 5
    stop node1 30 &
    stop node2 30 &
    wait
    # Patroni stops PostgreSQL on SIGTERM; a postmaster left behind (Patroni killed) goes too.
    for node in node1 node2; do
      if [[ -s "$dir/$node/data/postmaster.pid" ]]; then
        kill -KILL "$(head -1 "$dir/$node/data/postmaster.pid")" 2>/dev/null || true
      fi
    done
    stop etcd 5
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 up|status|down DIR" >&2
    exit 2
    ;;
esac
