# vm-topologies: 2s2c2t-2n 2s4c2t-4n
# `affix top --once --json` on a machine of several nodes: a spinner pinned
# to one CPU shows that CPU busy >= 80% and its TID under it; the spinner
# moved once during the interval (affix pin --tid) to the first CPU of the
# last node counts exactly one move, at the level between the two CPUs
# (2s2c2t-2n: the nodes are the sockets, so `socket`; 2s4c2t-4n: two nodes
# per socket, the first CPU of node 1 is on socket 0 with CPU 1, so
# `node`), migrations_per_s.<level> * interval = 1 and 0 at every other
# level. Every node's CPUs are in the frame with their node number. As root
# the frames come from the scheduler's switch events; --no-events reads
# /proc and finds the same spinner on its new CPU.
. "$VM_LIB"
affix topo --json > topo.json
level_of() {
  jq -r --argjson a "$1" --argjson b "$2" '.cpus[$a] as $x | .cpus[$b] as $y |
    if $x.socket != $y.socket then "socket" elif $x.node != $y.node then "node"
    elif $x.llc != $y.llc then "llc" elif $x.core != $y.core then "core" else "smt" end' topo.json
}
affix 1 -- sh -c 'while :; do :; done' &
spin=$!
sleep 0.5
capture affix top --once --json -i 2
check_eq "top --once --json: exit 0, no error" "0 " "$RC $ERR"
# As root, on every CPU, none isolated: the scheduler's switch events.
check_eq "the frame from the scheduler's events" "events" "$(json '.source')"
check_eq "CPU 1 busy >= 80%" "true" "$(json '.cpus[] | select(.cpu == 1) | .busy >= 80')"
check_eq "the spinner's TID under CPU 1" "$spin" "$(json ".cpus[] | select(.cpu == 1) | .threads[] | select(.tid == $spin) | .pid")"
check_eq "its process: allowed 1, pinned, no move" "1 true 0" \
  "$(json ".processes[] | select(.pid == $spin) | \"\(.allowed) \(.pinned) \([.migrations_per_s[]] | add)\"")"
check_eq "every CPU, with its node" "$VM_CPUS" "$(json '.cpus | length')"
last=$((VM_NODES - 1))
check_eq "the last node's first CPU is on node $last" "$last" \
  "$(json ".cpus[] | select(.cpu == $(node_cpus $last | sed 's/[-,].*//')) | .node")"

# Moved once, during the interval, to another node.
if [ "$VM_NODES" -ge 4 ]; then target=$(node_cpus 1 | sed 's/[-,].*//'); else target=$(node_cpus $last | sed 's/[-,].*//'); fi
level=$(level_of 1 "$target")
( sleep 1; affix pin --tid "$target" "$spin" > /dev/null 2> moved.err; echo $? > moved ) &
mover=$!
capture affix top --once --json -i 2 --pid "$spin"
wait "$mover"
check_eq "pin --tid moved it" "0" "$(cat moved)$(tr '\n' ' ' < moved.err)"
check_eq "one move at $level (CPU 1 -> $target): per second * interval" "1" \
  "$(json ".interval as \$i | .processes[0] | .migrations_per_s.$level * \$i | round")"
check_eq "no move at any other level" "0" \
  "$(json ".processes[0] | [.migrations_per_s | to_entries[] | select(.key != \"$level\") | .value] | add")"
if [ "$VM_NODES" -ge 4 ]; then check_eq "2 nodes per socket: the level is node" "node" "$level"; fi
check_eq "it is now under CPU $target" "$spin" "$(json ".cpus[] | select(.cpu == $target) | .threads[] | select(.tid == $spin) | .tid")"

# The same frame the /proc way (--no-events): the spinner, now on $target,
# under it with its TID and busy >= 80%, and no move.
capture affix top --once --json -i 2 --no-events
check_eq "--no-events: exit 0, no error, source proc" "0  proc" "$RC $ERR $(json '.source')"
check_eq "--no-events: CPU $target busy >= 80%" "true" "$(json ".cpus[] | select(.cpu == $target) | .busy >= 80")"
check_eq "--no-events: the spinner's TID under CPU $target" "$spin" \
  "$(json ".cpus[] | select(.cpu == $target) | .threads[] | select(.tid == $spin) | .tid")"
check_eq "--no-events: no move" "0" "$(json ".processes[] | select(.pid == $spin) | [.migrations_per_s[]] | add")"
kill -KILL "$spin"
finish
