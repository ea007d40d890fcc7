#!/usr/bin/env bash
# /proc entries vanishing mid-read, for real: `affix show` on a process whose
# threads are created and exit all the time (their task/TID directories
# vanish between the listing and the reads), `show --pinned` while
# short-lived processes come and go, and a PID that is gone. Every run ends
# with a result or one error line, never a crash.
. "$(dirname "$0")/pin_lib.bash"

start churn churn_helper 2 4
bad=0
for trial in $(seq 1 40); do
  run_affix show $PID
  first=$(head -n1 <<<"$OUT")
  if [[ $RC -ne 0 || -n "$ERR" || "$first" != "$PID "* ]]; then
    echo "FAIL: show trial $trial: status $RC: $ERR: $first"; bad=$((bad + 1))
  fi
  run_affix show --json $PID
  if [[ $RC -ne 0 || -n "$ERR" || "$OUT" != '[{"pid": '"$PID"* ]]; then
    echo "FAIL: show --json trial $trial: status $RC: $ERR: ${OUT:0:80}"; bad=$((bad + 1))
  fi
done
check "show on a churning process: 80 reads, every one complete" 0 "$bad"

# Processes that exit while --pinned scans /proc.
( for _ in $(seq 1 400); do /bin/true; done ) &
spawner=$!
started+=("$spawner")
bad=0
for trial in $(seq 1 10); do
  run_affix show --pinned
  [[ $RC -eq 0 && -z "$ERR" ]] || { echo "FAIL: --pinned trial $trial: status $RC: $ERR"; bad=$((bad + 1)); }
done
wait "$spawner" 2>/dev/null
check "show --pinned while processes come and go" 0 "$bad"

# A process that is gone.
stop $PID
run_affix show $PID
check "a vanished process: exit 1" 1 "$RC"
check "a vanished process: one error line" "affix: error: no such process: $PID" "$ERR"
finish
