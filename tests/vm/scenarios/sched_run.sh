# vm-topologies: 2s2c2t-2n
# vm-kernel: 6.12
# `affix run` with a scheduling policy on Debian's 6.12 kernel: fifo, rr,
# batch, idle, a nice value and the EEVDF slice on a 4-thread program (its
# threads inherit them), each read back with util-linux chrt and
# /proc/PID/task/*/sched; deadline on the whole machine (its one root
# domain) and the refusal with fewer CPUs, nothing started; the dry run
# that foresees it; uclamp, which Debian's kernels lack; an unprivileged
# user refused a real-time policy.
. "$VM_LIB"
s0=$(socket_cpus 0)

# policy PID SPEC CHRT SCHED WHAT: a 4-thread vmload started under
# `affix run SPEC all`: every thread as chrt and the sched file say.
policy() {
  tag=$1; shift
  want_chrt=$1 want_sched=$2; shift 2
  start_load "$tag" affix run "$@" all -- vmload --threads 4 --wait || return
  check_eq "$tag: 4 threads" 4 "$(ls /proc/$PID/task | wc -l)"
  check_eq "$tag: chrt -p of every thread" "4 $want_chrt" "$(all_chrt $PID)"
  check_eq "$tag: /proc/PID/task/*/sched policy prio" "4 $want_sched" "$(all_sched $PID)"
  check_true "$tag: every thread on every CPU" all_threads_on $PID "0-$((VM_CPUS - 1))"
  stop_load $PID
}
policy fifo "SCHED_FIFO 20" "1 79" --policy fifo:20
policy rr "SCHED_RR 5" "2 94" --policy rr:5
policy batch "SCHED_BATCH 0" "3 125" --policy batch --nice 5
policy idle "SCHED_IDLE 0" "5 120" --policy idle
policy nice "SCHED_OTHER 0" "0 115" --nice -5

# The EEVDF slice (6.12): every thread's, as sched_getattr reads it back
# (affix show) and as /proc/PID/task/*/sched shows it.
start_load slice affix run --sched-slice 2 all -- vmload --threads 4 --wait &&
check_run "show --json" 0 affix show --json $PID
check_eq "slice: sched_getattr of every thread" "2000000 2000000 2000000 2000000" \
  "$(json '[.[0].threads[].sched.slice_ns] | map(tostring) | join(" ")')"
check_eq "slice: show's words" "other slice 2ms" "$(json '.[0].threads[0].sched.text')"
check_eq "slice: /proc/PID/task/*/sched se.slice" "4 2000000" \
  "$(cat /proc/$PID/task/*/sched | awk '$1 == "se.slice" {print $3}' | sort | uniq -c | awk '{print $1, $2}')"
stop_load $PID

# Deadline: the CPUs first (the whole machine, its one root domain), then
# the policy; a single-threaded program (a deadline thread cannot clone).
check_run "-v --policy deadline: the order of the calls" 0 \
  affix run -v --policy deadline:2ms/10ms/10ms all -- chrt -p 0
check_eq "-v: the CPUs, then the policy" \
  "affix: bind to CPUs 0-$((VM_CPUS - 1)) ($VM_CPUS CPUs; sockets 0-1; nodes 0-1)|affix: set policy deadline:2ms/10ms/10ms (then the command cannot create threads or processes: the kernel refuses clone to a deadline thread)|affix: exec: chrt -p 0" \
  "$(echo "$ERR" | tr '\n' '|' | sed 's/|$//')"
check_match "chrt -p of the command: SCHED_DEADLINE" "*SCHED_DEADLINE*2000000/10000000/10000000*" "$(echo "$OUT" | tr '\n' ' ')"
start_load deadline affix run --policy deadline:2ms/10ms/10ms all -- vmload --threads 1 --wait &&
check_eq "deadline: chrt -p" "SCHED_DEADLINE 0 2000000/10000000/10000000" "$(chrt_of $PID)"
check_eq "deadline: sched policy 6, prio -1" "1 6 -1" "$(all_sched $PID)"
stop_load $PID
# ...and what the kernel does to one that creates threads: its clone fails.
check_run "deadline: a program that creates threads cannot" 1 \
  affix run --policy deadline:2ms/10ms/10ms all -- vmload --threads 2
