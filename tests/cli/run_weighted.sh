#!/usr/bin/env bash
# --mem weighted on this machine's own kernel, which changes no setting of
# the machine: where the kernel has weighted interleave (Linux 6.9 and
# later), explain and --dry-run accept it and a real child runs under it
# (its numa_maps says "weighted interleave"), with weights as the kernel has
# them (none written: the weights are the machine's); where it has not, run
# and --dry-run refuse it naming the version, and explain warns.
set -u
fail=0
failed() { echo "FAIL: $*"; fail=1; }
has_line() {  # has_line NAME TEXT LINE
  grep -qxF -- "$3" <<<"$2" || { failed "$1: no line '$3'"; echo "$2"; }
}
wdir=/sys/kernel/mm/mempolicy/weighted_interleave
node=$(sed -n 's/^Mems_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
weights() { cat "$wdir"/node* 2>/dev/null | tr '\n' ' '; }
before=$(weights)

if [[ -d $wdir ]]; then
  w=$(cat "$wdir/node$node")
  out=$("$AFFIX" explain --mem "weighted:$node" "$cpu") || failed "explain exits $?"
  has_line "explain: the policy" "$out" "memory    weighted interleave on node $node"
  has_line "explain: the weights" "$out" "weights   node $node: $w (the kernel's)"
  out=$("$AFFIX" --dry-run --mem "weighted:$node" --weights "$node=$w" "$cpu" -- true) || failed "--dry-run exits $?"
  [[ $out == "affix: interleave weights node $node: $w (given with --weights)
affix: would set memory policy weighted interleave on node $node
affix: would bind to CPUs $cpu (1 CPU; socket "* ]] || failed "--dry-run: $out"
  # A real child: every mapping of it under weighted interleave on that node.
  maps=$("$AFFIX" --mem "weighted:$node" --weights "$node=$w" "$cpu" -- cat /proc/self/numa_maps) ||
    failed "run exits $?"
  total=$(wc -l <<<"$maps")
  under=$(grep -c -E "^[0-9a-f]+ weighted interleave:$node( |$)" <<<"$maps")
  [[ $total -gt 5 && $under == "$total" ]] || failed "numa_maps: $under of $total lines under weighted interleave: $maps"
  [[ $(weights) == "$before" ]] || failed "the weights changed: $before -> $(weights)"
  # --weights auto: the kernel's auto mode where it is on needs no write.
  json=$("$AFFIX" explain --json --mem "weighted:$node" --weights auto "$cpu") || failed "explain auto exits $?"
  auto=$(ls "$wdir" | grep -x -e auto -e __auto_type)
  if [[ -n $auto && $(cat "$wdir/$auto") == true ]]; then
    [[ $(jq -c '.mem.weights | {source, turn_auto_on}' <<<"$json") == '{"source":"kernel-auto","turn_auto_on":false}' ]] ||
      failed "auto: $json"
    out=$("$AFFIX" -v --mem "weighted:$node" --weights auto "$cpu" -- true 2>&1) || failed "run --weights auto exits $?"
    has_line "run -v: the kernel's auto mode" "$out" \
      "affix: interleave weights node $node: $w (the kernel's auto mode: from each node's bandwidth)"
    [[ $(weights) == "$before" ]] || failed "the weights changed: $before -> $(weights)"
  else
    [[ $(jq -r '.mem.weights.source' <<<"$json") != kernel ]] || failed "auto: $json"
  fi
else
  refusal="affix: error: cannot interleave by weights on nodes $node: this kernel has no MPOL_WEIGHTED_INTERLEAVE (Linux 6.9 and later have it)"
  err=$("$AFFIX" --mem "weighted:$node" "$cpu" -- true 2>&1); rc=$?
  [[ $rc == 125 && $err == "$refusal"* ]] || failed "run: $rc $err"
  err=$("$AFFIX" --dry-run --mem "weighted:$node" "$cpu" -- true 2>&1); rc=$?
  [[ $rc == 125 && $err == "$refusal"* ]] || failed "--dry-run: $rc $err"
  out=$("$AFFIX" explain --mem "weighted:$node" "$cpu") || failed "explain exits $?"
  has_line "explain warns" "$out" \
    "warning   this kernel has no MPOL_WEIGHTED_INTERLEAVE (Linux 6.9 and later have it): 'run' would refuse --mem weighted"
fi
# A weight for a node that is not the policy's is refused before anything.
err=$("$AFFIX" --mem "weighted:$node" --weights "$((node + 1))=2" "$cpu" -- true 2>&1); rc=$?
[[ $rc == 125 ]] || failed "a weight outside the policy's nodes: exit $rc"
[[ $err == "affix: error: --weights gives node $((node + 1)) a weight, but it is not one of the policy's nodes ($node)"* ]] ||
  failed "a weight outside the policy's nodes: $err"
[[ $(weights) == "$before" ]] || failed "the weights changed: $before -> $(weights)"
exit $fail
