#!/usr/bin/env bash
# affix shield on this machine, only what is safe here (affix(1), SHIELD):
# --help, usage errors, --dry-run (a plan, and nothing written: the cgroup
# hierarchy and /run/affix are the same after), show --shield (no shields;
# a synthetic root with one), explain --shield --as systemd, and as nobody
# the refusal before any write. No shield is ever made on this machine: it
# would move every process on it. So every line that could make one has
# --dry-run before WHERE (where it cannot be the command's), or runs as
# nobody, or fails before WHERE is read.
. "$AFFIX_SOURCE_DIR/tests/cli/check_lib.bash"
root=$(mktemp -d /tmp/affix-shield-XXXXXX)
trap 'rm -rf "$root" ${anyone_dir:+"$anyone_dir"}' EXIT
run() { out=$("$@" 2>"$root/err"); rc=$?; err=$(<"$root/err"); }
state() {  # what a shield would change, as it is now (other tests make cpusets of their own meanwhile)
  ls -a /run/affix 2>/dev/null
  ls -d /sys/fs/cgroup/affix-shield-* /sys/fs/cgroup/cpuset/affix-shield-* /sys/fs/cgroup/cpuset/affix-system 2>/dev/null
  cat /proc/irq/default_smp_affinity /sys/fs/cgroup/cgroup.subtree_control /sys/fs/cgroup/cpuset/cpuset.sched_load_balance 2>/dev/null
}
before=$(state)

run "$AFFIX" shield --help
check "shield --help exits 0" 0 "$rc"
check "shield --help: usage" "Usage: affix shield WHERE [OPTIONS] [--] [COMMAND [ARG...]]"$'\n'"       affix shield --off NAME" "$(head -n 2 <<<"$out")"
run "$AFFIX" --help
check_match "affix --help lists shield" "*affix show --shield*affix shield WHERE*affix shield --off NAME*" "$out"

# --- Usage errors: exit 2, or 125 where a command follows '--'
run "$AFFIX" shield
check "no WHERE" "2|affix: error: no location given" "$rc|$(head -n 1 <<<"$err")"
run "$AFFIX" shield --off affix-shield-1 1
check "--off with a location" "2|affix: error: --off takes a shield's name, not a location: unexpected '1'" "$rc|$(head -n 1 <<<"$err")"
run "$AFFIX" shield --off affix-shield-1 --isolated
check "--off with another option" "2|affix: error: --off removes a shield; it takes no other option but --dry-run and -v" "$rc|$(head -n 1 <<<"$err")"
run "$AFFIX" shield --off ../etc
check "--off with a name that is none" "2|affix: error: invalid shield name '../etc': it may hold letters, digits, '_' and '-' only" "$rc|$(head -n 1 <<<"$err")"
run "$AFFIX" shield --bogus 1 -- true
check "an unknown option before a command: 125" "125|affix: error: unknown option '--bogus' for 'shield'" "$rc|$(head -n 1 <<<"$err")"
run "$AFFIX" shield --dry-run --mem 1 1 -x
check "--mem takes its nodes attached: '1' is WHERE, the next '1' the command" \
  "0|  then run 1 -x in it, and remove the shield when it ends" "$rc|$(tail -n 1 <<<"$out")"
run "$AFFIX" shield --dry-run 1 --name 'a b'

check "a bad --name" "2|affix: error: invalid --name 'a b': it may hold letters, digits, '_' and '-' only" "$rc|$(head -n 1 <<<"$err")"
ncpu=$(getconf _NPROCESSORS_ONLN)
run "$AFFIX" shield --dry-run all
check "every CPU: none left to the machine" "2|affix: error: shielding CPUs 0-$((ncpu - 1)) leaves no online CPU to the rest of the machine" "$rc|$(head -n 1 <<<"$err")"
run "$AFFIX" shield --dry-run cpu:4096
check "a CPU that is not there" 2 "$rc"
# near:DEVICE reads the device as run, pin and explain do (it once failed
# with "placed near device 'eth0' without reading it first"). A NIC with no
# node is near every CPU, so the shield would be the whole machine.
nic=
for n in /sys/class/net/*; do [[ -e $n/device && $(cat "$n/device/numa_node" 2>/dev/null || echo -1) == -1 ]] && { nic=${n##*/}; break; }; done
if [[ -n $nic ]]; then
  run "$AFFIX" shield --dry-run "near:$nic"
  check "near:$nic (no node): read, and the whole machine refused" "2|affix: error: shielding CPUs 0-$((ncpu - 1)) leaves no online CPU to the rest of the machine" "$rc|$(grep -m1 'error' <<<"$err")"
else
  echo "note: no network device without a node here; near: is checked on pin --irq's captures"
fi
run "$AFFIX" shield --dry-run cpu:4096 -- true
check "with a command, a resolution error is 125" 125 "$rc"
run "$AFFIX" show --shield --tree 1
check "show --shield with --tree" "2|affix: error: --shield lists the shields; it takes no PID and does not go with --tree, --pinned or --irq" "$rc|$(head -n 1 <<<"$err")"
run "$AFFIX" explain --shield 0
check "explain --shield without --as systemd" "2|affix: error: --shield goes with --as systemd" "$rc|$(head -n 1 <<<"$err")"

