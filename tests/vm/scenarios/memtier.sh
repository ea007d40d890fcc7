# vm-topologies: 2s2c2t-3n-hmat
# vm-kernel: 6.12
# Memory that is not all alike, on Linux 6.12 with ACPI HMAT: node 2 is
# memory without CPUs (a CXL expander) that node 0's CPUs reach slower. The
# kernel puts it in a memory tier of its own; topo shows that tier and the
# HMAT figures QEMU was given; tier: selects it; --mem weighted interleaves
# by the kernel's weights, which affix writes (as root, all or nothing) and
# reads back; watch shows the pages against the weights; pin --migrate
# spreads pages by them (pin --weights writes them first, pin --check
# --weights compares them); a user who is not root is refused before
# anything.
. "$VM_LIB"
wdir=/sys/kernel/mm/mempolicy/weighted_interleave
tiers=/sys/devices/virtual/memory_tiering
weights() { echo "$(cat $wdir/node0) $(cat $wdir/node1) $(cat $wdir/node2)"; }
tier_of() { for t in $tiers/memory_tier*; do in_list "$1" "$(cat "$t/nodelist")" && echo "${t##*memory_tier}"; done; }
hmat_of() { d=/sys/devices/system/node/node$1/access1/initiators; echo "$(cat $d/read_bandwidth) $(cat $d/write_bandwidth) $(cat $d/read_latency) $(cat $d/write_latency) $(ls $d | grep node)"; }

# The kernel's view first: the harness gave what this scenario expects.
check_eq "kernel: node 2 has no CPUs" "0-1" "$(cat /sys/devices/system/node/has_cpu)"
check_eq "kernel: node 2's HMAT from node 0" "10000 8000 250 300 node0" "$(hmat_of 2)"
check_eq "kernel: node 0's HMAT" "12000 12000 100 100 node0" "$(hmat_of 0)"
check_eq "kernel: node 2's memory-side cache (hmat-cache)" "16777216" \
  "$(cat /sys/devices/system/node/node2/memory_side_cache/index1/size)"
t0=$(tier_of 0) t2=$(tier_of 2)
check_eq "kernel: nodes 0 and 1 share a tier" "$t0" "$(tier_of 1)"
check_true "kernel: node 2 in a tier of its own ($t0, $t2)" [ -n "$t2" -a "$t2" != "$t0" ]
check_eq "kernel: weights 1, no auto mode (before 6.16)" "1 1 1" "$(weights)"
check_true "kernel: no auto mode file" [ ! -e $wdir/auto ]

# topo: each node's tier and HMAT figures, read back from the kernel.
check_run "topo --json" 0 affix topo --json
check_eq "topo: tiers" "[{\"tier\":$t0,\"nodes\":\"0-1\"},{\"tier\":$t2,\"nodes\":\"2\"}]" "$(json .tiers | jq -c .)"
check_eq "topo: node 2" "{\"tier\":$t2,\"kind\":null,\"hmat\":{\"access\":1,\"read_bandwidth_mbs\":10000,\"write_bandwidth_mbs\":8000,\"read_latency_ns\":250,\"write_latency_ns\":300,\"initiators\":\"0\"},\"interleave_weight\":1}" \
  "$(json '.nodes[2] | {tier, kind, hmat, interleave_weight}' | jq -c .)"
check_eq "topo: node 0's bandwidth" "12000 12000" "$(json '.nodes[0].hmat | "\(.read_bandwidth_mbs) \(.write_bandwidth_mbs)"')"
check_run "topo" 0 affix topo
check_match "topo text: the tiers" "*
tiers      $t0 (nodes 0-1), $t2 (node 2)
weights    0:1 1:1 2:1
*" "$OUT"
check_match "topo text: node 2's row" "*
           2     $t2    -          10000      8000        250      300       0*" "$OUT"

# tier: selects the expander; its pages land there.
check_run "explain --mem bind:tier:$t2" 0 affix explain --json --mem bind:tier:$t2 node:0
check_eq "explain: the tier's nodes" "{\"policy\":\"bind\",\"nodes\":\"2\",\"terms\":[{\"term\":\"tier:$t2\",\"nodes\":\"2\"}]}" \
  "$(json .mem | jq -c .)"
start_load tier affix --mem bind:tier:$t2 node:0 -- vmload --mb 8 --wait &&
  check_load "bind:tier:$t2" $PID 0-3 "bind:2" "N2=2048"
