# vm-topologies: 2s2c2t-2n
# vm-kernel: 6.12
# Shields among other cgroups and other shields on Linux 6.12 (issue 33,
# items 3, 5, 7, 8): --off leaves cpuset on where a cgroup made meanwhile
# has its own cpuset; two shields started together are both valid, or one
# is refused (a lock under /run/affix); two --irqs shields removed in the
# order made put every IRQ back; a command under a narrow mask gets every
# CPU of its shield; a removal that fails after the command keeps the
# command's status; --off --dry-run lists what --off does.
. "$VM_LIB"
cg=/sys/fs/cgroup
none_left() { [ -z "$(ls /run/affix/shields 2>/dev/null)" ] && [ ! -e $cg/a ] && [ ! -e $cg/b ] && [ ! -e $cg/affix-shield-1 ]; }
shield_files > files.before

# --- 3: a cgroup made after the shield keeps its cpuset through --off -------
check_eq "cpuset is off in the root at first" "" "$(tr ' ' '\n' < $cg/cgroup.subtree_control | grep -x cpuset)"
check_run "shield 6-7" 0 affix shield 6-7
mkdir $cg/mine && echo 0-1 > $cg/mine/cpuset.cpus
sleep 1000 & mine=$!
echo $mine > $cg/mine/cgroup.procs
check_eq "mine's program on 0-1" "0-1" "$(status_of $mine Cpus_allowed_list)"
check_run "shield --dry-run --off" 0 affix shield --dry-run --off affix-shield-1
check_match "--dry-run: cpuset is left on, and why" \
  "*leave cpuset on in /sys/fs/cgroup/cgroup.subtree_control: /sys/fs/cgroup/mine has its own cpuset.cpus (0-1)*" "$OUT"
check_eq "--dry-run: no write inside the cgroup that goes" "" "$(echo "$OUT" | grep 'affix-shield-1/cpuset')"
check_run "shield --off" 0 affix shield --off affix-shield-1
check_eq "--off says cpuset stays on, and why" \
  "affix: warning: cpuset stays on in /sys/fs/cgroup/cgroup.subtree_control: /sys/fs/cgroup/mine has its own cpuset.cpus (0-1)" "$ERR"
check_match "cpuset still on in the root" "*cpuset*" "$(cat $cg/cgroup.subtree_control)"
check_eq "mine keeps its cpuset.cpus" "0-1" "$(cat $cg/mine/cpuset.cpus)"
check_eq "its program still on 0-1" "0-1" "$(status_of $mine Cpus_allowed_list)"
check_true "the shield gone" none_left
echo $mine > $cg/cgroup.procs
kill $mine; wait $mine 2>/dev/null
rmdir $cg/mine
echo -cpuset > $cg/cgroup.subtree_control
check_eq "every file as before" "" "$(shield_files | diff files.before -)"

# --- 5: two shields started together ---------------------------------------
# Overlapping (4-6 and 5-7): one made and valid, the other refused, whichever
# came first; six tries.
try=1
while [ $try -le 6 ]; do
  affix shield 4-6 --name a > a.out 2> a.err & pa=$!
  affix shield 5-7 --name b > b.out 2> b.err & pb=$!
  ra=0; wait $pa || ra=$?
  rb=0; wait $pb || rb=$?
  if [ $ra = 0 ]; then made=a other=b; else made=b other=a; fi
  check_eq "try $try: one made, one refused (a $ra, b $rb)" "1" "$((ra + rb))"
  check_eq "try $try: the one made holds its partition" "root" "$(cat $cg/$made/cpuset.cpus.partition)"
  check_match "try $try: the other refused, nothing of it left" \
    "affix: error: shield $other (CPUs *) overlaps the partition /sys/fs/cgroup/$made *nothing was changed*" "$(head -n 1 $other.err)"
  check_true "try $try: no cgroup $other" [ ! -e $cg/$other ]
  affix shield --off $made > /dev/null 2>&1
  check_true "try $try: removed" none_left
  try=$((try + 1))
done
# Not overlapping (4-5 and 6-7): both made, both valid.
affix shield 4-5 --name a > a.out 2> a.err & pa=$!
affix shield 6-7 --name b > b.out 2> b.err & pb=$!
ra=0; wait $pa || ra=$?
rb=0; wait $pb || rb=$?
check_eq "apart: both made" "0 0" "$ra $rb"
check_eq "apart: both valid" "root root" "$(cat $cg/a/cpuset.cpus.partition) $(cat $cg/b/cpuset.cpus.partition)"
check_eq "apart: the root keeps 0-3" "0-3" "$(cat $cg/cpuset.cpus.effective)"
# Removed together too: both go, every file as before.
affix shield --off a > a.out 2> a.err & pa=$!
affix shield --off b > b.out 2> b.err & pb=$!
ra=0; wait $pa || ra=$?
rb=0; wait $pb || rb=$?
check_eq "apart: both removed" "0 0" "$ra $rb"
check_true "apart: nothing left" none_left
check_eq "apart: every file as before" "" "$(shield_files | diff files.before -)"

# --- 7: two --irqs shields removed in the order made -------------------------
check_run "an --irqs shield on 6-7" 0 affix shield 6-7 --irqs --name a
check_run "an --irqs shield on 4-5" 0 affix shield 4-5 --irqs --name b
check_run "--off the first made" 0 affix shield --off a
check_eq "no IRQ blamed on someone else" "" "$(echo "$ERR" | grep 'someone else')"
irq_ok=1
for f in /proc/irq/[0-9]*/smp_affinity_list; do
  want=$(sed -n "s|^$f: ||p" files.before)
  case $want in 0-7) [ "$(cat $f)" = "0-3,6-7" ] || [ "$(cat $f)" = "$want" ] || irq_ok=0;; esac
done
check_eq "with b alone, IRQs that were on 0-7 are on 0-3,6-7 (or stayed)" "1" "$irq_ok"
check_run "--off the second" 0 affix shield --off b
check_eq "no IRQ blamed on someone else" "" "$(echo "$ERR" | grep 'someone else')"
check_eq "every IRQ and file as before" "" "$(shield_files | diff files.before -)"
check_true "nothing left" none_left

# --- 8: the command gets the shield's CPUs, all of them ------------------------
if command -v taskset > /dev/null 2>&1; then narrow="taskset -c 0,6"; else narrow="affix 0,6 --"; fi
check_run "under $narrow: shield 6-7 -- cmd" 0 $narrow affix shield 6-7 -- grep Cpus_allowed_list /proc/self/status
check_eq "the command on 6-7" "$(printf 'Cpus_allowed_list:\t6-7')" "$OUT"
check_true "removed after it" none_left
# A removal that fails after the command: the command's status stands, and
# the message says why the shield stayed.
check_run "a command that leaves a cgroup in its shield" 3 affix shield 6-7 -- \
  sh -c 'mkdir /sys/fs/cgroup/affix-shield-1/sub; exit 3'
check_eq "says why the shield stayed" \
  "affix: error: shield affix-shield-1 stayed after the command (exit status 3): /sys/fs/cgroup/affix-shield-1 stays (Device or resource busy)" \
  "$(echo "$ERR" | head -n 1)"
rmdir $cg/affix-shield-1/sub
check_run "--off after" 0 affix shield --off affix-shield-1
check_true "nothing left" none_left
check_eq "every file as before, at the end" "" "$(shield_files | diff files.before -)"
finish
