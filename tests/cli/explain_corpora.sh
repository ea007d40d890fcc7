#!/usr/bin/env bash
# affix explain --root on captured machines: several sockets and nodes,
# offline and not-allowed CPUs, dropped CPUs with their reasons, warnings,
# text and --json; and the CPUs of each socket checked against hwloc-calc.
. "$(dirname "$0")/check_lib.bash"
corpora="$AFFIX_CORPORA_DIR"
unset OMP_NUM_THREADS OMP_PLACES OMP_PROC_BIND GOMAXPROCS
explain() { "$AFFIX" explain --root "$corpora/$1" "${@:2}"; }

# Offline CPU 4 and a cpuset of 0-3,5-6,12-15: all drops them, with reasons.
check "cpusets: all, json" '{"cpus": "0-3,5-6,12-15", "count": 10, "sequence": [0, 1, 2, 3, 5, 6, 12, 13, 14, 15], "sockets": "0-3,6-7", "nodes": "0-3,6-7", "allowed": {"cpus": "0-3,5-6,12-15", "nodes": "1-4", "source": "cpuset:/dev/cpuset/dummy/cpus"}, "self": "0-3,5-6,12-15", "mem": null, "dropped": [{"cpus": "4", "reason": "offline"}, {"cpus": "7-11", "reason": "not-allowed"}], "env": {"AFFIX_CPUS": "0-3,5-6,12-15", "AFFIX_NODES": "0-3,6-7", "OMP_NUM_THREADS": "10", "GOMAXPROCS": "10", "OMP_PLACES": "{0},{1},{2},{3},{5},{6},{12},{13},{14},{15}", "OMP_PROC_BIND": "close", "AFFIX_ENV": "OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND"}, "env_kept": {}, "warnings": []}' \
  "$(explain 16amd64-8n2c-cpusets --json all)"
check "cpusets: all, text" "cpus      0-3,5-6,12-15 (10 CPUs)
sockets   0-3,6-7
nodes     0-3,6-7
allowed   CPUs 0-3,5-6,12-15, nodes 1-4 (from cpuset:/dev/cpuset/dummy/cpus)
memory    policy unchanged (no --mem)
dropped   4 offline
          7-11 not-allowed
env       AFFIX_CPUS=0-3,5-6,12-15
          AFFIX_NODES=0-3,6-7
          OMP_NUM_THREADS=10
          GOMAXPROCS=10
          OMP_PLACES={0},{1},{2},{3},{5},{6},{12},{13},{14},{15}
          OMP_PROC_BIND=close
          AFFIX_ENV=OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND" "$(explain 16amd64-8n2c-cpusets all)"
# --mem bind defaults to the CPUs' nodes that are allowed: a warning says they differ.
check "cpusets: bind, warning" '{"cpus": "0-3", "count": 4, "sequence": [0, 1, 2, 3], "sockets": "0-1", "nodes": "0-1", "allowed": {"cpus": "0-3,5-6,12-15", "nodes": "1-4", "source": "cpuset:/dev/cpuset/dummy/cpus"}, "self": "0-3,5-6,12-15", "mem": {"policy": "bind", "nodes": "1"}, "dropped": [], "env": {"AFFIX_CPUS": "0-3", "AFFIX_NODES": "0-1", "OMP_NUM_THREADS": "4", "GOMAXPROCS": "4", "OMP_PLACES": "{0},{1},{2},{3}", "OMP_PROC_BIND": "close", "AFFIX_ENV": "OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND"}, "env_kept": {}, "warnings": ["memory nodes 1 differ from the CPUs'"'"' nodes 0-1"]}' \
  "$(explain 16amd64-8n2c-cpusets --json -m bind socket:0+socket:1 --no-smt)"

# Two sockets numbered alternately: scatter over one node, --count drops.
check "2s2ca2c: socket:1 -n 2 scatter" "cpus      1,5 (2 CPUs)
sockets   1
nodes     0
allowed   CPUs 0-7, nodes 0 (from all-online)
memory    policy unchanged (no --mem)
dropped   3,7 count
env       AFFIX_CPUS=1,5
          AFFIX_NODES=0
          OMP_NUM_THREADS=2
          GOMAXPROCS=2
          OMP_PLACES={1},{5}
          OMP_PROC_BIND=close
          AFFIX_ENV=OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND" "$(explain 8em64t-2s2ca2c socket:1 --count 2 --order scatter)"
