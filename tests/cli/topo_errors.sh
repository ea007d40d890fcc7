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
expect 2 "affix: error: The following argument was not expected: --bogus
affix: hint: see 'affix topo --help'" -- topo --bogus
expect 2 "affix: error: --root: 1 required DIR missing
affix: hint: see 'affix topo --help'" -- topo --root
expect 2 "affix: error: The following argument was not expected: extra
affix: hint: see 'affix topo --help'" -- topo extra
# A flag takes no value (CLI11 would take --json=3 as "yes").
expect 2 "affix: error: option '--json' takes no value
affix: hint: see 'affix topo --help'" -- topo --json=3
expect 2 "affix: error: option '--json' takes no value
affix: hint: see 'affix show --help'" -- show --json=1 1
expect 2 "affix: error: option '--pinned' takes no value
affix: hint: see 'affix show --help'" -- show --pinned=yes
# A root that is a file, and a cpu directory full of junk: errors, not crashes.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
touch "$tmp/file"
expect 1 "affix: error: $tmp/file: no such directory" -- topo --root "$tmp/file"
mkdir -p "$tmp/junk/sys/devices/system/cpu/cpu0/topology"
head -c 3000 /dev/urandom > "$tmp/junk/sys/devices/system/cpu/online"
err=$("$AFFIX" topo --root "$tmp/junk" 2>&1 >/dev/null); rc=$?
case "$err" in "affix: error: $tmp/junk/sys/devices/system/cpu/online: "*) ;; *) echo "FAIL: junk online: $err"; fail=1 ;; esac
[ "$rc" = 1 ] || { echo "FAIL: junk online exit $rc"; fail=1; }
# --help prints the options and succeeds.
out=$("$AFFIX" topo --help) || { echo "FAIL: topo --help exit $?"; fail=1; }
case "$out" in *"--root DIR"*"--json"*|*"--json"*"--root DIR"*) ;; *) echo "FAIL: topo --help: $out"; fail=1 ;; esac
exit $fail
