# Shared by tests/cli/watch_*.sh (not a test itself: not *.sh): run the
# hopper helper under `affix watch` and take the summary.
. "$(dirname "$0")/pin_lib.bash"

# wait_file FILE: until FILE is non-empty (60 s at most, then a failure).
wait_file() {
  local i=0
  until [[ -s $1 ]]; do
    sleep 0.05; i=$((i + 1))
    if [[ $i -gt 1200 ]]; then echo "FAIL: waiting for $1"; fail=1; return 1; fi
  done
}

# start_hopper CPU_A CPU_B MOVES [NAME]: sets HOP_PID HOP_TID STEADY_TID.
start_hopper() {
  rm -f "$tmp/hop.ready" "$tmp/hop.ready.done"
  "$HELPERS/hopper" "$1" "$2" "$3" "$tmp/hop.ready" ${4+"$4"} > /dev/null &
  started+=("$!")
  wait_file "$tmp/hop.ready"
  read -r _ HOP_PID HOP_TID STEADY_TID < "$tmp/hop.ready"
}


# watch_hops PREFIX... : runs PREFIX affix watch --json -i 0.2 HOP_PID in the
# background, starts the moves once the first interval is out (the events
# are open by then), stops the watch with SIGTERM once they are done. Sets
# RC, OUT (every line), ERR, SUMMARY (the summary object).
watch_hops() {
  rm -f "$tmp/watch.out"  # waited for below: not last run's
  "$@" "$AFFIX" watch --json -i 0.2 "$HOP_PID" > "$tmp/watch.out" 2> "$tmp/watch.err" &
  local watcher=$!
  wait_file "$tmp/watch.out"
  kill -USR1 "$HOP_PID"
  wait_file "$tmp/hop.ready.done"
  kill -TERM "$watcher"
  wait "$watcher"
  RC=$?
  OUT=$(cat "$tmp/watch.out")
  ERR=$(cat "$tmp/watch.err")
  SUMMARY=$(tail -n 1 "$tmp/watch.out" | jq -c .summary)
}

# thread_field TID FILTER: a jq filter on the summary's entry for thread TID.
thread_field() { jq -r ".processes[0].thread_list[] | select(.tid == $1) | $2" <<<"$SUMMARY"; }