# "Spans sockets while it would fit in one" only where affix chose the shape
# (--slice, --count), not where the user named the span.
check "2s2ca2c: a span the user named, no warning" '{"cpus": "0-1", "count": 2, "sequence": [0, 1], "sockets": "0-1", "nodes": "0", "allowed": {"cpus": "0-7", "nodes": "0", "source": "all-online"}, "self": "0-7", "mem": {"policy": "interleave", "nodes": "0"}, "dropped": [], "env": {"AFFIX_CPUS": "0-1", "AFFIX_NODES": "0", "OMP_NUM_THREADS": "2", "GOMAXPROCS": "2", "OMP_PLACES": "{0},{1}", "OMP_PROC_BIND": "close", "AFFIX_ENV": "OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND"}, "env_kept": {}, "warnings": []}' \
  "$(explain 8em64t-2s2ca2c --json 'socket:0.core:0+socket:1.core:0' -m interleave)"
check "2s2ca2c: a slice that spans sockets while it fits in one" '{"cpus": "1,5-6", "count": 3, "sequence": [6, 1, 5], "sockets": "0-1", "nodes": "0", "allowed": {"cpus": "0-7", "nodes": "0", "source": "all-online"}, "self": "0-7", "mem": null, "dropped": [{"cpus": "0,2-4,7", "reason": "slice"}], "env": {"AFFIX_CPUS": "1,5-6", "AFFIX_NODES": "0", "OMP_NUM_THREADS": "3", "GOMAXPROCS": "3", "OMP_PLACES": "{6},{1},{5}", "OMP_PROC_BIND": "close", "AFFIX_ENV": "OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND"}, "env_kept": {}, "warnings": ["the selection spans sockets 0-1 while its 3 CPUs would fit in socket 0"]}' \
  "$(explain 8em64t-2s2ca2c --json all --slice 1/3)"
check "2p8co2t: all --no-smt, no warning" "[]" \
  "$(explain 32intel64-2p8co2t+8ve --json all --no-smt | sed 's/.*"warnings": //; s/}$//')"

# Four sockets, eight nodes: --slice then --count, each drop with its reason
# (CPUs 12 and 13 share a compute unit but are two cores, as hwloc says).
check "4s2n4ca2co: slice and count" '{"cpus": "12-13", "count": 2, "sequence": [12, 13], "sockets": "0", "nodes": "1", "allowed": {"cpus": "0-63", "nodes": "0-7", "source": "all-online"}, "self": "0-63", "mem": null, "dropped": [{"cpus": "8-11", "reason": "slice"}, {"cpus": "14-15", "reason": "count"}], "env": {"AFFIX_CPUS": "12-13", "AFFIX_NODES": "1", "OMP_NUM_THREADS": "2", "GOMAXPROCS": "2", "OMP_PLACES": "{12},{13}", "OMP_PROC_BIND": "close", "AFFIX_ENV": "OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND"}, "env_kept": {}, "warnings": []}' \
  "$(explain 64amd64-4s2n4ca2co --json node:1 --slice 1/2 -n 2)"

# Explain changes nothing and never needs a command; a root that is not
# there is an operation failure (1).
"$AFFIX" explain --root "$corpora/no-such-capture" all 2>/dev/null
check "missing root" 1 "$?"

# The CPUs of each socket agree with hwloc-calc on the same capture.
expand() {  # "0-2,5" -> "0 1 2 5" (sorted)
  local out=() part
  IFS=, read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ $part == *-* ]]; then out+=($(seq "${part%-*}" "${part#*-}")); else out+=("$part"); fi
  done
  printf '%s\n' "${out[@]}" | sort -n | tr '\n' ' '
}
for capture in 8em64t-2s2ca2c 16em64t-4s2c2t-offlines 64amd64-4s2n4ca2co 16amd64-8n2c; do
  for socket in 0 1; do
    cpus=$(explain "$capture" --json "socket:$socket" | sed 's/^{"cpus": "\([^"]*\)".*/\1/')
    hwloc=$(HWLOC_COMPONENTS=-x86 HWLOC_FSROOT="$corpora/$capture" \
            hwloc-calc -p -I pu --po "package:$socket" 2>/dev/null)
    [[ -n "$hwloc" ]] || { echo "FAIL: hwloc-calc gave nothing for $capture package:$socket"; fail=1; }
    check "$capture socket:$socket vs hwloc-calc" "$(expand "$hwloc")" "$(expand "$cpus")"
  done
done

exit $fail
