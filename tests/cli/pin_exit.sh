#!/usr/bin/env bash
# A process that exits while affix moves it: a clean result (exit 0, no
# error) that says so, and the other processes of the same pin are moved.
# The small helper exits the moment its main thread's list changes; affix
# moves it first and then a process of 4000 threads, so it is still at work
# when the small one is gone. A try in which the exit comes only after affix
# is done (a machine busy elsewhere) is retried.
. "$(dirname "$0")/pin_lib.bash"

start big threads_helper 4000
big=$PID
seen=0
for try in $(seq 1 10); do
  target=$((try % 2))
  start exiting$try threads_helper 3 exit-on-move
  run_affix pin $target $PID $big
  check "try $try: status" 0 "$RC"
  check "try $try: no error" "" "$ERR"
  check "try $try: the other process moved" "$big: 4000 threads on CPUs $target (4000 moved)" \
    "$(echo "$OUT" | sed -n 2p)"
  check "try $try: every thread of the other on $target" "4000 $target" "$(thread_lists $big)"
  stop $PID
  if [[ "$(echo "$OUT" | head -1)" == "$PID: exited during the move" ]]; then seen=1; break; fi
  check_match "try $try: otherwise moved (what was left of it)" "$PID: * on CPUs $target (* moved)" \
    "$(echo "$OUT" | head -1)"
done
check "affix saw the process exit during the move" 1 "$seen"

# An ID that never existed is an error (exit 1), before anything moves.
start other threads_helper 3
run_affix pin 1 4194304 $PID
check "no such process: status" 1 "$RC"
check "no such process: message" "affix: error: no such process: 4194304" "$ERR"
check "no such process: nothing moved" "3 0-1" "$(thread_lists $PID)"
run_affix pin --tid 1 4194304
check "no such thread" "1 affix: error: no such thread: 4194304" "$RC $ERR"
finish
