#!/usr/bin/env bash
# `affix pin` on a process whose threads never stop creating threads (short
# lived ones, and chains where each thread creates its successor and exits):
# after every pin, over 50 trials, no thread is left on the old list. Then
# the same with 2500 more idle threads, so that pin's check passes read the
# threads' lists on several CPUs at once (from 2000 threads).
. "$(dirname "$0")/pin_lib.bash"

start churn churn_helper 3 6
bad=0
for trial in $(seq 1 50); do
  target=$((trial % 2))
  run_affix pin $target $PID
  if [[ $RC -ne 0 || -n "$ERR" ]]; then
    echo "FAIL: trial $trial: status $RC: $ERR"; fail=1; bad=$((bad + 1)); continue
  fi
  # Threads created from now on inherit the new list; none may be on another.
  lists=$(cat /proc/$PID/task/*/status 2>/dev/null | awk '/^Cpus_allowed_list:/ {print $2}' | sort -u | tr '\n' ' ')
  if [[ "$lists" != "$target " ]]; then
    echo "FAIL: trial $trial: pinned to $target, threads on: $lists"; fail=1; bad=$((bad + 1))
  fi
done
check "50 trials, every thread moved every time" 0 "$bad"
check "the helper still runs" 0 "$(kill -0 $PID; echo $?)"
stop $PID

# 2500 waiting threads and one that adds 400 more, one every 200 us, while
# pin runs: the check passes read the lists on several CPUs (from 2000
# threads) and must still find every newcomer. (A process this large that
# never stops creating and ending threads is refused: a pass takes
# milliseconds, and one during which no thread vanished never comes.)
bad=0
for trial in $(seq 1 10); do
  start grow$trial churn_helper 0 0 2500 400
  target=$((trial % 2))
  run_affix pin $target $PID
  if [[ $RC -ne 0 || -n "$ERR" ]]; then
    echo "FAIL: growing trial $trial: status $RC: $ERR"; fail=1; bad=$((bad + 1)); stop $PID; continue
  fi
  # Once the growth is over (2902 threads), every one is on the new list.
  for _ in $(seq 1 100); do (($(ls /proc/$PID/task | wc -l) >= 2902)) && break; sleep 0.05; done
  n=$(ls /proc/$PID/task | wc -l)
  lists=$(cat /proc/$PID/task/*/status 2>/dev/null | awk '/^Cpus_allowed_list:/ {print $2}' | sort -u | tr '\n' ' ')
  if [[ "$lists" != "$target " || $n -ne 2902 ]]; then
    echo "FAIL: growing trial $trial: pinned to $target, $n threads on: $lists"; fail=1; bad=$((bad + 1))
  fi
  stop $PID
done
check "10 trials with 2500 threads and 400 created during the move, every thread moved" 0 "$bad"
finish
