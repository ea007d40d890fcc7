# vm-topologies: 2s2c2t-2n 2s2c2t-2n-pci
# vm-kernel: 6.12
# affix shield on Linux 6.12: an isolated partition of socket 1 with its
# IRQs takes CPUs 4-7 from every other process (PID 1 and one started
# later too), from the scheduler's load balancing and the unbound
# workqueues; --off puts back every file it changed, byte for byte. A
# program in the shield runs on 4-7 and nowhere else; pin --check holds it
# to that. Faults: an overlapping shield (the kernel's reason, nothing left),
# the command killed, the launcher killed, an unprivileged user.
. "$VM_LIB"
cg=/sys/fs/cgroup
gone() { [ ! -e $cg/affix-shield-1 ] && [ -z "$(ls /run/affix/shields 2>/dev/null)" ]; }
sleep 1000 & early=$!
shield_files > files.before
cpus_before=$(cpus_of 1 $PPID $early)

# --- A standing shield, with its IRQs ----------------------------------------
check_run "shield socket:1 --isolated --irqs" 0 affix shield socket:1 --isolated --irqs
check_eq "prints its name" "affix-shield-1" "$OUT"
check_eq "partition" "isolated" "$(cat $cg/affix-shield-1/cpuset.cpus.partition)"
check_eq "PID 1 off socket 1" "0-3" "$(status_of 1 Cpus_allowed_list)"
check_eq "a process started before" "0-3" "$(status_of $early Cpus_allowed_list)"
sleep 1000 & late=$!
check_eq "a process started after" "0-3" "$(status_of $late Cpus_allowed_list)"
kill $late
outside=$(user_cpus "$$" | tr ' ' '\n' | grep -v '=0-3$' | tr '\n' ' ')
check_eq "every process outside the shield on 0-3" "" "$outside"
check_eq "cpuset.cpus.isolated" "4-7" "$(cat $cg/cpuset.cpus.isolated)"
check_eq "the root's effective CPUs" "0-3" "$(cat $cg/cpuset.cpus.effective)"
check_eq "unbound workqueues leave 4-7 out" "0f" "$(cat /sys/devices/virtual/workqueue/cpumask)"
check_eq "default_smp_affinity" "0f" "$(cat /proc/irq/default_smp_affinity)"
# Every IRQ is on 0-3 but those the kernel will not move, each named.
for f in /proc/irq/[0-9]*/smp_affinity_list; do
  irq=${f#/proc/irq/}; irq=${irq%%/*}
  list=$(cat $f)
  case $list in 0|1|2|3|0-1|0-2|0-3|1-2|1-3|2-3) continue;; esac
  check_match "IRQ $irq ($list) is named as staying" "*IRQ $irq *stays on CPUs $list: the kernel will not move it*" "$ERR"
done
if [ "$VM_PCI" = 1 ]; then
  for irq in $(ls /sys/bus/pci/devices/0000:80:00.0/msi_irqs) $(ls /sys/bus/pci/devices/0000:80:01.0/msi_irqs); do
    check_eq "root port MSI $irq moved off node 1" "0-3" "$(cat /proc/irq/$irq/smp_affinity_list)"
  done
fi
check_run "show --shield --json" 0 affix show --shield --json
check_eq "show: the kernel holds it" "true" "$(json '.[0].kernel.holds')"
check_eq "show: partition" "isolated" "$(json '.[0].kernel.partition')"
check_eq "show: isolated CPUs, read back" "4-7" "$(json '.[0].kernel.isolated')"
check_eq "show: workqueues, read back" "0-3" "$(json '.[0].kernel.workqueue')"
check_eq "show: no other task on its CPUs" "0" "$(json '[.[0].per_cpu[].others[]] | length')"
check_eq "show: bound kernel threads listed (migration/4)" "migration/4 true" \
  "$(json '.[0].per_cpu[0].kernel_threads[] | select(.comm == "migration/4") | "\(.comm) \(.bound)"')"
check_eq "show: standing" "none" "$(json '.[0].launcher.state')"