check_match "deadline: affix said why first, then vmload's pthread_create failed" \
  "affix: warning: the command runs under SCHED_DEADLINE, which cannot create threads or processes*vmload: pthread_create*" \
  "$(echo "$ERR" | tr '\n' ' ')"

# Deadline on fewer CPUs than the root domain: refused, nothing started.
check_run "deadline on socket 0: 125" 125 affix run --policy deadline:2ms/10ms/10ms socket:0 -- touch ran
check_eq "deadline on socket 0: the reason" \
  "affix: error: cannot set policy deadline:2ms/10ms/10ms: a SCHED_DEADLINE thread must be allowed every CPU of its root domain (0-$((VM_CPUS - 1))), and CPUs $s0 are not all of it" \
  "$(echo "$ERR" | head -1)"
check_eq "deadline on socket 0: the hint" \
  "affix: hint: give it all of CPUs 0-$((VM_CPUS - 1)), or make CPUs $s0 a root domain of their own and start the thread there: 'affix shield', or a cgroup v2 cpuset partition (cpuset.cpus.partition=root)" \
  "$(echo "$ERR" | sed -n 2p)"
check_true "deadline on socket 0: nothing started" [ ! -e ran ]
check_run "--dry-run foresees it: 125" 125 affix run --dry-run --policy deadline:2ms/10ms/10ms socket:0 -- touch ran
check_match "--dry-run: the same error" "*affix: error: cannot set policy deadline:2ms/10ms/10ms: a SCHED_DEADLINE thread must be allowed every CPU of its root domain*" "$ERR"
check_match "--dry-run: the CPUs first, then the policy" "affix: would bind to CPUs $s0 *affix: would set policy deadline*" "$(echo "$OUT" | tr '\n' ' ')"
check_run "explain warns" 0 affix explain --policy deadline:2ms/10ms/10ms socket:0
check_match "explain: the warning" "*warning   a SCHED_DEADLINE thread must be allowed every CPU of its root domain (0-$((VM_CPUS - 1))), and CPUs $s0 are not all of it: 'run' would refuse*" \
  "$(echo "$OUT" | tr '\n' ' ')"

# Uclamp: not in Debian's kernels; util-linux's uclampset meets the
# kernel's own refusal (EOPNOTSUPP), which affix's probe tells before.
check_run "uclampset: the kernel refuses" 1 uclampset -m 0 -M 512 true
check_match "uclampset: Operation not supported" "*Operation not supported*" "$ERR"
check_run "--uclamp: 125" 125 affix run --uclamp 0:512 all -- touch ran
check_eq "--uclamp: the error and its hint" \
  "affix: error: --uclamp needs utilization clamping: this kernel was built without CONFIG_UCLAMP_TASK|affix: hint: Debian's kernels are built without it (sched_setattr refuses the clamps: EOPNOTSUPP); leave out --uclamp" \
  "$(echo "$ERR" | tr '\n' '|' | sed 's/|$//')"
check_true "--uclamp: nothing started" [ ! -e ran ]

# Without CAP_SYS_NICE and an RLIMIT_RTPRIO of 0: refused, nothing started.
check_run "nobody: fifo refused" 125 run_as 65534 affix run --policy fifo:10 all -- touch /tmp/ran
check_eq "nobody: why" \
  "affix: error: cannot set policy fifo:10: permission denied: fifo:10 needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least 10" \
  "$(echo "$ERR" | head -1)"
check_true "nobody: nothing started" [ ! -e /tmp/ran ]
check_run "nobody: a higher nice is allowed" 0 run_as 65534 affix run --nice 3 all -- sh -c 'sed -n "s/^prio *: *//p" /proc/self/sched'
check_eq "nobody: prio 123" 123 "$OUT"
finish
