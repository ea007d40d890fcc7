#!/usr/bin/env bash
# Memory that is not all alike, on a captured machine given the files of
# Linux 6.12 with HMAT (fakeheterocpunuma: nodes 2, 4 and 5 hold memory and
# no CPUs): topo shows each node's tier and HMAT figures (text and JSON);
# explain shows what tier: gave, weighted's default nodes, and the weights
# --weights auto computes from HMAT bandwidth, exactly; a tier whose
# nodelist is garbage is left out with a warning, and topo still exits 0.
set -u
fail=0
failed() { echo "FAIL: $*"; fail=1; }
has_line() {  # has_line NAME TEXT LINE
  grep -qxF -- "$3" <<<"$2" || { failed "$1: no line '$3'"; echo "$2"; }
}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
cp -r "$AFFIX_CORPORA_DIR/fakeheterocpunuma/." "$root"
tiers=$root/sys/devices/virtual/memory_tiering
mkdir -p "$tiers"/memory_tier{4,16,22} "$root/sys/kernel/mm/mempolicy/weighted_interleave"
echo 0-1,3 >"$tiers/memory_tier4/nodelist"
echo 2,4 >"$tiers/memory_tier16/nodelist"
echo 5 >"$tiers/memory_tier22/nodelist"
hmat() {  # hmat NODE INITIATOR READ_BW WRITE_BW READ_NS WRITE_NS
  local d=$root/sys/devices/system/node/node$1/access1/initiators
  mkdir -p "$d"
  echo "$3" >"$d/read_bandwidth"; echo "$4" >"$d/write_bandwidth"
  echo "$5" >"$d/read_latency"; echo "$6" >"$d/write_latency"
  ln -s "../../../node$2" "$d/node$2"
}
hmat 0 0 12000 12000 100 100
hmat 1 1 12000 12000 100 100
hmat 3 3 12000 12000 100 100
hmat 2 0 10000 8000 250 300
hmat 4 3 10000 8000 250 300
for n in 0 1 2 3 4 5; do echo 1 >"$root/sys/kernel/mm/mempolicy/weighted_interleave/node$n"; done

out=$("$AFFIX" topo --root "$root" 2>&1) || failed "topo exits $?"
has_line "tiers" "$out" "tiers      4 (nodes 0-1,3), 16 (nodes 2,4), 22 (node 5)"
has_line "weights" "$out" "weights    0:1 1:1 2:1 3:1 4:1 5:1"
has_line "table" "$out" "memory     NODE  TIER  KIND       READ MB/s  WRITE MB/s  READ ns  WRITE ns  FROM"
has_line "node 0" "$out" "           0     4     -          12000      12000       100      100       0"
has_line "node 4" "$out" "           4     16    -          10000      8000        250      300       3"
has_line "node 5" "$out" "           5     22    -          -          -           -        -         -"
json=$("$AFFIX" topo --json --root "$root") || failed "topo --json exits $?"
node2=$(jq -c '.nodes[] | select(.node == 2) | {tier, kind, hmat, interleave_weight}' <<<"$json")
[[ $node2 == '{"tier":16,"kind":null,"hmat":{"access":1,"read_bandwidth_mbs":10000,"write_bandwidth_mbs":8000,"read_latency_ns":250,"write_latency_ns":300,"initiators":"0"},"interleave_weight":1}' ]] ||
  failed "topo --json node 2: $node2"
[[ $(jq -c '.tiers' <<<"$json") == '[{"tier":4,"nodes":"0-1,3"},{"tier":16,"nodes":"2,4"},{"tier":22,"nodes":"5"}]' ]] ||
  failed "topo --json tiers: $(jq -c '.tiers' <<<"$json")"
[[ $(jq -c '.interleave_auto' <<<"$json") == null ]] || failed "interleave_auto is not null"

# tier: and the nodes it gave; weighted's default nodes: node 0's CPUs are
# node 2's initiators.
out=$("$AFFIX" explain --root "$root" --mem bind:tier:16 node:0) || failed "explain tier:16 exits $?"
has_line "explain tier:16" "$out" "memory    bind on nodes 2,4 (tier:16: nodes 2,4)"
out=$("$AFFIX" explain --root "$root" --mem weighted node:0) || failed "explain weighted exits $?"
has_line "explain weighted" "$out" "memory    weighted interleave on nodes 0,2"
has_line "explain weighted: the weights" "$out" "weights   node 0: 1, node 2: 1 (the kernel's)"
# --weights auto without an auto mode file: 32 x 12000 / 52000 = 7 and
# 32 x 8000 / 52000 = 4 (over nodes 0-5; node 5 has no figure: 1).
out=$("$AFFIX" explain --root "$root" --mem weighted:0,2 --weights auto node:0) || failed "explain auto exits $?"
has_line "explain auto" "$out" \
  "weights   node 0: 7 (now 1), node 2: 4 (now 1) (from HMAT bandwidth: 12000, 8000 MB/s, as the kernel's auto mode computes them)"
has_line "explain auto: node 5" "$out" \
  "warning   node 5 has no HMAT bandwidth figures: weight 1, as the kernel's auto mode gives it"
err=$("$AFFIX" explain --root "$root" --mem bind:mem:dram node:0 2>&1); rc=$?
[[ $rc == 2 ]] || failed "mem:dram exits $rc"
[[ $err == "affix: error: the machine does not say which memory is dram: no node's kind is known
affix: hint: 'affix topo' shows each node's kind, found as hwloc finds it; name the nodes instead (--mem POLICY:NODES)" ]] ||
  failed "mem:dram: $err"

# A tier whose nodelist is garbage: that tier left out, said once, exit 0.
echo 5-x >"$tiers/memory_tier22/nodelist"
echo fast >"$root/sys/devices/system/node/node4/access1/initiators/read_latency"
out=$("$AFFIX" topo --root "$root" 2>&1) || failed "topo with a bad nodelist exits $?"
has_line "bad nodelist" "$out" \
  "affix: warning: $root/sys/devices/virtual/memory_tiering/memory_tier22/nodelist: invalid cpulist '5-x': unexpected 'x' at offset 2 (left out)"
has_line "bad figure" "$out" \
  "affix: warning: $root/sys/devices/system/node/node4/access1/initiators/read_latency: expected a number of ns, found 'fast' (left out)"
has_line "tiers without 22" "$out" "tiers      4 (nodes 0-1,3), 16 (nodes 2,4)"
has_line "node 4 without its read latency" "$out" "           4     16    -          10000      8000        -        300       3"
exit $fail
