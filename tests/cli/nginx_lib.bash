# Shared by the tests/cli scripts that run a real nginx (not a test itself:
# not *.sh). nginx is a test dependency (scripts/setup installs it): where it
# is missing, sourcing this fails the test.
#
#   nginx_start WORKERS [EXTRA]  a private nginx, master and WORKERS workers:
#                 its own directory (NGINX_DIR: config, pid file, error log,
#                 temp paths), a server on 127.0.0.1:NGINX_PORT (a free port),
#                 daemon on, master_process on; EXTRA (lines, such as what
#                 `affix explain --as nginx` prints) goes in the main context,
#                 and `worker_processes WORKERS;` unless EXTRA sets it (to
#                 WORKERS: anything else fails). Where START_CGROUP names a
#                 cgroup directory (pin_lib's own_cpuset), nginx starts in it.
#                 Returns once the pid file and the WORKERS workers are there;
#                 sets NGINX_MASTER, NGINX_DIR, NGINX_PORT, NGINX_WORKERS.
#   nginx_workers  the master's workers, ascending PIDs, one a line.
#   nginx_worker_cpus  "PID LIST" a line: each worker's Cpus_allowed_list.
#   nginx_reload [WORKERS [EXTRA]]  `nginx -s reload` (with arguments, the
#                 config is written anew first, as nginx_start writes it),
#                 then waits until every old worker is gone and WORKERS new
#                 ones are there.
#   nginx_wait_workers [OLD...]  until none of the OLD PIDs is a worker and
#                 NGINX_WORKERS workers are there (after killing a worker,
#                 for the one nginx starts in its place).
#   nginx_stop    `nginx -s stop`, waits for the master to exit (kills it and
#                 its workers where it does not), removes NGINX_DIR. Also run
#                 at the script's exit, before the trap the script had when
#                 nginx_start ran (pin_lib's cleanup, own_cpuset's rmdir);
#                 a trap set after nginx_start replaces it, so call
#                 own_cpuset first.
#
# A worker is listed once it has its title ("nginx: worker process"), which
# nginx sets after it applied worker_cpu_affinity (ngx_worker_process_cycle
# in src/os/unix/ngx_process_cycle.c): its CPU list is final by then. Workers
# shutting down after a reload ("nginx: worker process is shutting down")
# are still listed until they exit. Every wait gives up after 10 s with a
# FAIL line, the error log, and exit 1.
declare -F check > /dev/null || . "$(dirname "${BASH_SOURCE[0]}")/check_lib.bash"

NGINX_BIN=$(PATH=$PATH:/usr/sbin:/sbin command -v nginx || true)
if [[ -z $NGINX_BIN ]]; then
  echo "FAIL: nginx not installed (bash scripts/setup installs it)"
  exit 1
fi
NGINX_MASTER= NGINX_DIR= NGINX_PORT= NGINX_WORKERS=
_nginx_master_start=  # the master's start time (/proc/PID/stat field 22): its identity

_nginx_fail() {  # MESSAGE: FAIL, the error log, exit 1 (the exit trap stops nginx)
  echo "FAIL: $1"
  if [[ -s $NGINX_DIR/error.log ]]; then
    echo "  nginx's error log:"
    sed 's/^/    /' "$NGINX_DIR/error.log" | tail -n 20
  fi
  exit 1
}

_nginx_cmd() {  # ARGS...: nginx on the private config
  "$NGINX_BIN" -p "$NGINX_DIR/" -c "$NGINX_DIR/nginx.conf" -e "$NGINX_DIR/error.log" "$@"
}

# The fields of /proc/PID/stat after the command's name: state is $1, the
# parent $2, the start time $20.
_nginx_stat() {  # PID
  local stat
  stat=$(cat "/proc/$1/stat" 2> /dev/null) || return 1
  echo "${stat##*) }"
}

# Whether NGINX_MASTER is still the master nginx_start started (not a
# zombie, not another process that got its PID).
_nginx_master_alive() {
  [[ -n $NGINX_MASTER ]] || return 1
  local fields
  fields=$(_nginx_stat "$NGINX_MASTER") || return 1
  set -- $fields
  [[ $1 != Z && ${20} == "$_nginx_master_start" ]]
}

nginx_workers() {
  _nginx_master_alive || return 0
  local pid title
  for pid in $(ps -o pid= --ppid "$NGINX_MASTER"); do
    title=
    read -r -d '' title 2> /dev/null < "/proc/$pid/cmdline"
    [[ $title == "nginx: worker process"* ]] && echo "$pid"
  done | sort -n
}

nginx_worker_cpus() {
  local pid list
  for pid in $(nginx_workers); do
    list=$(awk '/^Cpus_allowed_list:/ {print $2}' "/proc/$pid/status" 2> /dev/null)
    echo "$pid $list"
  done
}

# A port nothing listens on now (nginx_start tries another where nginx then
# finds it taken: the tests run in parallel).
_nginx_free_port() {
  local used=" " port _ local_addr state
  while read -r _ local_addr _ state _; do
    [[ $state == 0A ]] && used+="$((16#${local_addr##*:})) "
  done < <(cat /proc/net/tcp /proc/net/tcp6 2> /dev/null | grep -v local_address)
  while :; do
    port=$((20000 + RANDOM % 40000))
    [[ $used == *" $port "* ]] || break
  done
  echo "$port"
}

