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
evil=$'x\e[31mRED\e]0;owned\a'  # a cpuset name whoever owns a delegated cgroup may choose
remove_cpuset() { cleanup; rmdir "$cg/$evil" 2>/dev/null; rmdir "$cg"; }
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

# A containerised target: its cpuset bind-mounted as its own
# /sys/fs/cgroup/cpuset in a private mount namespace, as Docker does on
# cgroup v1 (the host's cpuset mount gone there). affix reads the target's
# mountinfo, so it reads the files through /proc/PID/root, as the target
# sees them, not the host's /sys/fs/cgroup/cpuset (0-1).
mkdir "$tmp/mnt"
unshare -m --propagation private sh -c 'echo $$ > "$1/cgroup.procs" && mount --bind "$1" "$2" &&
  umount -l /sys/fs/cgroup/cpuset && mount --move "$2" /sys/fs/cgroup/cpuset && echo ready && exec sleep 1000' \
  sh "$cg" "$tmp/mnt" > "$tmp/ns.out" 2>&1 &
PID=$!
started+=("$PID")
for _ in $(seq 200); do grep -q ready "$tmp/ns.out" && break; sleep 0.05; done
check "container: its own view of its cpuset" "1" "$(cat /proc/$PID/root/sys/fs/cgroup/cpuset/cpuset.effective_cpus)"
run_affix pin 0 $PID
check "container: pin 0: status" 2 "$RC"
check "container: pin 0: CPU 0 is not allowed by the cpuset it sees" \
  "affix: error: CPU 0 is not allowed (allowed: 1, from cgroup1:/proc/$PID/root/sys/fs/cgroup/cpuset/cpuset.effective_cpus)" "$ERR"
run_affix pin all $PID
check "container: pin all is its CPU 1" "0 $PID: 1 thread on CPUs 1 (0 moved)" "$RC $OUT"
stop $PID

# Names are data: a cpuset named with escape sequences reaches the terminal
# escaped (as comm is), and JSON as valid UTF-8 with control characters
# escaped.
mkdir "$cg/$evil"
echo 1 > "$cg/$evil/cpuset.cpus"
echo 0 > "$cg/$evil/cpuset.mems"
start evil threads_helper 1
echo $PID > "$cg/$evil/cgroup.procs"
run_affix pin 0 $PID
check "escape sequences in a cpuset's name: status" 2 "$RC"
check "escape sequences in a cpuset's name: shown escaped" \
  "affix: error: CPU 0 is not allowed (allowed: 1, from cgroup1:$cg/x\\e[31mRED\\e]0;owned\\x07/cpuset.effective_cpus)" "$ERR"
stop $PID
json=$(sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" topo --json' sh "$cg/$evil" "$AFFIX")
check "escape sequences in a cpuset's name: JSON" \
  "\"source\": \"cgroup1:$cg/x\\u001b[31mRED\\u001b]0;owned\\u0007/cpuset.effective_cpus\"" \
  "$(grep -o '"source": "[^"]*"' <<<"$json")"
# A mount point with a new line in its name (mountinfo writes \012): one
# line of the message, escaped.
nl_dir="$tmp/a"$'\n'"b"
mkdir "$nl_dir"
err=$(unshare -m --propagation private sh -c 'echo $$ > "$1/cgroup.procs" && mount --bind /sys/fs/cgroup/cpuset "$2" &&
  umount -l /sys/fs/cgroup/cpuset && exec "$3" explain 0' sh "$cg" "$nl_dir" "$AFFIX" 2>&1 >/dev/null)
check "a new line in a mount point: status" 2 "$?"
check "a new line in a mount point: shown escaped" \
  "affix: error: CPU 0 is not allowed (allowed: 1, from cgroup1:$tmp/a\\nb/affix-pin-test-$$/cpuset.effective_cpus)" "$err"
finish
