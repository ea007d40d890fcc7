# vm-topologies: 2s2c2t-2n
# affix shield on Debian 12's own kernel, 6.1: what works there (an
# isolated partition, every process off its CPUs, a command in it, --off
# putting every file back) and what does not, said so: 6.1 has no
# cpuset.cpus.isolated and leaves the unbound workqueues on the isolated
# CPUs (show --shield reads both back), and no cpuset.cpus.exclusive, which
# a shield below systemd's cgroups needs (a clear error naming 6.7).
. "$VM_LIB"
cg=/sys/fs/cgroup
gone() { [ ! -e $cg/affix-shield-1 ] && [ -z "$(ls /run/affix/shields 2>/dev/null)" ]; }
shield_files > files.before
check_run "shield socket:1 --isolated --irqs" 0 affix shield socket:1 --isolated --irqs
check_eq "partition" "isolated" "$(cat $cg/affix-shield-1/cpuset.cpus.partition)"
check_eq "PID 1 off socket 1" "0-3" "$(status_of 1 Cpus_allowed_list)"
check_eq "the root's effective CPUs" "0-3" "$(cat $cg/cpuset.cpus.effective)"
check_true "6.1 has no cpuset.cpus.isolated" [ ! -e $cg/cpuset.cpus.isolated ]
check_eq "6.1 leaves the unbound workqueues on every CPU" "ff" "$(cat /sys/devices/virtual/workqueue/cpumask)"
check_run "show --shield --json" 0 affix show --shield --json
check_eq "show: held" "true" "$(json '.[0].kernel.holds')"
check_eq "show: no isolated list to read" "null" "$(json '.[0].kernel.isolated')"
check_eq "show: the workqueues, read back" "0-7" "$(json '.[0].kernel.workqueue')"
check_run "show --shield" 0 affix show --shield
check_match "says the workqueues are on the shield's CPUs" "*isolated (cpuset.cpus.partition); effective CPUs 4-7; unbound workqueues 0-7*" "$OUT"
check_run "shield --off" 0 affix shield --off affix-shield-1
# The kernel gives a removed partition's CPUs back to the root when the
# cgroup goes offline, which 6.1 does after rmdir has returned (one CI run
# read the root's cpuset.cpus.effective as 0-3 at once): wait up to 5 s.
i=0
while [ $i -lt 50 ]; do
  shield_files > files.after
  diff -q files.before files.after > /dev/null && break
  sleep 0.1; i=$((i + 1))
done
check_eq "--off: every file as before (within 5 s)" "" "$(diff files.before files.after)"
check_eq "PID 1 back" "0-7" "$(status_of 1 Cpus_allowed_list)"
check_true "nothing left" gone

check_run "a command in the shield" 0 affix shield socket:1 --isolated -- grep Cpus_allowed_list /proc/self/status
check_eq "on 4-7" "$(printf 'Cpus_allowed_list:\t4-7')" "$OUT"
check_true "removed after it" gone

# The kernel's verdict, in 6.1's words: another cgroup holds CPU 5.
echo +cpuset > $cg/cgroup.subtree_control
mkdir $cg/other && echo 5 > $cg/other/cpuset.cpus
check_run "a shield where another cgroup holds a CPU" 1 affix shield socket:1
check_eq "the kernel's reason" \
  "affix: error: the kernel refused shield affix-shield-1 (CPUs 4-7): its CPUs are not exclusive: another partition or exclusive cpuset holds some of them; the shield was removed, every change put back" \
  "$(echo "$ERR" | head -n 1)"
check_true "nothing left" gone
rmdir $cg/other && echo -cpuset > $cg/cgroup.subtree_control

# Where systemd runs the machine (its /run/systemd/system), 6.1 cannot have
# a partition below systemd's cgroups: refused before anything is written.
mkdir -p /run/systemd/system
check_run "shield under systemd on 6.1" 1 affix shield socket:1 --isolated
check_eq "names the kernel that has it" \
  "affix: error: systemd runs this machine, and a shield below its cgroups needs cpuset.cpus.exclusive, which this kernel does not have (Linux 6.7 and later have it)" \
  "$(echo "$ERR" | head -n 1)"
check_match "and what to do instead" "*affix: hint: 'affix explain --shield WHERE --as systemd' prints AllowedCPUs= lines*" "$ERR"
rm -r /run/systemd
shield_files > files.after
check_eq "nothing written" "" "$(diff files.before files.after)"
check_true "nothing left" gone
finish
