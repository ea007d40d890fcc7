#!/usr/bin/env bash
# Errors that name the right cause, on captured machines and roots made from
# them: a memory node refused names the file the memory nodes came from; a
# memoryless node asked for memory says it has none; a node without CPUs
# asked for CPUs says so and points at --mem; a core whose missing thread is
# offline says so; a misspelt level gets "did you mean".
. "$(dirname "$0")/check_lib.bash"
corpora="$AFFIX_CORPORA_DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
explain() {  # ROOT ARGS...: stderr and status of `affix explain --root ROOT ARGS...`
  "$AFFIX" explain --root "$1" "${@:2}" 2>&1 >/dev/null
  echo "exit $?"
}

# An old-style cpuset: CPUs from dummy/cpus, memory nodes 1-4 from dummy/mems.
check "memory node refused: the mems file, not the cpus file" \
  "affix: error: memory node 0 is not allowed (allowed: 1-4, from cpuset:/dev/cpuset/dummy/mems)
exit 2" "$(explain "$corpora/16amd64-8n2c-cpusets" all --mem bind:0)"

# A cgroup2 cpuset made on a two-node machine: memory only from node 1.
cp -r "$corpora/8ia64-2n2s2c" "$tmp/v2"
mkdir -p "$tmp/v2/proc/self" "$tmp/v2/sys/fs/cgroup/job"
echo "0::/job" > "$tmp/v2/proc/self/cgroup"
echo "24 1 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw" > "$tmp/v2/proc/self/mountinfo"
echo "0-7" > "$tmp/v2/sys/fs/cgroup/job/cpuset.cpus.effective"
echo "1" > "$tmp/v2/sys/fs/cgroup/job/cpuset.mems.effective"
check "cgroup2: the refusal names cpuset.mems.effective" \
  "affix: error: memory node 0 is not allowed (allowed: 1, from cgroup2:/sys/fs/cgroup/job/cpuset.mems.effective)
exit 2" "$(explain "$tmp/v2" node:0 --mem bind:0)"

# The same machine with node 1's memory gone (MemTotal 0 kB): CPUs, no memory.
cp -r "$corpora/8ia64-2n2s2c" "$tmp/memoryless"
sed -i 's/MemTotal: *[0-9]* kB/MemTotal:            0 kB/; s/MemFree: *[0-9]* kB/MemFree:             0 kB/' \
  "$tmp/memoryless/sys/devices/system/node/node1/meminfo"
check "memoryless node asked for memory" \
  "affix: error: node 1 has no memory
affix: hint: the nearest node with memory is 0
exit 2" "$(explain "$tmp/memoryless" node:1 --mem bind:1)"
check "memoryless node: --mem without nodes takes the nearest with memory" "memory    bind on node 0" \
  "$("$AFFIX" explain --root "$tmp/memoryless" node:1 --mem bind | grep '^memory')"

# Nodes 2, 4 and 5 hold memory and no CPU.
check "a memory-only node asked for CPUs" \
  "affix: error: node 2 has no CPUs
affix: hint: a node without CPUs only holds memory: '--mem bind:2' puts memory there, with CPUs from another node
exit 2" "$(explain "$corpora/fakeheterocpunuma" node:2)"
check "memory-only nodes asked for CPUs" \
  "affix: error: nodes 2,4 have no CPUs
affix: hint: nodes without CPUs only hold memory: '--mem bind:2,4' puts memory there, with CPUs from other nodes
exit 2" "$(explain "$corpora/fakeheterocpunuma" node:2+node:4)"
check "a memory-only node beside one with CPUs adds nothing (rule 3)" "cpus      0-3 (4 CPUs)" \
  "$("$AFFIX" explain --root "$corpora/fakeheterocpunuma" node:0+node:2 | head -1)"
check "a memory-only node for memory" "memory    bind on node 2" \
  "$("$AFFIX" explain --root "$corpora/fakeheterocpunuma" node:0 --mem bind:2 | grep '^memory')"

# CPUs 2, 5, 13 and 14 are offline and the kernel no longer reports their
# place: socket 1 shows one core (CPUs 1 and 9).
check "a missing core where CPUs are offline" \
  "affix: error: no core 1 in socket:1 (cores: 0); CPUs 2,5,13-14 are offline, and the kernel no longer says where they belong
exit 2" "$(explain "$corpora/16em64t-4s2c2t-offlines" socket:1.core:1)"

check "a misspelt level" \
  "affix: error: invalid location 'sokcet:0': unknown level 'sokcet' (socket, node, die, llc, core, cpu)
  sokcet:0
  ^
affix: hint: did you mean 'socket'?
exit 2" "$(explain "$corpora/8ia64-2n2s2c" sokcet:0)"
exit $fail
