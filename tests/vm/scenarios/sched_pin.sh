# vm-topologies: 2s2c2t-2n
# vm-kernel: 6.12
# `affix pin` with a scheduling policy on Debian's 6.12 kernel, every
# thread of a 4-thread process, all or nothing: fifo with new CPUs, rr,
# batch with a nice value, idle, a lower nice, the EEVDF slice, then back;
# pin --check and show; deadline on the whole machine, and refused with
# fewer CPUs, both ways round (the policy on a narrower list: EPERM; a
# deadline thread's list narrowed: EBUSY), and by admission control at the
# 9th of 10 threads: every refusal leaves every thread's CPU list and
# policy as they were. Last, deadline inside a cgroup v2 root partition
# made by hand. Read back with chrt and /proc/PID/task/*/sched.
. "$VM_LIB"
s0=$(socket_cpus 0) s1=$(socket_cpus 1) all=0-$((VM_CPUS - 1))

start_load t vmload --threads 4 --wait || { finish; exit; }
check_run "pin --policy fifo:30 socket:1" 0 affix pin -v --policy fifo:30 socket:1 $PID
check_eq "its line" "$PID: 4 threads on CPUs $s1, policy fifo:30 (4 changed)" "$(echo "$OUT" | head -1)"
check_eq "-v: a line per thread, its CPUs and policy" 4 "$(echo "$OUT" | grep -c ": $all -> $s1, other slice [0-9.]*ms -> fifo:30$")"
check_eq "chrt -p of every thread" "4 SCHED_FIFO 30" "$(all_chrt $PID)"
check_eq "sched of every thread" "4 1 69" "$(all_sched $PID)"
check_true "every thread on socket 1" all_threads_on $PID "$s1"
check_run "pin --check: as asked" 0 affix pin --check --policy fifo:30 socket:1 $PID
check_eq "pin --check: its line" "$PID: 4 threads within CPUs $s1, with policy fifo:30" "$OUT"
check_run "pin --check of rr:30: exit 1" 1 affix pin --check --policy rr:30 socket:1 $PID
check_eq "pin --check: every thread named" 4 "$(echo "$OUT" | grep -c '): policy fifo:30 (asked: policy rr:30)$')"
check_run "show" 0 affix show $PID
check_match "show: POLICY fifo:30" "*$s1 *4 *$PID* *fifo:30 *vmload*" "$(echo "$OUT" | sed -n 4p)"
check_run "show --json" 0 affix show --json $PID
check_eq "show --json: policy and priority of every thread" "fifo 30,fifo 30,fifo 30,fifo 30" \
  "$(json '[.[0].threads[].sched | "\(.policy) \(.priority)"] | join(",")')"

check_run "pin --policy rr:5" 0 affix pin --policy rr:5 socket:1 $PID
check_eq "rr: chrt" "4 SCHED_RR 5" "$(all_chrt $PID)"
check_run "pin --policy batch --nice 5 socket:0" 0 affix pin --policy batch --nice 5 socket:0 $PID
check_eq "batch: chrt" "4 SCHED_BATCH 0" "$(all_chrt $PID)"
check_eq "batch: sched (nice 5: prio 125)" "4 3 125" "$(all_sched $PID)"
check_true "batch: on socket 0" all_threads_on $PID "$s0"
check_run "pin --policy idle" 0 affix pin --policy idle socket:0 $PID
check_eq "idle: chrt" "4 SCHED_IDLE 0" "$(all_chrt $PID)"
check_eq "idle: sched (the nice value kept, as chrt keeps it: prio 125)" "4 5 125" "$(all_sched $PID)"
check_run "pin --policy other --nice -5" 0 affix pin --policy other --nice -5 all $PID
check_eq "other nice -5: sched" "4 0 115" "$(all_sched $PID)"
check_run "pin --sched-slice 3" 0 affix pin --sched-slice 3 all $PID
check_eq "slice: se.slice of every thread" "4 3000000" \
  "$(cat /proc/$PID/task/*/sched | awk '$1 == "se.slice" {print $3}' | sort | uniq -c | awk '{print $1, $2}')"
check_eq "slice: nice kept" "4 0 115" "$(all_sched $PID)"
check_run "pin --nice 0: back" 0 affix pin --nice 0 all $PID
check_eq "nice 0" "4 0 120" "$(all_sched $PID)"

