# vm-topologies: 2s2c2t-2n 2s4c2t-4n
# `affix run` binds CPUs and memory: a child that touches 8 MiB (2048 pages)
# shows, in the kernel's numa_maps and move_pages, the nodes of bind,
# preferred and interleave, and its threads the CPUs.
. "$VM_LIB"
L=$((VM_NODES - 1))
all_nodes="0-$L"
sock1=$(socket_cpus 1)

# bind, the run form without the word "run"
start_load bind affix --mem bind:$L node:$L -- vmload --mb 8 --threads 2 --wait &&
  check_load "bind:$L" $PID "$(node_cpus $L)" "bind:$L" "N$L=2048"
stop_load $PID

# bind without nodes: the nodes of the selected CPUs
check_run "explain --mem bind socket:1" 0 affix explain --json --mem bind socket:1
if [ "$VM_NODES" = 2 ]; then want_nodes=1; else want_nodes=2-3; fi
check_eq "explain: mem" "{\"policy\":\"bind\",\"nodes\":\"$want_nodes\"}" "$(json '.mem' | jq -c .)"
check_eq "explain: cpus" "$sock1" "$(json .cpus)"
if [ "$VM_NODES" = 2 ]; then
  start_load bindcpus affix run --mem bind socket:1 vmload --mb 8 --wait &&
    check_load "bind (nodes of socket 1)" $PID "$sock1" "bind:1" "N1=2048"
else
  # The pages sit on node 2 or 3, wherever the thread ran when it touched them.
  start_load bindcpus affix run --mem bind socket:1 vmload --mb 8 --wait &&
    check_true "bind (nodes of socket 1): threads" all_threads_on $PID "$sock1"
  addr=$(field addr "$REPORT")
  check_eq "bind (nodes of socket 1): policy" "bind:2-3" "$(map_policy $PID "$addr")"
  pages=$(node_pages $PID "$addr")
  check_eq "bind (nodes of socket 1): 2048 pages on nodes 2-3" "2048" \
    "$(echo "$pages" | tr ' ' '\n' | awk -F= '$1 == "N2" || $1 == "N3" { s += $2 } END { print s + 0 }')"
  check_match "bind (nodes of socket 1): no other node ($pages)" "" "$(echo "$pages" | tr ' ' '\n' | grep -v '^N[23]=')"
fi
stop_load $PID

# preferred: memory on L, CPUs on node 0
start_load pref affix run --mem preferred:$L cpu:0 -- vmload --mb 8 --wait &&
  check_load "preferred:$L" $PID 0 "prefer:$L" "N$L=2048"
stop_load $PID

# interleave over every node: the pages alternate, exact shares
share=$((2048 / VM_NODES))
want=""; n=0
while [ $n -le $L ]; do want="$want${want:+ }N$n=$share"; n=$((n + 1)); done
start_load inter affix run --mem interleave:$all_nodes all -- vmload --mb 8 --wait &&
  check_load "interleave:$all_nodes" $PID "0-$((VM_CPUS - 1))" "interleave:$all_nodes" "$want"
stop_load $PID

# local: the policy of the CPUs' node
start_load local affix run --mem local node:$L -- vmload --mb 8 --wait &&
  check_load "local" $PID "$(node_cpus $L)" "local" "N$L=2048"
stop_load $PID

# Nothing half-applied: a node that does not exist is refused before the exec.
check_run "--mem bind:9 refused" 125 affix run --mem bind:9 node:0 -- touch ran
check_match "error text" "affix: error: *" "$ERR"
check_true "command not started" [ ! -e ran ]
# --env exports the placement
check_run "--env" 0 affix run --env --mem bind node:$L -- sh -c 'echo "$AFFIX_CPUS $AFFIX_NODES $OMP_NUM_THREADS"'
check_eq "--env values" "$(node_cpus $L) $L 4" "$OUT"
finish
