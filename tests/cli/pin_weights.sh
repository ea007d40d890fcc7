#!/usr/bin/env bash
# pin --weights on this machine's own kernel, writing none of its weights
# (they are the machine's, for every process: the writes are the VM's,
# tests/vm/scenarios/memtier.sh): --check compares the kernel's weights
# with those asked (exit 0 as they are, 1 not, the line and the JSON say
# which); --dry-run says what it would write and writes nothing; as nobody,
# a pin whose weights would change is refused (no weight written) and every
# thread it moved is put back. Where the kernel has no weights, pin refuses
# --weights naming the version that has them.
. "$AFFIX_SOURCE_DIR/tests/cli/check_lib.bash"
wdir=/sys/kernel/mm/mempolicy/weighted_interleave
node=$(sed -n 's/^Mems_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
all=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
weights() { cat "$wdir"/node* 2>/dev/null | tr '\n' ' '; }
before=$(weights)
victims=()
anyone_dir=
trap 'kill "${victims[@]}" 2>/dev/null; rm -rf ${anyone_dir:+"$anyone_dir"}' EXIT
list_of() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }

if [[ ! -d $wdir ]]; then
  sleep 60 & victims+=($!)
  err=$("$AFFIX" pin --check --mem "weighted:$node" --weights "$node=2" "$all" "${victims[0]}" 2>&1); rc=$?
  check "no weights: --weights refused" 2 "$rc"
  check "no weights: said" "affix: error: the kernel has no interleave weight for node $node (no weighted_interleave/node$node)" \
    "$(head -n 1 <<<"$err")"
  exit $fail
fi

w=$(cat "$wdir/node$node")
other=$((w % 255 + 1))
# A process under weighted interleave on the node, on all of affix's CPUs.
"$AFFIX" --mem "weighted:$node" "$all" -- sleep 60 & victims+=($!)
victim=${victims[0]}
for _ in $(seq 100); do grep -q 'weighted interleave' "/proc/$victim/numa_maps" 2>/dev/null && break; sleep 0.05; done

out=$("$AFFIX" pin --check --mem "weighted:$node" --weights "$node=$w" "$all" "$victim"); rc=$?
check "--check, weights as asked: exit 0" 0 "$rc"
check "--check, weights as asked: the lines" "$victim: 1 thread within CPUs $all
  $victim: memory policy weighted interleave:$node, as asked (weighted interleave:$node)
interleave weights node $node: $w, as asked (given with --weights)" "$out"
out=$("$AFFIX" pin --check --mem "weighted:$node" --weights "$node=$other" "$all" "$victim"); rc=$?
check "--check, other weights: exit 1" 1 "$rc"
check "--check, other weights: the line" "interleave weights node $node: $w (asked: $other), not as asked (given with --weights)" \
  "$(tail -n 1 <<<"$out")"
out=$("$AFFIX" pin --check --json --mem "weighted:$node" --weights "$node=$other" "$all" "$victim"); rc=$?
check "--check --json, other weights: exit 1" 1 "$rc"
check "--check --json: the weights" "{\"ok\":false,\"nodes\":[{\"node\":$node,\"now\":$w,\"want\":$other}],\"auto_mode\":$(jq -c .weights.auto_mode <<<"$out")}" \
  "$(jq -c .weights <<<"$out")"
check "--check --json: the whole check fails" false "$(jq .ok <<<"$out")"

# --dry-run: the weights it would write, the pages by them; nothing changes.
out=$("$AFFIX" pin --dry-run --migrate --mem "weighted:$node" --weights "$node=$other" "$cpu" "$victim"); rc=$?
check "--dry-run: exit 0" 0 "$rc"
check "--dry-run: the weights it would write" "would set interleave weights node $node: $other (now $w) (given with --weights)" \
  "$(grep 'interleave weights' <<<"$out")"
check "--dry-run: weights unchanged" "$before" "$(weights)"
check "--dry-run: CPUs unchanged" "$all" "$(list_of "$victim")"

# As nobody, on nobody's process: the pin moves the threads, then cannot
# write the weights; nothing was written, and every thread goes back.
anyone=$(anyone_affix)
[[ $anyone == "$AFFIX" ]] || anyone_dir=$(dirname "$anyone")
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 60 & victims+=($!)
mine=${victims[1]}
for _ in $(seq 100); do [[ $(awk '/^Uid:/ {print $2}' "/proc/$mine/status") == 65534 ]] && break; sleep 0.05; done
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$anyone" pin --migrate --mem "weighted:$node" \
  --weights "$node=$other" "$cpu" "$mine" 2>&1 >/dev/null); rc=$?
check "as nobody: exit 1" 1 "$rc"
# Where the kernel's auto mode is on (6.16 and later), a node's weight written turns it off.
auto=$(ls "$wdir" | grep -x -e auto -e __auto_type)
off=
[[ -n $auto && $(cat "$wdir/$auto") == true ]] && off="; the kernel's auto mode turns off"
check "as nobody: the warning, the error, the hint" "affix: warning: writing the machine's interleave weights (node $node: $w -> $other$off): every process's weighted interleave on this machine uses them from now on, not only this command's
affix: error: cannot write the interleave weight of node $node: Permission denied; nothing was written; every thread was put back on its old CPU list
affix: hint: the interleave weights are the machine's, for every process: writing them needs root" "$err"
check "as nobody: the thread back on its list" "$all" "$(list_of "$mine")"
check "as nobody: weights unchanged" "$before" "$(weights)"
# Weights already as asked: nothing to write, nobody's pin goes through.
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$anyone" pin -v --migrate --mem "weighted:$node" \
  --weights "$node=$w" "$cpu" "$mine" 2>&1); rc=$?
check "as nobody, weights as they are: exit 0" 0 "$rc"
check_match "as nobody, weights as they are: said, not written" "*
interleave weights node $node: $w (given with --weights)
*" "$out"
check "as nobody, weights as they are: moved" "$cpu" "$(list_of "$mine")"
check "weights unchanged at the end" "$before" "$(weights)"
exit $fail