# Deadline on the whole machine: the CPUs, then the policy.
check_run "pin --policy deadline on all CPUs" 0 affix pin --policy deadline:1ms/10ms/10ms all $PID
check_eq "deadline: chrt" "4 SCHED_DEADLINE 0 1000000/10000000/10000000" "$(all_chrt $PID)"
check_run "pin --check deadline" 0 affix pin --check --policy deadline:1ms/10ms/10ms all $PID
# A deadline thread's list narrowed: EBUSY on the first, nothing changed.
before=$(snapshot $PID)
check_run "deadline threads to socket 0: refused" 1 affix pin --policy deadline:1ms/10ms/10ms socket:0 $PID
check_match "EBUSY: the reason" "affix: error: cannot move thread * (vmload) of process $PID: a SCHED_DEADLINE thread must be allowed every CPU of its root domain ($all), and CPUs $s0 are not all of it; nothing was changed" \
  "$(echo "$ERR" | head -1)"
check_eq "EBUSY: every thread as it was" "$before" "$(snapshot $PID)"
# Away from deadline to fewer CPUs: the policy first, then the CPUs.
check_run "deadline to other on socket 1" 0 affix pin --policy other socket:1 $PID
check_eq "other again" "4 0 120" "$(all_sched $PID)"
check_true "on socket 1" all_threads_on $PID "$s1"
# The policy on a narrower list: EPERM at the first thread, put back.
before=$(snapshot $PID)
check_run "deadline on socket 0: refused" 1 affix pin --policy deadline:1ms/10ms/10ms socket:0 $PID
check_match "EPERM: the reason" "affix: error: cannot set policy deadline:1ms/10ms/10ms on thread * (vmload) of process $PID: a SCHED_DEADLINE thread must be allowed every CPU of its root domain ($all), and CPUs $s0 are not all of it; nothing was changed" \
  "$(echo "$ERR" | head -1)"
check_eq "EPERM: every thread's CPUs and policy as they were" "$before" "$(snapshot $PID)"
check_run "--dry-run foresees it" 1 affix pin --dry-run --policy deadline:1ms/10ms/10ms socket:0 $PID
check_eq "--dry-run: changed nothing" "$before" "$(snapshot $PID)"
stop_load $PID

# Admission control: 10 threads asking 9 ms of every 10 on 8 CPUs (95% each
# by default): the 9th is refused, and all are put back.
start_load ten vmload --threads 10 --wait || { finish; exit; }
before=$(snapshot $PID)
check_run "10 x 0.9 CPU of deadline: refused" 1 affix pin --policy deadline:9ms/10ms/10ms all $PID
check_match "EBUSY: admission control" "affix: error: cannot set policy deadline:9ms/10ms/10ms on thread * (vmload) of process $PID: deadline admission control refused it: the CPUs of its root domain ($all) have not 9ms of every 10ms left for another deadline thread; nothing was changed" \
  "$(echo "$ERR" | head -1)"
check_eq "admission: every thread's CPUs and policy as they were" "$before" "$(snapshot $PID)"
check_eq "admission: no deadline thread left" "10 0 120" "$(all_sched $PID)"
stop_load $PID

# A root partition of CPUs 6-7 (cgroup v2, by hand): its own root domain.
cg=/sys/fs/cgroup/rt
echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
mkdir $cg && echo 6-7 > $cg/cpuset.cpus && echo root > $cg/cpuset.cpus.partition
check_eq "the partition" "root" "$(cat $cg/cpuset.cpus.partition)"
printf '#!/bin/sh\necho $$ > %s/cgroup.procs && exec "$@"\n' $cg > inside
chmod +x inside
start_load part ./inside vmload --threads 3 --wait || { finish; exit; }
check_run "pin --policy deadline 6-7 in the partition" 0 affix pin --policy deadline:2ms/10ms/10ms 6-7 $PID
check_eq "partition: chrt" "3 SCHED_DEADLINE 0 2000000/10000000/10000000" "$(all_chrt $PID)"
check_true "partition: on 6-7" all_threads_on $PID 6-7
check_run "pin --policy other in the partition" 0 affix pin --policy other 6 $PID
check_eq "partition: back to other" "3 0 120" "$(all_sched $PID)"
stop_load $PID
start_load runpart ./inside affix run --policy deadline:2ms/10ms/10ms 6-7 -- vmload --threads 1 --wait || { finish; exit; }
check_eq "run in the partition: chrt" "SCHED_DEADLINE 0 2000000/10000000/10000000" "$(chrt_of $PID)"
check_eq "run in the partition: its CPUs" "6-7" "$(status_of $PID Cpus_allowed_list)"
stop_load $PID
check_run "explain in the partition: no warning" 0 ./inside affix explain --policy deadline:2ms/10ms/10ms 6-7
check_eq "explain in the partition" "" "$(echo "$OUT" | grep '^warning')"
finish
