# vm-topologies: 2s2c2t-2n
# vm-last (after it, cpuset may be on no hierarchy for tens of seconds: a
# process's allowed CPUs then read from its own status, its affinity)
# affix shield the v1 way (as cset shield), where the cpuset controller is
# cgroup v1's: mounted here (Debian's 6.1 has it; its 6.12 does not build
# it, CONFIG_CPUSETS_V1). Every movable task goes to a system cpuset of the
# other CPUs (new ones are born there), the shield is an exclusive cpuset,
# --isolated turns load balancing off; --off puts every task and file back.
. "$VM_LIB"
v1=/dev/cpuset
echo -cpuset > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p $v1
i=0
until mount -t cgroup -o cpuset cpuset $v1 2>/dev/null; do  # busy while v2's cpuset cgroups are being freed
  i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
done
check_true "cgroup v1 cpuset mounted" grep -q " $v1 cgroup " /proc/mounts
v1_files() {
  for f in $v1/cpuset.cpus $v1/cpuset.mems $v1/cpuset.cpu_exclusive $v1/cpuset.sched_load_balance \
           /proc/irq/default_smp_affinity; do printf '%s: %s\n' $f "$(cat $f)"; done
  ls $v1
}
sleep 1000 & early=$!
v1_files > files.before
check_run "--dry-run says the v1 way" 0 affix shield socket:1 --isolated --dry-run
check_match "the v1 way" "affix-shield-1: CPUs 4-7, exclusive cpuset, no load balancing, cgroup1 (the v1 way, as cset shield) $v1/affix-shield-1*" "$OUT"
check_run "shield socket:1 --isolated" 0 affix shield socket:1 --isolated
check_eq "prints its name" "affix-shield-1" "$OUT"
check_eq "the system cpuset" "0-3" "$(cat $v1/affix-system/cpuset.cpus)"
check_eq "the shield" "4-7 1 0" "$(cat $v1/affix-shield-1/cpuset.cpus) $(cat $v1/affix-shield-1/cpuset.cpu_exclusive) $(cat $v1/affix-shield-1/cpuset.sched_load_balance)"
check_eq "no load balancing from the root" "0" "$(cat $v1/cpuset.sched_load_balance)"
check_true "PID 1 in the system cpuset" grep -qx 1 $v1/affix-system/tasks
check_eq "PID 1 off socket 1" "0-3" "$(status_of 1 Cpus_allowed_list)"
check_eq "a process started before" "0-3" "$(status_of $early Cpus_allowed_list)"
sleep 1000 & late=$!
check_eq "a process started after: born in the system cpuset" "0-3" "$(status_of $late Cpus_allowed_list)"
kill $late; wait $late 2>/dev/null  # reaped: a zombie of the system cpuset would keep the v1 hierarchy alive after umount
outside=$(user_cpus "$$" | tr ' ' '\n' | grep -v '=0-3$' | tr '\n' ' ')
check_eq "every process outside the shield on 0-3" "" "$outside"
check_run "show --shield --json" 0 affix show --shield --json
check_eq "show: the v1 way, held" "cgroup1 true true" "$(json '.[0].layout') $(json '.[0].kernel.holds') $(json '.[0].kernel.exclusive')"
check_eq "show: no other task on its CPUs" "0" "$(json '[.[0].per_cpu[].others[]] | length')"
check_run "an overlapping shield" 1 affix shield 5-6 --name second
check_eq "the kernel's refusal" \
  "affix: error: cannot write 5-6 to $v1/second/cpuset.cpus: Invalid argument; the shield was removed, every change put back" \
  "$(echo "$ERR" | head -n 1)"
check_true "nothing left of it" [ ! -e $v1/second ] && [ ! -e /run/affix/shields/second ]
check_eq "the first whole" "4-7 1" "$(cat $v1/affix-shield-1/cpuset.cpus) $(cat $v1/affix-shield-1/cpuset.cpu_exclusive)"
check_run "--off" 0 affix shield --off affix-shield-1
v1_files > files.after
check_eq "--off: every file as before" "" "$(diff files.before files.after)"
check_true "PID 1 back in the root cpuset" grep -qx 1 $v1/tasks
check_eq "PID 1 back on every CPU" "0-7" "$(status_of 1 Cpus_allowed_list)"
check_eq "a process started before, back" "0-7" "$(status_of $early Cpus_allowed_list)"
check_run "a command in a v1 shield" 0 affix shield socket:1 -- sh -c 'grep Cpus_allowed_list /proc/self/status; grep cpuset /proc/self/cgroup'
check_eq "on 4-7, in its cpuset" "$(printf 'Cpus_allowed_list:\t4-7\n1:cpuset:/affix-shield-1')" "$OUT"
check_eq "removed after it" "$(sed -n '$p' files.before)" "$(ls $v1 | tail -n 1)"
kill $early; wait $early 2>/dev/null
umount $v1
check_true "the v1 cpuset unmounted" sh -c "! grep -q ' $v1 ' /proc/mounts"
# cpuset goes back to cgroup v2 when the kernel frees the v1 hierarchy. On
# Debian's 6.1.0-57 that is not within 30 s even after a bare mount, mkdir,
# rmdir and umount with no affix at all (tried with tests/vm/try), so the
# scenarios after this one in the boot may find cpuset on no v2 cgroup
# (topo accepts either, saying which). Wait a little, assert nothing.
i=0
until grep -qw cpuset /sys/fs/cgroup/cgroup.controllers; do i=$((i + 1)); [ $i -gt 20 ] && break; sleep 0.1; done
finish