# --- --dry-run: a plan, for this machine's way, and nothing written
last=$((ncpu - 1))
run "$AFFIX" shield --dry-run --isolated --irqs cpu:$last
if grep -q ' /sys/fs/cgroup/cpuset cgroup .*cpuset' /proc/mounts && ! grep -qw cpuset /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null &&
   ! grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  check "--dry-run: the v1 way" \
    "0|affix-shield-1: CPUs $last, exclusive cpuset, no load balancing, cgroup1 (the v1 way, as cset shield) /sys/fs/cgroup/cpuset/affix-shield-1" \
    "$rc|$(head -n 1 <<<"$out")"
  check_match "--dry-run: the system cpuset first" "*  1. make the system cpuset /sys/fs/cgroup/cpuset/affix-system*" "$out"
elif grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  check_match "--dry-run: a cgroup2 partition" "affix-shield-1: CPUs $last, isolated partition, *" "$out"
else
  check_match "--dry-run: no cpuset controller" "affix: error: no cpuset controller to fence CPUs off with: *" "$err"
fi
check_match "--dry-run: the IRQs last" "*. move every movable IRQ off CPUs $last (/proc/irq/N/smp_affinity_list), and /proc/irq/default_smp_affinity" "$out"
run "$AFFIX" shield --off affix-shield-1 --dry-run
check "--off of no shield" "1|affix: error: no shield named affix-shield-1" "$rc|$(head -n 1 <<<"$err")"

# --- show --shield: none here; one on a synthetic root
run "$AFFIX" show --shield
check "show --shield: none" "0|no shields" "$rc|$out"
run "$AFFIX" show --shield --json
check "show --shield --json: none" "0|[]" "$rc|$out"
mkdir -p "$root/proc/self" "$root/run/affix/shields" "$root/sys/fs/cgroup/db" "$root/proc/irq"
echo "24 1 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw" > "$root/proc/self/mountinfo"
printf 'affix-shield-record\t1\nname\tdb\nlayout\tcgroup2\ncgroup\t/sys/fs/cgroup/db\ncpus\t3\nmems\t\nmode\troot\nirqs\tno\nmade\t1\n' \
  > "$root/run/affix/shields/db"
echo "root invalid (Cpu list in cpuset.cpus not exclusive)" > "$root/sys/fs/cgroup/db/cpuset.cpus.partition"
echo > "$root/sys/fs/cgroup/db/cgroup.procs"
echo 'not a record' > "$root/run/affix/shields/junk"
run "$AFFIX" show --shield --root "$root"
check "show --shield --root: a shield the kernel refused" \
  "0|db  CPUs 3  root partition  cgroup2 /sys/fs/cgroup/db|  kernel    NOT HELD: root invalid (Cpu list in cpuset.cpus not exclusive) (cpuset.cpus.partition); effective CPUs unknown|  inside    none|  launcher  none: it stands until 'affix shield --off db'|  CPU 3     kernel threads that cannot move: none|            IRQs: none|            other tasks: none" \
  "$rc|$(tr '\n' '|' <<<"$out" | sed 's/|$//')"
check "and a record it cannot read, said" "affix: warning: unreadable shield record /run/affix/shields/junk: line 1: not an affix shield record" "$err"

# --- explain --shield --as systemd
run "$AFFIX" explain --shield cpu:$last --as systemd
rest=0-$((last - 1)); ((last == 1)) && rest=0
check "explain --shield --as systemd" "# /etc/systemd/system/system.slice.d/50-affix-shield.conf|[Slice]|AllowedCPUs=$rest" \
  "$(head -n 3 <<<"$out" | tr '\n' '|' | sed 's/|$//')"
check "explain --shield --as systemd: the service in the shield's slice" "[Service]|Slice=shielded.slice|AllowedCPUs=$last" \
  "$(grep -A 2 -x '\[Service\]' <<<"$out" | tr '\n' '|' | sed 's/|$//')"
check "explain --shield --as systemd: the slice on the shield's CPUs" "[Slice]|AllowedCPUs=$last" \
  "$(grep -A 2 'shielded.slice: ' <<<"$out" | tail -n 2 | tr '\n' '|' | sed 's/|$//')"
check "explain --shield --as systemd: how to check" "# check: systemctl show -p Slice -p EffectiveCPUs SERVICE  (Slice=shielded.slice, EffectiveCPUs=$last)" \
  "$(grep '^# check' <<<"$out")"

# --- Not root: refused before anything is written
anyone_dir=
nobody_affix=$(anyone_affix)
[[ $nobody_affix == "$AFFIX" ]] || anyone_dir=$(dirname "$nobody_affix")
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$nobody_affix" shield cpu:$last 2>&1); rc=$?
check_match "as nobody: refused, nothing changed" "affix: error: cannot write /*: Permission denied; nothing was changed"$'\n'"affix: hint: affix shield needs root (affix(1), PERMISSIONS)" "$out"
check "as nobody: exit 1" 1 "$rc"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$nobody_affix" shield cpu:$last -- true 2>&1); rc=$?
check "as nobody with a command: exit 125" 125 "$rc"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$nobody_affix" shield --dry-run cpu:$last 2>&1); rc=$?
check "as nobody, --dry-run needs no root" 0 "$rc"

check "nothing on this machine changed" "$before" "$(state)"
exit $fail
