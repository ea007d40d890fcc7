#!/usr/bin/env bash
# `pin --dry-run` says what the real run would do, and refuses what it
# would refuse, with its message and status (affix(1), GUARANTEES): one
# thread of a process moved alone into a cpuset of CPU 1 (cgroup v1 moves
# single threads) would keep CPU 1 of a new list 0-1, and would be refused
# CPU 0; a kernel thread with PF_NO_SETAFFINITY would be refused any move
# (read only: a dry run changes nothing, so it may name a kernel thread).
. "$(dirname "$0")/pin_lib.bash"

cg=/sys/fs/cgroup/cpuset/affix-pin-dry-$$
mkdir "$cg" || { echo "FAIL: cannot create $cg"; exit 1; }
remove_cpuset() { cleanup; rmdir "$cg"; }
trap remove_cpuset EXIT
echo 1 > "$cg/cpuset.cpus"
echo 0 > "$cg/cpuset.mems"

start split threads_helper 4
tids=($(ls /proc/$PID/task | sort -n))
echo ${tids[2]} > "$cg/tasks"
check "one thread in the cpuset of CPU 1" "3 0-1 1 1" "$(thread_lists $PID)"

run_affix pin --dry-run 0-1 $PID
check "dry run 0-1: status and count" "0 $PID: 4 threads on CPUs 0-1 (0 would move)" "$RC $(echo "$OUT" | head -1)"
check "dry run 0-1: that thread would keep 1" "  thread ${tids[2]} (threads_helper): 1 -> 1" \
  "$(echo "$OUT" | grep "thread ${tids[2]} ")"
run_affix pin --dry-run 1 $PID
check "dry run 1: the others would move" "0 $PID: 4 threads on CPUs 1 (3 would move)" "$RC $(echo "$OUT" | head -1)"

# CPU 0, which that thread cannot have: the real run fails, and so does the
# dry run, in the same words, and nothing moves in either.
refusal="affix: error: cannot move thread ${tids[2]} (threads_helper) of process $PID: the kernel refused CPUs 0: Invalid argument; nothing was changed
affix: hint: the CPUs must be in the target's own cpuset"
run_affix pin --dry-run 0 $PID
check "dry run 0: the real run's status and message" "1 $refusal" "$RC $ERR"
check "dry run 0: nothing on stdout" "" "$OUT"
check "dry run 0: nothing moved" "3 0-1 1 1" "$(thread_lists $PID)"
run_affix pin 0 $PID
check "the real run 0: the same" "1 $refusal" "$RC $ERR"
check "the real run 0: every thread put back" "3 0-1 1 1" "$(thread_lists $PID)"
stop $PID

# A per-CPU kernel thread (PF_NO_SETAFFINITY) on one CPU, asked for the other.
kthread=
for d in /proc/[0-9]*; do
  [[ $(cat $d/comm 2>/dev/null) == ksoftirqd/* ]] || continue
  flags=$(sed 's/.*) //' $d/stat 2>/dev/null | awk '{print $7}')
  [[ -n $flags ]] && (( flags & 0x04000000 )) || continue
  kthread=${d#/proc/}; break
done
if [[ -z $kthread ]]; then
  echo "FAIL: no ksoftirqd thread with PF_NO_SETAFFINITY"; fail=1
else
  name=$(cat /proc/$kthread/comm)
  list=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/$kthread/status)
  other=$([[ $list == 0 ]] && echo 1 || echo 0)
  run_affix pin --dry-run $other $kthread
  check "kernel thread $kthread ($name): the real run's refusal" \
    "1 affix: error: cannot move thread $kthread ($name) of process $kthread: it is a kernel thread that cannot be moved (PF_NO_SETAFFINITY); nothing was changed" \
    "$RC $ERR"
  check "kernel thread: nothing on stdout" "" "$OUT"
  check "kernel thread: its list unchanged" "$list" "$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/$kthread/status)"
fi
finish
