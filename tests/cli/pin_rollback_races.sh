#!/usr/bin/env bash
# A failing pin's account is true (affix(1), GUARANTEES): threads and
# processes created during the move are put back too, and a roll back acts
# only on the processes the move held. Each race is made to happen at one
# chosen instant: notify_run stops affix inside one system call, runs a
# command (a thread created, a child forked, a PID reused), then lets the
# call go on or fail.
#
# --spread: stopped at the third thread's sched_setaffinity (refused), the
#   main thread, already on CPU 0, creates a thread: it is put back too.
# --tree: a child in a cpuset of CPU 0 cannot have CPU 1; stopped at that
#   refusal, the root, already on CPU 1, forks another child: put back too.
# --migrate: the target exits at its page migration (refused) and its PID
#   goes to a new process on the target's new list (ns_last_pid in a PID
#   namespace of the test's own): the roll back leaves that one alone. And
#   a process whose main thread has exited cannot be migrated: said in words.
. "$(dirname "$0")/pin_lib.bash"
NOTIFY="$HELPERS/notify_run"

# --spread.
start spread spawn_helper 3
tids=($(ls /proc/$PID/task | sort -n))
# (The hooks give up after 10 s, so that a helper that never answers fails
# the checks below instead of hanging the test.)
hook="kill -USR1 $PID; i=0; until grep -q '^thread' $tmp/spread.out || [ \$i -ge 1000 ]; do sleep 0.01; i=\$((i+1)); done"
"$NOTIFY" sched_setaffinity ${tids[2]} EPERM "$hook" "$AFFIX" pin --spread 0-1 $PID > "$tmp/out" 2> "$tmp/err"
check "spread: status and message" "1 affix: error: cannot move thread ${tids[2]} (spawn_helper) of process $PID: permission denied; nothing was changed
affix: hint: affix has CAP_SYS_NICE, so a security policy refused it: a seccomp filter or a security module (as in a container)" \
  "$? $(cat "$tmp/err")"
created=$(sed -n 's/^thread //p' "$tmp/spread.out")
check "spread: a thread was created during the move" 1 "$(echo "$created" | grep -c .)"
check "spread: every thread on its old list, the new one too" "4 0-1" "$(thread_lists $PID)"
stop $PID

# --tree.
cg=/sys/fs/cgroup/cpuset/affix-pin-races-$$
mkdir "$cg" || { echo "FAIL: cannot create $cg"; exit 1; }
remove_cpuset() { cleanup; rmdir "$cg"; }
trap remove_cpuset EXIT
echo 0 > "$cg/cpuset.cpus"
echo 0 > "$cg/cpuset.mems"
start tree spawn_helper 2
root=$PID
kill -USR2 $root
until grep -q '^child' "$tmp/tree.out"; do sleep 0.01; done
caged=$(sed -n 's/^child //p' "$tmp/tree.out")
echo $caged > "$cg/cgroup.procs"
check "tree: the child in the cpuset of CPU 0" "1 0" "$(thread_lists $caged)"
hook="kill -USR2 $root; i=0; until [ \$(grep -c '^child' $tmp/tree.out) -ge 2 ] || [ \$i -ge 1000 ]; do sleep 0.01; i=\$((i+1)); done"
"$NOTIFY" sched_setaffinity $caged continue "$hook" "$AFFIX" pin --tree 1 $root > "$tmp/out" 2> "$tmp/err"
check "tree: status and message" "1 affix: error: cannot move thread $caged (spawn_helper) of process $caged: the kernel refused CPUs 1: Invalid argument; nothing was changed
affix: hint: the CPUs must be in the target's own cpuset" "$? $(cat "$tmp/err")"
forked=$(sed -n 's/^child //p' "$tmp/tree.out" | sed -n 2p)
check "tree: a child was forked during the move" 1 "$(echo "$forked" | grep -c .)"
check "tree: the root back on 0-1" "2 0-1" "$(thread_lists $root)"
check "tree: the child forked during the move back on 0-1" "1 0-1" "$(thread_lists $forked)"
check "tree: the caged child unchanged" "1 0" "$(thread_lists $caged)"
stop $root

# --migrate: a process whose main thread has exited.
start zombie threads_helper 3 leader-exits
until [[ $(sed 's/.*) //' /proc/$PID/task/$PID/stat | cut -c1) == Z ]]; do sleep 0.01; done
run_affix pin --migrate 1 $PID
check "leader exited: status and message" "1 affix: error: cannot migrate the pages of process $PID: its main thread has exited, and Linux reaches a process's pages only through its main thread; every thread was put back on its old CPU list" \
  "$RC $ERR"
check "leader exited: every thread put back" "3 0-1" "$(thread_lists $PID)"
stop $PID

# --migrate: the PID reused before the roll back, in a PID namespace.
export AFFIX HELPERS NOTIFY tmp
unshare -p -f --mount-proc bash -c '
  "$HELPERS/threads_helper" 2 > "$tmp/ns.out" &
  target=$!
  until grep -q ready "$tmp/ns.out" 2>/dev/null; do sleep 0.01; done
  # Killed, reaped by this shell, its PID handed to a process on CPU 1.
  hook="kill -KILL $target; i=0; while kill -0 $target 2>/dev/null && [ \$i -lt 1000 ]; do sleep 0.01; i=\$((i+1)); done
        echo $((target - 1)) > /proc/sys/kernel/ns_last_pid; taskset -c 1 sleep 1000 > /dev/null 2>&1 & echo \$! > $tmp/reused"
  "$NOTIFY" migrate_pages any EINVAL "$hook" "$AFFIX" pin --migrate 1 $target > "$tmp/out" 2> "$tmp/err"
  echo "$? $target $(cat $tmp/reused) $(awk "/^Cpus_allowed_list:/ {print \$2}" /proc/$(cat $tmp/reused)/status)" > "$tmp/ns.result"
  kill -KILL $(cat $tmp/reused)
'
read -r rc target reused list < "$tmp/ns.result"
check "reused: the new process has the target's PID" "$target" "$reused"
check "reused: status and message" "1 affix: error: cannot migrate the pages of process $target to nodes 0: Invalid argument; every thread was put back on its old CPU list" \
  "$rc $(cat "$tmp/err")"
check "reused: the new process keeps its own list" 1 "$list"
finish
