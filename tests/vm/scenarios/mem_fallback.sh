# vm-topologies: 2s2c2t-3n-memless 2s2c2t-3n-cpuless
# Memory on machines where CPUs and memory do not pair up.
# memless: node 2 (CPUs 6-7) has no memory; by its distance row (20 15 10)
#   the nearest node with memory is node 1, not the lowest-numbered node 0.
# cpuless: node 2 has memory and no CPUs; it is reachable only by name.
# The errors say which (no memory; no CPUs), and show reports the policy.
. "$VM_LIB"

case $VM_TOPOLOGY in
*memless)
  check_eq "kernel: node 2 has no memory" "0-1" "$(cat /sys/devices/system/node/has_memory)"
  check_run "explain --mem bind node:2" 0 affix explain --json --mem bind node:2
  check_eq "memoryless node 2 stands for node 1" '{"policy":"bind","nodes":"1"}' "$(json .mem | jq -c .)"
  check_eq "cpus of node 2" "6-7" "$(json .cpus)"
  start_load memless affix run --mem bind node:2 -- vmload --mb 8 --wait &&
    check_load "bind on node 2's CPUs" $PID 6-7 "bind:1" "N1=2048"
  stop_load $PID

  # Socket 1 = nodes 1 and 2; node 2 falls back to node 1 as well.
  check_run "explain --mem interleave socket:1" 0 affix explain --json --mem interleave socket:1
  check_eq "socket 1: memory on node 1 only" '{"policy":"interleave","nodes":"1"}' "$(json .mem | jq -c .)"
  # Socket 0 + node 2: nodes 0 and 1
  check_run "explain --mem bind socket:0+node:2" 0 affix explain --json --mem bind socket:0+node:2
  check_eq "socket 0 + node 2: nodes 0-1" '{"policy":"bind","nodes":"0-1"}' "$(json .mem | jq -c .)"

  # Without --mem the kernel's own fallback puts node 2's pages on node 1
  # too: what affix says agrees with what the kernel does.
  start_load kernel affix run node:2 -- vmload --mb 8 --wait &&
    check_load "no --mem on node 2's CPUs" $PID 6-7 "default" "N1=2048"
  stop_load $PID

  # Naming the memoryless node itself cannot be honoured: refused, not run.
  check_run "--mem bind:2 refused" 125 affix run --mem bind:2 node:2 -- touch ran
  check_eq "error text: no memory, and the nearest node that has some" \
    "affix: error: node 2 has no memory
affix: hint: the nearest node with memory is 1" "$ERR"
  check_true "command not started" [ ! -e ran ]
  ;;
*cpuless)
  check_eq "kernel: node 2 has no CPUs" "0-1" "$(cat /sys/devices/system/node/has_cpu)"
  start_load cxl affix run --mem bind:2 node:0 -- vmload --mb 8 --wait &&
    check_load "bind:2 from node 0's CPUs" $PID 0-3 "bind:2" "N2=2048" &&
    check_eq "show: mem_policy as numa_maps says it" "bind:2" "$(affix show --json $PID | jq -r '.[0].mem_policy')"
  stop_load $PID
  start_load inter affix run --mem interleave:0-2 socket:1 -- vmload --mb 3 --wait &&
    check_load "interleave:0-2" $PID 4-7 "interleave:0-2" "N0=256 N1=256 N2=256" &&
    check_match "show: the policy in text" "* mem policy interleave:0-2 *" "$(affix show $PID | head -1)"
  stop_load $PID
  # Without nodes: the CPUs' nodes only, never the CPU-less one.
  check_run "explain --mem bind all" 0 affix explain --json --mem bind all
  check_eq "all CPUs: nodes 0-1" '{"policy":"bind","nodes":"0-1"}' "$(json .mem | jq -c .)"
  # A node with no CPUs selects no CPUs: an empty selection is an error.
  check_run "node:2 selects nothing" 2 affix explain node:2
  check_eq "error text: no CPUs, use it for memory" \
    "affix: error: node 2 has no CPUs
affix: hint: a node without CPUs only holds memory: '--mem bind:2' puts memory there, with CPUs from another node" "$ERR"
  ;;
esac
finish
