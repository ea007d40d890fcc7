#!/usr/bin/env bash
# `affix pin` on a process whose threads never stop creating threads (short
# lived ones, and chains where each thread creates its successor and exits):
# after every pin, over 50 trials, no thread is left on the old list.
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
finish
