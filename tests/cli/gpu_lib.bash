# Synthetic roots with GPUs for the --gpu scripts (not a test itself: not
# *.sh), as tests/support/gpu_builders.hpp writes them for the unit tests:
#   gpu_machine DIR NODES CORES SMT   N nodes (a socket and an L3 each) of C
#                                     cores of T threads, CPUs core by core
#   gpu_function DIR BDF VENDOR NODE FIRST LAST [UUID|UNIQUE_ID]
#                                     a display function on NODE, local to
#                                     CPUs FIRST-LAST; NVIDIA's (0x10de)
#                                     with the driver's information file
#                                     where a UUID is given, AMD's (0x1002)
#                                     with a unique_id where one is given
gpu_machine() {
  local dir=$1 nodes=$2 cores=$3 smt=$4 per c n first pkg row m t
  per=$((cores * smt))
  mkdir -p "$dir/sys/devices/system/cpu" "$dir/sys/devices/system/node"
  for f in online possible present; do echo "0-$((nodes * per - 1))" > "$dir/sys/devices/system/cpu/$f"; done
  for ((c = 0; c < nodes * per; c++)); do
    n=$((c / per)) first=$((c - c % smt)) pkg="$((n * per))-$(((n + 1) * per - 1))"
    t="$dir/sys/devices/system/cpu/cpu$c"
    mkdir -p "$t/topology" "$t/cache/index3"
    echo "$n" > "$t/topology/physical_package_id"
    echo $((c % per / smt)) > "$t/topology/core_id"
    echo 0 > "$t/topology/die_id"
    if ((smt == 1)); then echo "$c"; else echo "$first-$((first + smt - 1))"; fi > "$t/topology/thread_siblings_list"
    echo "$pkg" > "$t/topology/core_siblings_list"
    echo 3 > "$t/cache/index3/level"
    echo Unified > "$t/cache/index3/type"
    echo "$pkg" > "$t/cache/index3/shared_cpu_list"
  done
  for ((n = 0; n < nodes; n++)); do
    t="$dir/sys/devices/system/node/node$n"
    mkdir -p "$t"
    echo "$((n * per))-$(((n + 1) * per - 1))" > "$t/cpulist"
    echo "Node $n MemTotal: 1048576 kB" > "$t/meminfo"
    row=
    for ((m = 0; m < nodes; m++)); do row+="${row:+ }$( ((m == n)) && echo 10 || echo 20)"; done
    echo "$row" > "$t/distance"
  done
}

# The kernel's cpumask of CPUs FIRST-LAST (below 64): "ffff,00000000" style words.
gpu_mask() {
  local first=$1 last=$2 lo=0 hi=0 c
  for ((c = first; c <= last; c++)); do
    if ((c < 32)); then lo=$((lo | 1 << c)); else hi=$((hi | 1 << (c - 32))); fi
  done
  if ((last >= 32)); then printf '%08x,%08x\n' "$hi" "$lo"; else printf '%08x\n' "$lo"; fi
}

gpu_function() {
  local dir=$1 bdf=$2 vendor=$3 node=$4 first=$5 last=$6 id=${7:-} fn
  fn="$dir/sys/devices/pci${bdf:0:7}/$bdf"
  mkdir -p "$fn" "$dir/sys/bus/pci/devices"
  echo 0x030200 > "$fn/class"
  echo "$vendor" > "$fn/vendor"
  echo "$node" > "$fn/numa_node"
  gpu_mask "$first" "$last" > "$fn/local_cpus"
  ln -s "../../../devices/pci${bdf:0:7}/$bdf" "$dir/sys/bus/pci/devices/$bdf"
  [[ -z $id ]] && return
  if [[ $vendor == 0x10de ]]; then
    mkdir -p "$dir/proc/driver/nvidia/gpus/$bdf"
    printf 'Model: \t\t NVIDIA H100 80GB HBM3\nGPU UUID: \t %s\nBus Location: \t %s\n' "$id" "$bdf" \
      > "$dir/proc/driver/nvidia/gpus/$bdf/information"
  else
    echo "$id" > "$fn/unique_id"
  fi
}
