# shellcheck shell=bash
# The machines the VM tests boot. vm_topology NAME sets:
#   T_SOCKETS T_CORES T_THREADS   -smp sockets/cores per socket/threads per core
#   T_NODE_CPUS[i]                cpulist of NUMA node i ("" = no CPUs)
#   T_NODE_MEM[i]                 memory of node i in MiB (0 = memoryless)
#   T_DIST[i]                     row i of the distance matrix, "10 20 ..."
# QEMU numbers CPU n as thread n%T of core (n/T)%C of socket n/(C*T).
# Every matrix is given in full: what the guest kernel must report.

# shellcheck disable=SC2034  # (used by the scripts that source this file)
VM_TOPOLOGIES="2s2c2t-2n 2s4c2t-4n 4s2c1t-4n-asym 2s2c2t-3n-cpuless 2s2c2t-3n-memless"

vm_topology() {
  T_NODE_CPUS=() T_NODE_MEM=() T_DIST=()
  case $1 in
    2s2c2t-2n)  # two sockets, one node each, SMT pairs 0-1 2-3 4-5 6-7
      T_SOCKETS=2 T_CORES=2 T_THREADS=2
      T_NODE_CPUS=(0-3 4-7) T_NODE_MEM=(384 384)
      T_DIST=("10 20" "20 10");;
    2s4c2t-4n)  # sub-NUMA clustering: two nodes per socket, closer inside a socket
      T_SOCKETS=2 T_CORES=4 T_THREADS=2
      T_NODE_CPUS=(0-3 4-7 8-11 12-15) T_NODE_MEM=(256 256 256 256)
      T_DIST=("10 12 21 21" "12 10 21 21" "21 21 10 12" "21 21 12 10");;
    4s2c1t-4n-asym)  # four sockets, a distance matrix that is not symmetric
      T_SOCKETS=4 T_CORES=2 T_THREADS=1
      T_NODE_CPUS=(0-1 2-3 4-5 6-7) T_NODE_MEM=(256 256 256 256)
      T_DIST=("10 16 22 28" "26 10 16 22" "32 26 10 16" "18 32 26 10");;
    2s2c2t-3n-cpuless)  # node 2: memory and no CPUs (a CXL/HBM expander)
      T_SOCKETS=2 T_CORES=2 T_THREADS=2
      T_NODE_CPUS=(0-3 4-7 "") T_NODE_MEM=(256 256 256)
      T_DIST=("10 20 30" "20 10 30" "30 30 10");;
    2s2c2t-3n-memless)  # node 2: CPUs 6-7 and no memory; nearest memory is node 1
      T_SOCKETS=2 T_CORES=2 T_THREADS=2
      T_NODE_CPUS=(0-3 4-5 6-7) T_NODE_MEM=(384 384 0)
      T_DIST=("10 20 20" "20 10 15" "20 15 10");;
    *) return 1;;
  esac
  T_CPUS=$((T_SOCKETS * T_CORES * T_THREADS))
}

# The qemu arguments of the current topology: -smp, memory backends, nodes,
# distances. Sets T_QEMU (array) and T_MEM_TOTAL (MiB).
vm_topology_qemu_args() {
  local i j row cpus arg
  T_QEMU=(-smp "$T_CPUS,sockets=$T_SOCKETS,cores=$T_CORES,threads=$T_THREADS")
  T_MEM_TOTAL=0
  for i in "${!T_NODE_CPUS[@]}"; do
    arg="node,nodeid=$i"
    cpus=${T_NODE_CPUS[i]}
    # shellcheck disable=SC2086  # one cpus= per comma-separated range
    [[ -n $cpus ]] && arg+=$(printf ',cpus=%s' ${cpus//,/ })
    if ((T_NODE_MEM[i] > 0)); then
      T_QEMU+=(-object "memory-backend-ram,id=mem$i,size=${T_NODE_MEM[i]}M")
      arg+=",memdev=mem$i"
      T_MEM_TOTAL=$((T_MEM_TOTAL + T_NODE_MEM[i]))
    fi
    T_QEMU+=(-numa "$arg")
  done
  for i in "${!T_DIST[@]}"; do
    read -ra row <<<"${T_DIST[i]}"
    for j in "${!row[@]}"; do
      ((i == j)) || T_QEMU+=(-numa "dist,src=$i,dst=$j,val=${row[j]}")
    done
  done
}

# The layout as shell assignments for the guest (sourced by scenarios).
vm_topology_env() {
  local i
  echo "VM_TOPOLOGY='$1'"
  echo "VM_SOCKETS=$T_SOCKETS VM_CORES=$T_CORES VM_THREADS=$T_THREADS VM_CPUS=$T_CPUS"
  echo "VM_NODES=${#T_NODE_CPUS[@]}"
  for i in "${!T_NODE_CPUS[@]}"; do
    echo "VM_NODE${i}_CPUS='${T_NODE_CPUS[i]}' VM_NODE${i}_MEM=${T_NODE_MEM[i]} VM_NODE${i}_DIST='${T_DIST[i]}'"
  done
}
