# Shared by tests/cli/pin_*.sh and show_*.sh (not a test itself: not *.sh).
# Helpers are started by the tests themselves and killed on exit; only they
# are ever moved.
. "$(dirname "$0")/check_lib.bash"
HELPERS="$AFFIX_BUILD_DIR"
tmp=$(mktemp -d)
chmod 755 "$tmp"
started=()
cleanup() {
  for p in "${started[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT


# start NAME HELPER ARGS...: runs a helper in the background, waits for its
# "ready" line, sets PID.
start() {
  local name=$1; shift
  "$HELPERS/$1" "${@:2}" > "$tmp/$name.out" &
  PID=$!
  started+=("$PID")
  local i=0
  until grep -q ready "$tmp/$name.out" 2>/dev/null; do
    sleep 0.05; i=$((i + 1))
    if [[ $i -gt 600 ]]; then echo "FAIL: $name never got ready"; exit 1; fi
  done
}
stop() { kill -KILL "$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# Each thread's CPU list, counted, by list: "1 1 1999 0-1".
thread_lists() {  # PID
  cat /proc/$1/task/*/status 2>/dev/null | awk '/^Cpus_allowed_list:/ {print $2}' | sort | uniq -c |
    awk '{print $1, $2}' | sort -k2 | tr '\n' ' ' | sed 's/ $//'
}
# "TID LIST" per thread, ascending TID.
tid_lists() {  # PID
  awk '/^Cpus_allowed_list:/ {split(FILENAME, f, "/"); print f[5], $2}' /proc/$1/task/*/status 2>/dev/null |
    sort -n
}

# run_affix ARGS...: sets OUT, ERR, RC.
run_affix() {
  "$AFFIX" "$@" > "$tmp/out" 2> "$tmp/err"
  RC=$?
  OUT=$(cat "$tmp/out")
  ERR=$(cat "$tmp/err")
}

finish() {
  [[ $fail -eq 0 ]] && echo "PASS" || echo "FAILED"
  exit $fail
}
