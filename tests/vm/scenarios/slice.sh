# vm-topologies: 2s4c2t-4n
# --slice K/4 over 4 nodes gives node-aligned slices; --slice rank reads the
# launcher's local rank; --order scatter spreads over nodes; `show --pinned`
# lists what was pinned.
. "$VM_LIB"
k=0
while [ $k -lt 4 ]; do
  check_run "explain --slice $k/4 all" 0 affix explain --json --slice $k/4 all
  check_eq "slice $k = node $k" "$(node_cpus $k)" "$(json .cpus)"
  check_eq "slice $k nodes" "$k" "$(json .nodes)"
  k=$((k + 1))
done
# 8 cores in 3 parts: 3, 3, 2 cores.
check_run "explain --slice 0/3" 0 affix explain --json --slice 0/3 all
check_eq "slice 0/3" "0-5" "$(json .cpus)"
check_run "explain --slice 2/3" 0 affix explain --json --slice 2/3 all
check_eq "slice 2/3" "12-15" "$(json .cpus)"
check_run "more slices than cores" 2 affix explain --slice 0/9 all
check_match "error text" "affix: error: *" "$ERR"
check_run "--slice rank (Open MPI)" 0 env OMPI_COMM_WORLD_LOCAL_RANK=3 OMPI_COMM_WORLD_LOCAL_SIZE=4 \
  affix run --slice rank all -- grep Cpus_allowed_list /proc/self/status
check_match "rank 3 of 4" "*12-15" "$OUT"
check_run "--slice rank without a launcher" 125 affix run --slice rank all -- true

check_run "--order scatter -n 4" 0 affix explain --json --order scatter -n 4 all
check_eq "one core per node" "0,4,8,12" "$(json .cpus)"
check_run "--order compact -n 4" 0 affix explain --json -n 4 all
check_eq "compact: first threads of cores 0-3" "0,2,4,6" "$(json .cpus)"

# One process per slice, with memory bound to its slice's node.
pids=""
k=0
while [ $k -lt 4 ]; do
  start_load slice$k affix run --slice $k/4 --mem bind all -- vmload --mb 4 --threads 2 --wait &&
    check_load "slice $k process" $PID "$(node_cpus $k)" "bind:$k" "N$k=1024"
  pids="$pids $PID"
  k=$((k + 1))
done
vmload --wait --ready free.ready & free=$!
wait_for free.ready

check_run "show --pinned --json" 0 affix show --pinned --json
k=0
for p in $pids; do
  check_eq "pinned: $p on node $k" "$(node_cpus $k)" "$(json ".[] | select(.pid == $p) | .cpus")"
  check_eq "pinned: $p threads" "2" "$(json ".[] | select(.pid == $p) | .threads | length")"
  k=$((k + 1))
done
check_eq "an unpinned process is not listed" "" "$(json ".[] | select(.pid == $free) | .pid")"
check_run "show --pinned (text)" 0 affix show --pinned
for p in $pids; do
  check_match "text lists $p" "*$p*" "$OUT"
done
for p in $pids $free; do stop_load $p; done
finish
