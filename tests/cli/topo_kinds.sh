#!/usr/bin/env bash
# CPU kinds against hwloc's own answer: on every captured machine and on
# hand-made roots (a three-kind Arm DynamIQ, one kind, max frequency only),
# `affix explain kind:K` is hwloc's cpukind N-1-K (`lstopo --cpukinds`
# with HWLOC_FSROOT; hwloc lists the least performant first), and kind:N
# is an error. Also what `topo` prints for kinds.
. "$(dirname "$0")/check_lib.bash"
corpora="$AFFIX_CORPORA_DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "0-3,8" -> "0,1,2,3,8"
expand() {
  local out=() part a b
  IFS=, read -ra parts <<<"$1"
  for part in "${parts[@]}"; do
    if [[ $part == *-* ]]; then a=${part%-*} b=${part#*-}; out+=($(seq "$a" "$b")); else out+=("$part"); fi
  done
  local IFS=,; echo "${out[*]}"
}

# compare ROOT: every kind of hwloc against affix's.
compare() {
  local root=$1 name=$2 masks=() n k cpus hw
  mapfile -t masks < <(HWLOC_FSROOT=$root lstopo-no-graphics --cpukinds 2>/dev/null |
                       sed -n 's/^CPU kind #[0-9]* efficiency -\{0,1\}[0-9]* cpuset \(.*\)$/\1/p')
  n=${#masks[@]}
  if ((n == 0)); then
    # hwloc knows no kinds: one kind, every CPU that counts.
    cpus=$("$AFFIX" explain --root "$root" kind:0 --json | grep -o '"cpus": "[^"]*"' | head -1)
    check "$name: no kinds, kind:0 is all" "$("$AFFIX" explain --root "$root" all --json | grep -o '"cpus": "[^"]*"' | head -1)" "$cpus"
    n=1
  fi
  for ((k = 0; k < ${#masks[@]}; k++)); do
    hw=$(HWLOC_FSROOT=$root hwloc-calc --po -I pu "${masks[n - 1 - k]}" 2>/dev/null)
    cpus=$("$AFFIX" explain --root "$root" "kind:$k" --json | grep -o '"cpus": "[^"]*"' | head -1 | cut -d'"' -f4)
    check "$name: kind:$k is hwloc's kind #$((n - 1 - k))" "$hw" "$(expand "$cpus")"
  done
  "$AFFIX" explain --root "$root" "kind:$n" >/dev/null 2>&1
  check "$name: kind:$n does not exist" 2 "$?"
}

for dir in "$corpora"/*/; do
  compare "${dir%/}" "$(basename "$dir")"
done

# Hand-made roots: N CPUs, one socket, one core each, masks as hwloc reads them.
mkroot() {
  local d=$1 n=$2 all c t
  all=$(printf '%x' $(((1 << n) - 1)))
  mkdir -p "$d/sys/devices/system/cpu" "$d/sys/devices/system/node/node0" "$d/proc"
  echo "0-$((n - 1))" >"$d/sys/devices/system/cpu/online"
  echo "0-$((n - 1))" >"$d/sys/devices/system/cpu/present"
  for ((c = 0; c < n; c++)); do
    t=$d/sys/devices/system/cpu/cpu$c/topology
    mkdir -p "$t"
    echo 0 >"$t/physical_package_id"; echo "$c" >"$t/core_id"
    printf '%x\n' $((1 << c)) >"$t/thread_siblings"; echo "$all" >"$t/core_siblings"
  done
  echo "$all" >"$d/sys/devices/system/node/node0/cpumap"
  echo 10 >"$d/sys/devices/system/node/node0/distance"
}
# per_cpu ROOT FILE VALUE...: cpuN/FILE holds the Nth value.
per_cpu() {
  local d=$1 f=$2 c=0 v; shift 2
  for v in "$@"; do
    mkdir -p "$(dirname "$d/sys/devices/system/cpu/cpu$c/$f")"
    echo "$v" >"$d/sys/devices/system/cpu/cpu$c/$f"
    c=$((c + 1))
  done
}

# A three-kind Arm (DynamIQ 4+3+1): capacities 160, 512, 1024.
arm=$tmp/arm-3kinds
mkroot "$arm" 8
echo "Architecture: aarch64" >"$arm/proc/hwloc-nofile-info"
per_cpu "$arm" cpu_capacity 160 160 160 160 512 512 512 1024
per_cpu "$arm" cpufreq/cpuinfo_max_freq 1800000 1800000 1800000 1800000 2400000 2400000 2400000 3000000
compare "$arm" arm-3kinds
check "arm-3kinds: topo" "kinds      performance 7, 1 4-6, efficiency 0-3" \
  "$("$AFFIX" topo --root "$arm" | grep '^kinds')"
check_match "arm-3kinds: topo --json" '*"cpu": 5, *"kind": "1", "kind_index": 1,*' "$("$AFFIX" topo --root "$arm" --json)"
check "arm-3kinds: kind:efficiency" "0-3" \
  "$("$AFFIX" explain --root "$arm" kind:efficiency --json | grep -o '"cpus": "[^"]*"' | head -1 | cut -d'"' -f4)"

# One kind: every CPU the same frequency.
one=$tmp/one-kind
mkroot "$one" 4
per_cpu "$one" cpufreq/cpuinfo_max_freq 2400000 2400000 2400000 2400000
per_cpu "$one" cpufreq/base_frequency 2000000 2000000 2000000 2000000
compare "$one" one-kind
check "one-kind: no kinds line" "" "$("$AFFIX" topo --root "$one" | grep '^kinds')"
check_match "one-kind: topo --json kind null" '*"cpu": 0, *"kind": null, "kind_index": null,*' "$("$AFFIX" topo --root "$one" --json)"
check "one-kind: kind:1" "affix: error: no kind 1 on this machine (its CPUs are all of one kind: kind:0)" \
  "$("$AFFIX" explain --root "$one" kind:1 2>&1)"

# Maximum frequency only, three values (no adjustment without base frequencies).
freq=$tmp/max-freq
mkroot "$freq" 4
per_cpu "$freq" cpufreq/cpuinfo_max_freq 3000000 3000000 3100000 2000000
compare "$freq" max-freq

# The 20-CPU Alder Lake capture: P-cores first.
check "hybrid capture: topo" "kinds      performance 0-11, efficiency 12-19" \
  "$("$AFFIX" topo --root "$corpora/20em64t-hybrid-1p6c2t+2ca4co1t" | grep '^kinds')"
exit $fail
