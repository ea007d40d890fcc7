#!/usr/bin/env bash
# bench/gen-sysfs writes synthetic machines that lscpu --sysroot and hwloc
# (HWLOC_FSROOT) read back exactly as intended: the same sockets, cores,
# threads, NUMA nodes and L3 domains, CPU by CPU.
set -euo pipefail
src=${AFFIX_SOURCE_DIR:?}
gen="$src/bench/gen-sysfs"
# tmpfs where there is one: writing ~25k small files is slow on a disk.
tmp=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# sorted comma list -> cpulist-free canonical form: one number per line, sorted
canon() { tr ',' '\n' | sed '/^$/d' | sort -n | tr '\n' ' '; }

check_shape() {
  local name=$1; shift
  local dir="$tmp/$name"
  "$gen" "$dir" "$@"
  read -r ncpus ncores nsockets nnodes nl3 < <("$gen" "$dir" "$@" --print-shape)
  "$gen" "$dir" "$@" --print-map > "$tmp/$name.map"
  [ "$(wc -l < "$tmp/$name.map")" -eq "$ncpus" ] || fail "$name: map has wrong length"

  # lscpu: CPU,Core,Socket,Node and the L3 id (last of the cache column).
  lscpu --sysroot "$dir" -p=CPU,CORE,SOCKET,NODE,CACHE | grep -v '^#' \
    | awk -F, '{n = split($NF, c, ":"); print $1 "," $2 "," $3 "," $4 "," c[n]}' > "$tmp/$name.lscpu"
  diff -u "$tmp/$name.map" "$tmp/$name.lscpu" || fail "$name: lscpu disagrees with the generator"
  local tpc
  tpc=$(lscpu --sysroot "$dir" | awk -F: '/^Thread\(s\) per core/ {gsub(/ /, "", $2); print $2}')
  [ "$tpc" = "$(( ncpus / ncores ))" ] || fail "$name: lscpu threads per core $tpc"

  # hwloc: counts, then the PUs of every package, NUMA node and L3, and of a few cores.
  export HWLOC_FSROOT="$dir"
  [ "$(hwloc-calc -N pu all)" = "$ncpus" ] || fail "$name: hwloc PUs"
  [ "$(hwloc-calc -N core all)" = "$ncores" ] || fail "$name: hwloc cores"
  [ "$(hwloc-calc -N package all)" = "$nsockets" ] || fail "$name: hwloc packages"
  [ "$(hwloc-calc -N numa all)" = "$nnodes" ] || fail "$name: hwloc NUMA nodes"
  [ "$(hwloc-calc -N l3cache all)" = "$nl3" ] || fail "$name: hwloc L3"
  local s n l k want got
  for ((s = 0; s < nsockets; s++)); do
    want=$(awk -F, -v s=$s '$3 == s {print $1}' "$tmp/$name.map" | canon)
    got=$(hwloc-calc --pi --po -I pu "package:$s" | canon)
    [ "$want" = "$got" ] || fail "$name: package $s: want '$want' got '$got'"
  done
  for ((n = 0; n < nnodes; n++)); do
    want=$(awk -F, -v n=$n '$4 == n {print $1}' "$tmp/$name.map" | canon)
    got=$(hwloc-calc --pi --po -I pu "node:$n" | canon)
    [ "$want" = "$got" ] || fail "$name: node $n: want '$want' got '$got'"
  done
  for ((l = 0; l < nl3; l++)); do
    want=$(awk -F, -v l=$l '$5 == l {print $1}' "$tmp/$name.map" | canon)
    got=$(hwloc-calc --po -I pu "l3cache:$l" | canon)
    [ "$want" = "$got" ] || fail "$name: L3 $l: want '$want' got '$got'"
  done
  for k in 0 1 $(( ncores - 1 )); do
    want=$(awk -F, -v k=$k '$2 == k {print $1}' "$tmp/$name.map" | canon)
    got=$(hwloc-calc --po -I pu "core:$k" | canon)
    [ "$want" = "$got" ] || fail "$name: core $k: want '$want' got '$got'"
  done
  unset HWLOC_FSROOT
  echo "ok $name: $ncpus CPUs, $ncores cores, $nsockets sockets, $nnodes nodes, $nl3 L3"
}

check_shape tiny   --sockets 1 --nodes-per-socket 1 --l3-per-node 1 --cores-per-l3 8 --smt 1
check_shape epycish --sockets 2 --nodes-per-socket 2 --l3-per-node 2 --cores-per-l3 2 --smt 2
check_shape linear --sockets 4 --nodes-per-socket 1 --l3-per-node 2 --cores-per-l3 4 --smt 2 --numbering linear
check_shape smt4   --sockets 2 --nodes-per-socket 4 --l3-per-node 1 --cores-per-l3 4 --smt 4
check_shape big    --sockets 4 --nodes-per-socket 2 --l3-per-node 4 --cores-per-l3 8 --smt 2

# The generator refuses a non-empty target and nonsense shapes.
if "$gen" "$tmp/tiny" --sockets 1 2>/dev/null; then fail "overwrote a non-empty directory"; fi
if "$gen" "$tmp/zero" --smt 0 2>/dev/null; then fail "accepted --smt 0"; fi
echo "all shapes agree"
