#!/usr/bin/env bash
# affix topo: roots whose CPUs cannot be read exit 1 with `affix: error:`
# naming the file and the problem; an odd attribute file is a warning (exit
# 0); usage errors exit 2; never a crash.
set -u
roots="$AFFIX_SOURCE_DIR/tests/data/roots"
fail=0
expect() {  # expect STATUS STDERR -- ARGS...
  local status=$1 want=$2; shift 3
  local err rc
  err=$("$AFFIX" "$@" 2>&1 >/dev/null); rc=$?
  if [ "$rc" != "$status" ] || [ "$err" != "$want" ]; then
    echo "FAIL: affix $*"; echo "  status $rc, want $status"; echo "  stderr: $err"; echo "  want:   $want"; fail=1
  fi
}
expect 1 "affix: error: /nonexistent-root: no such directory" -- topo --root /nonexistent-root
expect 1 "affix: error: $roots/no-cpus/sys/devices/system/cpu: no CPUs found" -- topo --root "$roots/no-cpus"
expect 1 "affix: error: $roots/bad-online/sys/devices/system/cpu/online: invalid cpulist '1-0': reversed range 1-0 at offset 2" \
  -- topo --root "$roots/bad-online"
# An odd attribute file: left out; topo warns, exits 0; other commands are quiet.
expect 0 "affix: warning: $roots/bad-package-id/sys/devices/system/cpu/cpu1/topology/physical_package_id: expected a number from -1 to 1048576, found '-7' (left out)" \
  -- topo --json --root "$roots/bad-package-id"
expect 0 "" -- explain --root "$roots/bad-package-id" all
expect 0 "affix: warning: $roots/bad-distance/sys/devices/system/node/node0/distance: 'ten' is not a distance (0 to 1000) (left out)" \
  -- topo --root "$roots/bad-distance"
expect 0 "affix: warning: $roots/bad-meminfo/sys/devices/system/node/node0/meminfo: MemTotal is not a number of kB: '-5' (left out)" \
  -- topo --root "$roots/bad-meminfo"