stop_load $PID
check_run "no such tier" 2 affix explain --mem bind:tier:3 node:0
check_eq "no such tier: the error" "affix: error: no memory tier 3 on this machine (tiers: $t0,$t2)
affix: hint: 'affix topo' shows each node's tier (the kernel's numbers: a lower one is faster memory)" "$ERR"
check_run "mem:cxl where nothing says so" 2 affix explain --mem bind:mem:cxl node:0
check_eq "mem:cxl: the error" "affix: error: the machine does not say which memory is cxl: no node's kind is known
affix: hint: 'affix topo' shows each node's kind, found as hwloc finds it; name the nodes instead (--mem POLICY:NODES)" "$ERR"

# --mem weighted without nodes: node 0 and the memory its CPUs are the
# initiators of; the weights the kernel has.
check_run "explain --mem weighted" 0 affix explain --mem weighted node:0
check_match "explain: nodes 0,2" "*
memory    weighted interleave on nodes 0,2
weights   node 0: 1, node 2: 1 (the kernel's)
*" "$OUT"

# Weights 3:1 written (a warning says they are the machine's), read back,
# then the policy: 4096 touched pages, 3072 on node 0 and 1024 on node 2.
start_load w31 affix -v --mem weighted:0,2 --weights 0=3,2=1 node:0 -- vmload --mb 16 --wait &&
  check_load "weighted 3:1" $PID 0-3 "weighted interleave:0,2" "N0=3072 N2=1024"
check_eq "weights written and read back" "3 1 1" "$(weights)"
check_eq "-v: the warning, the weights read back, the rest" "affix: warning: writing the machine's interleave weights (node 0: 1 -> 3): every process's weighted interleave on this machine uses them from now on, not only this command's
affix: set interleave weights node 0: 3, node 2: 1 (read back from the kernel)
affix: set memory policy weighted interleave on nodes 0,2
affix: bind to CPUs 0-3 (4 CPUs; socket 0; node 0)
affix: exec: vmload --mb 16 --wait --ready w31.ready" "$(cat w31.log)"
check_run "pin --check --mem weighted:0,2" 0 affix pin --check --mem weighted:0,2 node:0 $PID
check_eq "pin --check: the policy" "$PID: 1 thread within CPUs 0-3
  $PID: memory policy weighted interleave:0,2, as asked (weighted interleave:0,2)" "$OUT"
check_run "pin --check --weights as they are" 0 affix pin --check --mem weighted:0,2 --weights 0=3,2=1 node:0 $PID
check_eq "pin --check --weights: as asked" "interleave weights node 0: 3, node 2: 1, as asked (given with --weights)" \
  "$(echo "$OUT" | tail -n 1)"
check_run "pin --check --weights others" 1 affix pin --check --mem weighted:0,2 --weights 0=2 node:0 $PID
check_eq "pin --check --weights: not as asked" "interleave weights node 0: 3 (asked: 2), node 2: 1, not as asked (given with --weights)" \
  "$(echo "$OUT" | tail -n 1)"
check_run "watch --json" 0 affix watch -i 0.5 -c 1 --json $PID
line=$(echo "$OUT" | head -n 1)
check_eq "watch: the weights read back" '{"0":3,"2":1}' "$(printf '%s' "$line" | jq -c '.processes[0].weighted.weights')"
wp0=$(printf '%s' "$line" | jq '.processes[0].weighted.pages["0"]')
wp2=$(printf '%s' "$line" | jq '.processes[0].weighted.pages["2"]')
# The buffer's pages, and the few of its stack, heap and data.
check_true "watch: the buffer's pages and a few more ($wp0, $wp2)" \
  [ "$wp0" -ge 3072 -a "$wp2" -ge 1024 -a $((wp0 - 3072 + wp2 - 1024)) -lt 128 ]
check_run "watch" 0 affix watch -i 0.5 -c 1 $PID
check_match "watch: pages against weights" "*
        weighted 0:3 2:1 = 75.0% 25.0%; pages 0:$wp0 2:$wp2 = 7?.?% 2?.?%
*" "$OUT"
stop_load $PID

# --weights auto without the kernel's auto mode (6.12): from the HMAT
# bandwidths (12000, 12000, 8000: 3:3:2) as the kernel's auto mode computes
# them; 5120 pages split 3:2.
check_run "explain --weights auto" 0 affix explain --mem weighted:0,2 --weights auto node:0
check_match "explain: weights from HMAT" "*
weights   node 0: 3, node 2: 2 (now 1) (from HMAT bandwidth: 12000, 8000 MB/s, as the kernel's auto mode computes them)
*" "$OUT"
start_load auto affix --mem weighted:0,2 --weights auto node:0 -- vmload --mb 20 --wait &&
  check_load "weighted auto" $PID 0-3 "weighted interleave:0,2" "N0=3072 N2=2048"
stop_load $PID
check_eq "auto: node 1 untouched" "3 1 2" "$(weights)"

# Not root: refused before anything is written, and nothing runs.
check_run "not root: refused" 125 run_as 65534 affix --mem weighted:0,2 --weights 0=5,2=1 node:0 -- touch /tmp/memtier-ran
check_eq "not root: the error" "affix: warning: writing the machine's interleave weights (node 0: 3 -> 5, node 2: 2 -> 1): every process's weighted interleave on this machine uses them from now on, not only this command's
affix: error: cannot write the interleave weight of node 0: Permission denied; nothing was written
affix: hint: the interleave weights are the machine's, for every process: writing them needs root" "$ERR"
check_eq "not root: weights unchanged" "3 1 2" "$(weights)"
check_true "not root: not started" [ ! -e /tmp/memtier-ran ]
# Weights already so: nothing to write, a user runs.
check_run "not root, weights as they are" 0 run_as 65534 affix --mem weighted:0,2 --weights 0=3 node:0 -- grep -c 'weighted interleave:0,2' /proc/self/numa_maps
check_true "not root: its mappings under weighted interleave ($OUT)" [ "$OUT" -gt 3 ]

# A command that does not start leaves the weights as they were.
check_run "exec fails: 127" 127 affix --mem weighted:0,2 --weights 0=7 node:0 -- /nonexistent
check_eq "exec fails: weights put back" "3 1 2" "$(weights)"

# pin --migrate: a process's pages, all on node 0, spread by the weights
# the kernel has (3:2): 5120 pages, in the kernel's order 0,0,0,2,2.
start_load mig affix --mem bind:0 node:0 -- vmload --mb 20 --wait &&
  check_load "bound to node 0" $PID 0-3 "bind:0" "N0=5120"
check_run "pin --migrate --mem weighted:0,2" 0 affix pin --migrate --mem weighted:0,2 node:0 $PID
addr=$(field addr "$REPORT")
check_eq "pin --migrate: the buffer 3:2" "N0=3072 N2=2048" "$(node_pages $PID "$addr")"
stop_load $PID

# pin --weights: the weights written once the threads moved (the warning
# first, read back), then the pages spread by them: 1:1, 2560 on each.
start_load mig2 affix --mem bind:0 node:0 -- vmload --mb 20 --wait &&
  check_load "bound to node 0 again" $PID 0-3 "bind:0" "N0=5120"
check_run "pin --migrate --weights 0=1,2=1" 0 affix pin --migrate --mem weighted:0,2 --weights 0=1,2=1 node:0 $PID
check_eq "pin --weights: the warning" "affix: warning: writing the machine's interleave weights (node 0: 3 -> 1, node 2: 2 -> 1): every process's weighted interleave on this machine uses them from now on, not only this command's" "$ERR"
check_match "pin --weights: read back" "*
set interleave weights node 0: 1, node 2: 1 (read back from the kernel)
*" "$OUT"
check_eq "pin --weights: written" "1 1 1" "$(weights)"
addr=$(field addr "$REPORT")
check_eq "pin --weights: the buffer 1:1" "N0=2560 N2=2560" "$(node_pages $PID "$addr")"
check_eq "pin --weights: its CPUs" "$PID=0-3" "$(cpus_of $PID)"
# A user's pin whose weights would change: refused after the threads
# moved, before any weight; the threads go back.
run_as 65534 sleep 100 & sleeper=$!
wait_until "the sleeper is nobody's" sh -c "grep -q '^Uid:[[:space:]]*65534' /proc/$sleeper/status"
check_run "not root: pin --weights refused" 1 run_as 65534 affix pin --migrate --mem weighted:0,2 --weights 0=4 node:1 $sleeper
check_eq "not root: the error" "affix: error: cannot write the interleave weight of node 0: Permission denied; nothing was written; every thread was put back on its old CPU list" \
  "$(echo "$ERR" | grep error)"
check_eq "not root: its CPUs as they were" "$sleeper=0-7" "$(cpus_of $sleeper)"
check_eq "not root: weights unchanged" "1 1 1" "$(weights)"
kill $sleeper; wait $sleeper
stop_load $PID
finish