# An overlapping shield: refused before a write (a sibling's cpuset.cpus on
# a partition's CPUs makes the kernel invalidate that partition for good),
# nothing is left, the first still holds.
ls $cg > cgroups.before
check_run "a second shield on 5-6" 1 affix shield 5-6 --name second
check_eq "refused, naming the partition and the kernel's reason" \
  "affix: error: shield second (CPUs 5-6) overlaps the partition /sys/fs/cgroup/affix-shield-1 (CPUs 4-7): writing its CPUs would make the kernel invalidate that one for good ('Cpu list in cpuset.cpus not exclusive'); nothing was changed" \
  "$(echo "$ERR" | head -n 1)"
check_eq "nothing left of it" "$(cat cgroups.before)" "$(ls $cg)"
check_true "no record of it" [ ! -e /run/affix/shields/second ]
check_eq "the first still holds" "isolated" "$(cat $cg/affix-shield-1/cpuset.cpus.partition)"

# A program put into the standing shield runs on 4-7; the shield invalid
# fails pin --check.
sleep 1000 & prog=$!
echo $prog > $cg/affix-shield-1/cgroup.procs
check_eq "program in the shield on 4-7" "4-7" "$(status_of $prog Cpus_allowed_list)"
check_run "pin --check socket:1 (held)" 0 affix pin --check socket:1 $prog
check_match "names the shield" "*shield affix-shield-1 (CPUs 4-7): held, no other task on its CPUs*" "$OUT"
# Another program's cgroup takes CPU 5: the kernel makes the partition
# invalid, every process gets 4-7 back, and pin --check says so.
mkdir $cg/intruder && echo 5 > $cg/intruder/cpuset.cpus
kernel_says=$(cat $cg/affix-shield-1/cpuset.cpus.partition)
check_match "the kernel made it invalid" "isolated invalid*" "$kernel_says"
check_run "pin --check with the partition invalid" 1 affix pin --check socket:1 $prog
check_match "says the kernel does not hold it, in the kernel's words" \
  "*shield affix-shield-1 (CPUs 4-7): the kernel does not hold it: cpuset.cpus.partition reads '$kernel_says'*" "$OUT"
check_match "and names a task now allowed there" "*shield affix-shield-1 (CPUs 4-7): thread 1 (init) of process 1, in cgroup /, may run on CPUs 4-7*" "$OUT"
check_run "show --shield --json (invalid)" 0 affix show --shield --json
check_eq "show: not held" "false" "$(json '.[0].kernel.holds | tostring')"
check_eq "show: the kernel's words" "$kernel_says" "$(json '.[0].kernel.partition + " invalid" + (if .[0].kernel.reason == "" then "" else " (" + .[0].kernel.reason + ")" end)')"
rmdir $cg/intruder
echo isolated > $cg/affix-shield-1/cpuset.cpus.partition  # 6.12 makes it valid again when asked
check_eq "valid again" "isolated" "$(cat $cg/affix-shield-1/cpuset.cpus.partition)"

check_run "shield --off" 0 affix shield --off affix-shield-1
check_eq "--off says" "affix-shield-1 removed" "$OUT"
check_match "the program left in it is moved out" "*1 process still in /sys/fs/cgroup/affix-shield-1 moved out*" "$ERR"
check_eq "the program back on every CPU" "0-7" "$(status_of $prog Cpus_allowed_list)"
kill $prog
shield_files > files.after
check_eq "--off: every file as before, byte for byte" "" "$(diff files.before files.after)"
check_eq "--off: PID 1's, the scenario's, an early one's CPUs as before" "$cpus_before" "$(cpus_of 1 $PPID $early)"
check_eq "PID 1 back on every CPU" "0-7" "$(status_of 1 Cpus_allowed_list)"
check_true "no cgroup, no record left" gone