_nginx_write_conf() {  # WORKERS EXTRA
  local workers=$1 extra=$2 d=$NGINX_DIR set
  if set=$(grep -oE '(^|[;[:space:]])worker_processes[[:space:]]+[^;]*' <<< "$extra"); then
    set=${set##* }
    [[ $set == "$workers" ]] ||
      _nginx_fail "nginx_start $workers: the extra lines set worker_processes $set"
    workers=
  fi
  {
    [[ -n $workers ]] && echo "worker_processes $workers;"
    [[ -n $extra ]] && echo "$extra"
    cat << EOF
daemon on;
master_process on;
pid $d/nginx.pid;
error_log $d/error.log notice;
events {}
http {
  access_log off;
  client_body_temp_path $d/client_body;
  proxy_temp_path $d/proxy;
  fastcgi_temp_path $d/fastcgi;
  uwsgi_temp_path $d/uwsgi;
  scgi_temp_path $d/scgi;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / { return 204; }
  }
}
EOF
  } > "$d/nginx.conf"
}

nginx_wait_workers() {
  local i now p before=$* old=" $* "
  for ((i = 0; i < 200; i++)); do
    _nginx_master_alive || _nginx_fail "nginx's master $NGINX_MASTER exited"
    now=$(nginx_workers)
    local count=0 stale=0
    for p in $now; do
      count=$((count + 1))
      [[ $old == *" $p "* ]] && stale=1
    done
    [[ $stale -eq 0 && $count -eq $NGINX_WORKERS ]] && return 0
    sleep 0.05
  done
  _nginx_fail "waited 10 s for $NGINX_WORKERS new nginx workers; workers now: $(echo $now)${before:+ (before: $before)}"
}

_nginx_exit() { nginx_stop 2> /dev/null; }

# Stop nginx at exit, then run the trap there was.
_nginx_trap() {
  local current
  current=$(trap -p EXIT)
  [[ $current == *_nginx_exit* ]] && return
  if [[ -n $current ]]; then
    eval "set -- $current"
    trap "_nginx_exit; $3" EXIT
  else
    trap _nginx_exit EXIT
  fi
}

nginx_start() {  # WORKERS [EXTRA]
  local workers=$1 extra=${2:-} try rc i
  [[ -z $NGINX_MASTER ]] || _nginx_fail "nginx_start: nginx $NGINX_MASTER is running already"
  NGINX_DIR=$(mktemp -d /tmp/affix-nginx-XXXXXX) || _nginx_fail "nginx_start: mktemp"
  chmod 755 "$NGINX_DIR"  # the workers (nobody under root) enter it
  NGINX_WORKERS=$workers
  _nginx_trap
  for ((try = 0; try < 10; try++)); do
    NGINX_PORT=$(_nginx_free_port)
    _nginx_write_conf "$workers" "$extra"
    : > "$NGINX_DIR/error.log"
    # With daemon on, nginx returns once it has bound the port and forked
    # the master (which then writes the pid file).
    if [[ -n ${START_CGROUP:-} ]]; then
      sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$START_CGROUP" \
        "$NGINX_BIN" -p "$NGINX_DIR/" -c "$NGINX_DIR/nginx.conf" -e "$NGINX_DIR/error.log" \
        > "$NGINX_DIR/start.out" 2>&1
    else
      _nginx_cmd > "$NGINX_DIR/start.out" 2>&1
    fi
    rc=$?
    [[ $rc -eq 0 ]] && break
    grep -q "Address already in use" "$NGINX_DIR/error.log" "$NGINX_DIR/start.out" ||
      _nginx_fail "nginx did not start (exit $rc): $(cat "$NGINX_DIR/start.out")"
  done
  [[ $rc -eq 0 ]] || _nginx_fail "nginx found no free port in 10 tries"
  for ((i = 0; i < 200; i++)); do
    [[ -s $NGINX_DIR/nginx.pid ]] && break
    sleep 0.05
  done
  [[ -s $NGINX_DIR/nginx.pid ]] || _nginx_fail "waited 10 s for nginx's pid file"
  NGINX_MASTER=$(< "$NGINX_DIR/nginx.pid")
  local fields
  fields=$(_nginx_stat "$NGINX_MASTER") || _nginx_fail "nginx's master $NGINX_MASTER exited"
  set -- $fields
  _nginx_master_start=${20}
  nginx_wait_workers
}

nginx_reload() {  # [WORKERS [EXTRA]]
  _nginx_master_alive || _nginx_fail "nginx_reload: no nginx running"
  local old out
  if [[ $# -gt 0 ]]; then
    NGINX_WORKERS=$1
    _nginx_write_conf "$1" "${2:-}"
  fi
  old=$(nginx_workers)
  out=$(_nginx_cmd -s reload 2>&1) || _nginx_fail "nginx -s reload: $out"
  nginx_wait_workers $old
}

nginx_stop() {
  if [[ -n $NGINX_MASTER ]]; then
    local i p
    if _nginx_master_alive; then
      _nginx_cmd -s stop > /dev/null 2>&1
      for ((i = 0; i < 200; i++)); do
        _nginx_master_alive || break
        sleep 0.05
      done
    fi
    if _nginx_master_alive; then  # stopped, so that it respawns none
      kill -STOP "$NGINX_MASTER"
      for p in $(ps -o pid= --ppid "$NGINX_MASTER"); do kill -KILL "$p" 2> /dev/null; done
      kill -KILL "$NGINX_MASTER" 2> /dev/null
      echo "FAIL: nginx's master $NGINX_MASTER did not exit in 10 s after nginx -s stop (killed)"
      fail=1
    fi
  fi
  [[ -n $NGINX_DIR ]] && rm -rf "$NGINX_DIR"
  NGINX_MASTER= NGINX_DIR= NGINX_PORT= _nginx_master_start=
}