# One voice: the same mistake in the same words as pin, run and explain
# (one tokenizer reads every command), with the usage as the hint,
# or the nearest option where one is close.
topo_usage="affix: hint: usage: affix topo [--json | --svg [FILE] | --ascii] [--root DIR]; see 'affix topo --help'"
show_usage="affix: hint: usage: affix show [--json] [--svg[=FILE]] [--tree] [--pinned | --cpu LIST | --irq] [--root DIR] [PID... | DEVICE...]; see 'affix show --help'"
expect 2 "affix: error: unknown option '--bogus' for 'topo'
$topo_usage" -- topo --bogus
expect 2 "affix: error: unknown option '--bogus' for 'show'
$show_usage" -- show --bogus
expect 2 "affix: error: unknown option '--bogus' for 'pin'
affix: hint: usage: affix pin [OPTIONS] WHERE PID...; see 'affix pin --help'" -- pin --bogus 0 1
expect 2 "affix: error: unknown option '--jsn' for 'topo'
affix: hint: did you mean '--json'?" -- topo --jsn
expect 2 "affix: error: unknown option '--pined' for 'show'
affix: hint: did you mean '--pinned'?" -- show --pined
expect 2 "affix: error: unknown option '--jsn' for 'explain'
affix: hint: did you mean '--json'?" -- explain --jsn all
expect 2 "affix: error: unknown option '--no-smtt' for 'explain'
affix: hint: did you mean '--no-smt'?" -- explain all --no-smtt
expect 2 "affix: error: unknown option '-x' for 'topo'
$topo_usage" -- topo -x
expect 2 "affix: error: option '--root' needs a value
$topo_usage" -- topo --root
expect 2 "affix: error: option '--root' needs a value
$topo_usage" -- topo --root= --json
expect 2 "affix: error: option '--root' needs a value
$show_usage" -- show --root ''
expect 2 "affix: error: option '--root' given twice
$topo_usage" -- topo --root / --root /
expect 2 "affix: error: unexpected argument 'extra' for 'topo'
$topo_usage" -- topo extra
# A flag takes no value (--json=3 is no "yes").
expect 2 "affix: error: option '--json' takes no value
$topo_usage" -- topo --json=3
expect 2 "affix: error: option '--json' takes no value
$show_usage" -- show --json=1 1
expect 2 "affix: error: option '--pinned' takes no value
$show_usage" -- show --pinned=yes
# A root that is a file, and a cpu directory full of junk: errors, not crashes.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
touch "$tmp/file"
expect 1 "affix: error: $tmp/file: no such directory" -- topo --root "$tmp/file"
mkdir -p "$tmp/junk/sys/devices/system/cpu/cpu0/topology"
head -c 3000 /dev/urandom > "$tmp/junk/sys/devices/system/cpu/online"
err=$("$AFFIX" topo --root "$tmp/junk" 2>&1 >/dev/null); rc=$?
case "$err" in "affix: error: $tmp/junk/sys/devices/system/cpu/online: "*) ;; *) echo "FAIL: junk online: $err"; fail=1 ;; esac
[ "$rc" = 1 ] || { echo "FAIL: junk online exit $rc"; fail=1; }
# A 288 KB mask that is not one: the warning quotes 80 bytes of it, escaped.
mkdir -p "$tmp/long/sys/devices/system/cpu/cpu0/topology" "$tmp/long/sys/devices/system/cpu/cpu1/topology"
echo 0-1 > "$tmp/long/sys/devices/system/cpu/online"
{ for _ in $(seq 32767); do printf 'ffffffff,'; done; printf 'ffffffff\n'; } > "$tmp/long/sys/devices/system/cpu/cpu0/topology/core_cpus"
echo 3 > "$tmp/long/sys/devices/system/cpu/cpu1/topology/core_cpus"
expect 0 "affix: warning: $tmp/long/sys/devices/system/cpu/cpu0/topology/core_cpus: invalid cpu mask '$(printf 'ffffffff,%.0s' 1 2 3 4 5 6 7 8)ffffffff...': bit beyond 65535 at offset 0 (left out)" \
  -- topo --root "$tmp/long"
printf '1\e]0\a\n' > "$tmp/long/sys/devices/system/cpu/cpu0/topology/core_cpus"
expect 0 "affix: warning: $tmp/long/sys/devices/system/cpu/cpu0/topology/core_cpus: invalid cpu mask '1\\e]0\\x07': unexpected '\\e' at offset 1 (left out)" \
  -- topo --root "$tmp/long"
# A symlink loop where a CPU's topology is: a warning, not a silent "0 sockets".
mkdir -p "$tmp/loop/sys/devices/system/cpu/cpu0"
echo 0 > "$tmp/loop/sys/devices/system/cpu/online"
ln -s topology "$tmp/loop/sys/devices/system/cpu/cpu0/topology"
expect 0 "affix: warning: $tmp/loop/sys/devices/system/cpu/cpu0/topology: cannot read: Too many levels of symbolic links (left out)" \
  -- topo --root "$tmp/loop"
# One CPU, one core: singular words.
mkdir -p "$tmp/one/sys/devices/system/cpu/cpu0/topology"
echo 0 > "$tmp/one/sys/devices/system/cpu/online"
echo 1 > "$tmp/one/sys/devices/system/cpu/cpu0/topology/core_cpus"
echo 0 > "$tmp/one/sys/devices/system/cpu/cpu0/topology/physical_package_id"
out=$("$AFFIX" topo --root "$tmp/one" | head -1)
[ "$out" = "machine    1 CPU (1 online), 1 socket, 1 node, 1 core, SMT 1" ] || { echo "FAIL: one CPU: $out"; fail=1; }
# --help prints the options and succeeds.
out=$("$AFFIX" topo --help) || { echo "FAIL: topo --help exit $?"; fail=1; }
case "$out" in *"--root DIR"*"--json"*|*"--json"*"--root DIR"*) ;; *) echo "FAIL: topo --help: $out"; fail=1 ;; esac
exit $fail
