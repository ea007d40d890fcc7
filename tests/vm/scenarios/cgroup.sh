# vm-topologies: 2s2c2t-2n
# A cgroup v2 cpuset (CPUs 2-5, memory node 1) restricts what affix may use:
# explain names the source, explicit CPUs and nodes outside are refused,
# larger units are intersected.
. "$VM_LIB"
cg=/sys/fs/cgroup/affix-test
echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
mkdir $cg && echo 2-5 > $cg/cpuset.cpus && echo 1 > $cg/cpuset.mems
check_eq "kernel: effective cpus" "2-5" "$(cat $cg/cpuset.cpus.effective)"
# inside CMD...: run CMD as a member of the cgroup (a script, not a
# function, so that a background `inside` has the PID of CMD).
printf '#!/bin/sh\necho $$ > %s/cgroup.procs && exec "$@"\n' $cg > inside
chmod +x inside
PATH=$PWD:$PATH

check_run "explain socket:0 inside" 0 inside affix explain --json socket:0
check_eq "cpus: socket 0 & cpuset" "2-3" "$(json .cpus)"
check_eq "allowed cpus" "2-5" "$(json .allowed.cpus)"
check_eq "allowed nodes" "1" "$(json .allowed.nodes)"
check_eq "allowed source" "cgroup2:$cg/cpuset.cpus.effective" "$(json .allowed.source)"
check_eq "dropped" '[{"cpus":"0-1","reason":"not-allowed"}]' "$(json .dropped | jq -c '[.[] | {cpus, reason}]')"

check_run "explicit cpu:1 refused" 2 inside affix explain cpu:1
check_match "says which CPU and why" "affix: error: *1*not allowed*" "$ERR"
check_run "explicit 4-7 refused" 2 inside affix explain 4-7
check_match "says which CPU and why" "affix: error: *6*not allowed*" "$ERR"
check_run "run cpu:0 refused" 125 inside affix run cpu:0 -- touch ran
check_true "command not started" [ ! -e ran ]

check_run "run all inside" 0 inside affix run all -- grep Cpus_allowed_list /proc/self/status
check_match "all = the cpuset" "*2-5" "$OUT"
check_run "run socket:1 inside" 0 inside affix run socket:1 -- grep Cpus_allowed_list /proc/self/status
check_match "socket 1 & cpuset" "*4-5" "$OUT"

# cpuset.mems: node 0 is not allowed, node 1 is.
check_run "--mem bind:0 refused" 125 inside affix run --mem bind:0 socket:0 -- touch ran
check_match "error text" "affix: error: *" "$ERR"
check_true "command not started" [ ! -e ran ]
check_run "explain --mem bind:0 refused" 2 inside affix explain --mem bind:0 socket:0
# The refusal names the file the memory nodes came from, not the CPUs' file.
check_eq "says which node, why, and from which file" \
  "affix: error: memory node 0 is not allowed (allowed: 1, from cgroup2:$cg/cpuset.mems.effective)" "$ERR"
# Without nodes: socket 0's node 0 is not allowed; its nearest allowed node stands for it.
check_run "explain --mem bind socket:0" 0 inside affix explain --json --mem bind socket:0
check_eq "memory on the allowed node" '{"policy":"bind","nodes":"1"}' "$(json .mem | jq -c .)"
start_load mems inside affix run --mem bind:1 socket:0 -- vmload --mb 8 --wait &&
  check_load "bind:1 inside" $PID 2-3 "bind:1" "N1=2048"
stop_load $PID

# topo marks what the cgroup forbids.
check_run "topo inside" 0 inside affix topo --json
check_eq "allowed flags" "false false true true true true false false" "$(json '[.cpus[].allowed | tostring] | join(" ")')"
# Outside the cgroup nothing is restricted.
check_run "explain socket:0 outside" 0 affix explain --json socket:0
check_eq "outside: socket 0" "0-3" "$(json .cpus)"
finish
