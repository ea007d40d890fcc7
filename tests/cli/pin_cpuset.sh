#!/usr/bin/env bash
# The allowed set is the target's own cgroup cpuset, not affix's: a helper
# put in a cpuset of CPU 1 alone (cgroup v1 here) may be pinned to 1 but
# not to 0, though affix itself may run on both; `all` means its CPU 1;
# and running on all it may is not "pinned" for `show --pinned`.
# Then one thread of a process moved alone into that cpuset (cgroup v1
# moves single threads): the kernel keeps the part of a list inside it, and
# that is the thread's target (affix once took it for a list that keeps
# changing back, and failed); a list it has no CPU of is refused, and the
# other threads are put back.
. "$(dirname "$0")/pin_lib.bash"

cg=/sys/fs/cgroup/cpuset/affix-pin-test-$$
mkdir "$cg" || { echo "FAIL: cannot create $cg"; exit 1; }
remove_cpuset() { cleanup; rmdir "$cg"; }
trap remove_cpuset EXIT
echo 1 > "$cg/cpuset.cpus"
echo 0 > "$cg/cpuset.mems"

start caged threads_helper 3
echo $PID > "$cg/cgroup.procs"
check "helper in the cpuset" "3 1" "$(thread_lists $PID)"
check "affix itself may run on 0-1" "0-1" "$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)"

run_affix pin 0 $PID
check "pin 0: status" 2 "$RC"
check "pin 0: CPU 0 is not allowed by its own cpuset" \
  "affix: error: CPU 0 is not allowed (allowed: 1, from cgroup1:$cg/cpuset.effective_cpus)" "$ERR"
check "pin 0: nothing moved" "3 1" "$(thread_lists $PID)"

run_affix pin all $PID
check "pin all: status and output" "0 $PID: 3 threads on CPUs 1 (0 moved)" "$RC $OUT"

run_affix show --pinned
check "show --pinned: not pinned within its own cpuset" "" "$(echo "$OUT" | awk -v p=$PID '$1 == p')"

start split threads_helper 4
tids=($(ls /proc/$PID/task | sort -n))
echo ${tids[2]} > "$cg/tasks"  # one thread alone
check "split: one thread in the cpuset of CPU 1" "3 0-1 1 1" "$(thread_lists $PID)"
run_affix pin 0-1 $PID
check "split: pin 0-1 succeeds" "0 $PID: 4 threads on CPUs 0-1 (0 moved)" "$RC $OUT"
check "split: no message" "" "$ERR"
run_affix pin -v all $PID
check "split -v: the thread's list is what the kernel kept" "  thread ${tids[2]} (threads_helper): 1 -> 1" \
  "$(echo "$OUT" | grep "thread ${tids[2]} ")"
"$AFFIX" pin --tid 0 ${tids[1]} > /dev/null
run_affix pin 0-1 $PID
check "split: the others move, that thread keeps 1" "0 $PID: 4 threads on CPUs 0-1 (1 moved)" "$RC $OUT"
check "split: lists after" "3 0-1 1 1" "$(thread_lists $PID)"
run_affix pin 0 $PID
check "split: pin 0, which that thread cannot have: status" 1 "$RC"
check "split: pin 0: the message" \
"affix: error: cannot move thread ${tids[2]} (threads_helper) of process $PID: the kernel refused CPUs 0: Invalid argument; nothing was changed
affix: hint: the CPUs must be in the target's own cpuset" "$ERR"
check "split: pin 0: every thread put back" "3 0-1 1 1" "$(thread_lists $PID)"
stop $PID
finish