# The kernel's own verdict: another program's cgroup holds 4-7 in its
# cpuset.cpus; the partition is refused with the kernel's reason, every
# change undone, that cgroup untouched.
echo +cpuset > $cg/cgroup.subtree_control
mkdir $cg/other && echo 4-7 > $cg/other/cpuset.cpus
check_run "a shield where another cgroup holds the CPUs" 1 affix shield socket:1 --isolated --irqs
check_eq "the kernel's reason, and all undone" \
  "affix: error: the kernel refused shield affix-shield-1 (CPUs 4-7): its CPUs are not exclusive: another partition or exclusive cpuset holds some of them; the shield was removed, every change put back" \
  "$(echo "$ERR" | head -n 1)"
check_true "no cgroup, no record left" gone
check_eq "the other cgroup untouched" "4-7 member" "$(cat $cg/other/cpuset.cpus) $(cat $cg/other/cpuset.cpus.partition)"
check_eq "IRQs untouched" "$(grep smp_affinity files.before)" "$(shield_files | grep smp_affinity)"
rmdir $cg/other && echo -cpuset > $cg/cgroup.subtree_control

# --- A command in the shield ---------------------------------------------------
check_run "shield -- a command" 7 affix shield socket:1 --isolated -- sh -c \
  'grep Cpus_allowed_list /proc/self/status; cat /proc/self/cgroup; exit 7'
check_eq "the command on 4-7, in the shield" "$(printf 'Cpus_allowed_list:\t4-7\n0::/affix-shield-1')" "$OUT"
check_true "removed after it" gone
check_run "the command killed with SIGKILL" 137 affix shield socket:1 -- sh -c 'kill -9 $$'
check_true "removed after it" gone
check_run "a command not found" 127 affix shield socket:1 -- no-such-command
check_eq "says so, and that the shield went" \
  "affix: error: command not found: 'no-such-command'; the shield was removed, every change put back" "$ERR"
check_true "removed" gone
# SIGTERM to the launcher goes on to the command; the shield goes after it.
affix shield socket:1 -- sleep 1000 > term.log 2>&1 &
launcher=$!
wait_until "the command in the shield" grep -qs '^launcher' /run/affix/shields/affix-shield-1
kill -TERM $launcher
rc=0; wait $launcher || rc=$?
check_eq "SIGTERM passed on: the command's status" "143" "$rc"
check_true "removed after it" gone
# The launcher killed with SIGKILL: the shield stays, show lists it, --off removes it.
affix shield socket:1 --isolated -- sleep 1000 > kill.log 2>&1 &
launcher=$!
wait_until "the command in the shield" grep -qs '^launcher' /run/affix/shields/affix-shield-1
command=$(awk -F '\t' '$1 == "launcher" { print $4 }' /run/affix/shields/affix-shield-1)
kill -9 $launcher; wait $launcher 2>/dev/null
check_run "show --shield after the launcher was killed" 0 affix show --shield
check_match "it is listed, its launcher gone" "*launcher  affix $launcher is gone (killed?); the shield stays until 'affix shield --off affix-shield-1'*" "$OUT"
check_match "the command still inside" "*inside    1 process: $command (sleep)*" "$OUT"
check_run "--off" 0 affix shield --off affix-shield-1
check_true "removed" gone
check_eq "the command now on every CPU" "0-7" "$(status_of $command Cpus_allowed_list)"
kill $command

# --- Not root: refused before anything is written -------------------------------
check_run "as nobody" 1 run_as 65534 affix shield socket:1 --isolated --irqs
check_eq "the error" "affix: error: cannot write /sys/fs/cgroup: Permission denied; nothing was changed" \
  "$(echo "$ERR" | head -n 1)"
check_true "nothing made" gone
shield_files > files.after
check_eq "nobody: every file as before" "" "$(diff files.before files.after)"
check_run "as nobody, with a command" 125 run_as 65534 affix shield socket:1 -- true

check_run "explain --shield --as systemd" 0 affix explain --shield socket:1 --as systemd
check_match "the other slices on 0-3" "*system.slice.d/50-affix-shield.conf*AllowedCPUs=0-3*init.scope.d*AllowedCPUs=0-3*AllowedCPUs=4-7*" "$(echo $OUT)"
kill $early
finish
