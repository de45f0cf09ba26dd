#!/usr/bin/env bash
# Tributary scaled out on this machine, from Debian packages, loopback only: the high-availability
# PostgreSQL of ha-cluster.sh (etcd + two Patroni nodes in synchronous mode + HAProxy + pgbouncer in
# transaction pooling), N API processes and M webhook workers, all on one database through
# pgbouncer. The same layout as scripts/ha/Procfile and scripts/ha/docker-compose.yml; see
# docs/scaling.md.
#
#   scripts/ha/deploy-local.sh up DIR [N=3] [M=2]   start it all; prints the API URLs
#   scripts/ha/deploy-local.sh down DIR             stop it all, remove DIR
#
# API ports: HA_API_PORT (default 18080), +1 per process. Needs root (the database runs as the
# `postgres` user), Node 20 and `npm ci` done in this checkout.
set -euo pipefail

cmd="${1:-}"
dir="${2:-}"
[[ -n "$cmd" && -n "$dir" ]] || {
  echo "usage: $0 up DIR [N] [M] | down DIR" >&2
  exit 2
}
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
log() { printf '[deploy] %s\n' "$*" >&2; }

# shellcheck source=processes.sh
source "$here/processes.sh"

case "$cmd" in
  up)
    apis="${3:-3}"
    workers="${4:-2}"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    cd "$repo" # the processes run from the checkout (src/main.ts, bin/tributary.js)
    "$here/ha-cluster.sh" up "$dir/db" >/dev/null
    # shellcheck disable=SC1091
    source "$dir/db/env"
    # pgbouncer in transaction mode ignores the startup parameters that carry Tributary's
    # per-connection timeouts, so they are set on the role (server-side defaults). Migrations run
    # through pgbouncer like everything else (a transaction-level advisory lock, src/db/migrate.ts).
    psql -q "$DATABASE_URL" -c "CREATE DATABASE tributary" 2>/dev/null || true
    psql -q "$DATABASE_URL" -c "ALTER ROLE postgres SET statement_timeout = '5s'" \
      -c "ALTER ROLE postgres SET idle_in_transaction_session_timeout = '10s'"
    url="${PGBOUNCER_URL%/postgres}/tributary"
    secret="${TRIBUTARY_SECRET:-$(openssl rand -hex 32)}"
    echo "$secret" >"$dir/secret"
    chmod 600 "$dir/secret"
    base="${HA_API_PORT:-18080}"
    for i in $(seq 1 "$apis"); do
      port=$((base + i - 1))
      start "api$i" "$(id -un)" env DATABASE_URL="$url" DB_PREPARED_STATEMENTS=off TRIBUTARY_SECRET="$secret" HOST=127.0.0.1 PORT="$port" \
        node --import tsx src/main.ts
      log "api$i: http://127.0.0.1:$port"
    done
    for i in $(seq 1 "$workers"); do
      start "worker$i" "$(id -un)" env DATABASE_URL="$url" DB_PREPARED_STATEMENTS=off TRIBUTARY_SECRET="$secret" node bin/tributary.js worker
      log "worker$i started"
    done
    for i in $(seq 1 "$apis"); do
      port=$((base + i - 1))
      for _ in $(seq 1 600); do curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/readyz" && break; sleep 0.1; done
      curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/readyz" || {
        log "api$i is not ready; see $dir/api$i.log"
        exit 1
      }
    done
    log "ready: $apis API processes, $workers workers; DATABASE_URL=$url (pgbouncer → HAProxy → primary)"
    ;;
  down)
    [[ -d "$dir" ]] || exit 0
    for f in "$dir"/api*.pid "$dir"/worker*.pid; do [[ -e "$f" ]] && stop "$(basename "$f" .pid)"; done
    "$here/ha-cluster.sh" down "$dir/db"
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 up DIR [N] [M] | down DIR" >&2
    exit 2
    ;;
esac
