# vm-topologies: 2s2c2t-2n
# --no-smt with SMT on keeps the first thread of each core; with SMT off in
# the kernel (smt/control) the second threads are gone and --no-smt is a no-op.
. "$VM_LIB"
ctl=/sys/devices/system/cpu/smt/control
check_eq "kernel: smt on" "on" "$(cat $ctl)"

check_run "explain --no-smt all" 0 affix explain --json --no-smt all
check_eq "one thread per core" "0,2,4,6" "$(json .cpus)"
check_eq "dropped for smt" '[{"cpus":"1,3,5,7","reason":"smt"}]' "$(json .dropped | jq -c '[.[] | {cpus, reason}]')"
check_run "run --no-smt socket:1" 0 affix run --no-smt socket:1 -- grep Cpus_allowed_list /proc/self/status
check_match "socket 1, first threads" "*4,6" "$OUT"
check_run "--no-smt -n 3" 0 affix explain --json --no-smt -n 3 all
check_eq "three cores" "0,2,4" "$(json .cpus)"
check_run "core:3.cpu:1" 0 affix explain --json core:3.cpu:1
check_eq "second thread of core 3" "7" "$(json .cpus)"
check_run "topo smt on" 0 affix topo --json
check_eq "smt 2" "2" "$(json .smt)"

echo off > $ctl
check_eq "kernel: siblings offline" "0,2,4,6" "$(cat /sys/devices/system/cpu/online)"
check_run "topo smt off" 0 affix topo --json
check_eq "smt 1" "1" "$(json .smt)"
check_eq "cpu 1 offline" "false" "$(json '.cpus[1].online')"
check_run "explain all" 0 affix explain --json all
check_eq "all = first threads" "0,2,4,6" "$(json .cpus)"
check_run "explain --no-smt socket:0" 0 affix explain --json --no-smt socket:0
check_eq "--no-smt with SMT off" "0,2" "$(json .cpus)"
check_eq "nothing dropped for smt" "" "$(json '.dropped[] | select(.reason == "smt") | .cpus')"
check_run "cpu:1 refused" 2 affix explain cpu:1
check_match "says offline" "affix: error: *1*offline*" "$ERR"
check_run "run socket:1" 0 affix run socket:1 -- grep Cpus_allowed_list /proc/self/status
check_match "socket 1 with SMT off" "*4,6" "$OUT"

echo on > $ctl
check_eq "kernel: smt back on" "0-7" "$(cat /sys/devices/system/cpu/online)"
check_run "explain all, SMT on again" 0 affix explain --json all
check_eq "every CPU again" "0-7" "$(json .cpus)"
finish
