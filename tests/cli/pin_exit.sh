#!/usr/bin/env bash
# A process that exits while affix moves it: a clean result (exit 0, no
# error) that says so. The helper's main thread (the first affix moves)
# exits the whole process of 2000 threads the moment its list changes; a
# try in which the exit comes only after affix is done is retried.
. "$(dirname "$0")/pin_lib.bash"

seen=0
for try in $(seq 1 10); do
  start exiting$try threads_helper 2000 exit-on-move
  run_affix pin 1 $PID
  check "try $try: status" 0 "$RC"
  check "try $try: no error" "" "$ERR"
  stop $PID
  if [[ "$OUT" == "$PID: exited during the move" ]]; then seen=1; break; fi
  check_match "try $try: otherwise moved (what was left of it)" "$PID: * on CPUs 1 (* moved)" "$OUT"
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
