# Process supervision shared by ha-cluster.sh and deploy-local.sh (sourced, not run). Each
# process runs in its own session, its output in $dir/NAME.log and the pid of the program itself
# in $dir/NAME.pid. The sourcing script defines `dir` and `log`.

# start NAME USER COMMAND...: in the background; USER `postgres` runs it as that user when root.
start() {
  local name="$1" user="$2"
  shift 2
  local script="echo \$\$ > '$dir/$name.pid'; exec \"\$@\""
  if [[ "$user" == postgres && "$(id -u)" == 0 ]]; then
    setsid runuser -u postgres -- sh -c "$script" sh "$@" >"$dir/$name.log" 2>&1 </dev/null &
  else
    setsid sh -c "$script" sh "$@" >"$dir/$name.log" 2>&1 </dev/null &
  fi
  for _ in $(seq 1 50); do [[ -s "$dir/$name.pid" ]] && return 0; sleep 0.1; done
  log "$name did not start"
  return 1
}

# stop NAME [SECONDS]: SIGTERM, wait, then SIGKILL.
stop() {
  local name="$1" wait="${2:-20}" pid
  [[ -s "$dir/$name.pid" ]] || return 0
  pid="$(cat "$dir/$name.pid")"
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 $((wait * 10))); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  log "$name ($pid) still running after ${wait}s: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}
