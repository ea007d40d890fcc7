# shellcheck shell=bash
# The machines the VM tests boot. vm_topology NAME sets:
#   T_SOCKETS T_CORES T_THREADS   -smp sockets/cores per socket/threads per core
#   T_NODE_CPUS[i]                cpulist of NUMA node i ("" = no CPUs)
#   T_NODE_MEM[i]                 memory of node i in MiB (0 = memoryless)
#   T_DIST[i]                     row i of the distance matrix, "10 20 ..."
#   T_NODE_INIT[i]                initiator of CPU-less node i (HMAT: whose CPUs it serves)
#   T_MACHINE                     more -M options ("hmat=on")
#   T_HMAT                        -numa hmat-lb / hmat-cache values (array), e.g.
#                                 "hmat-lb,initiator=0,target=2,hierarchy=memory,data-type=read-bandwidth,bandwidth=10000M"
# QEMU numbers CPU n as thread n%T of core (n/T)%C of socket n/(C*T).
# Every matrix is given in full: what the guest kernel must report.

# shellcheck disable=SC2034  # (used by the scripts that source this file)
VM_TOPOLOGIES="2s2c2t-2n 2s4c2t-4n 4s2c1t-4n-asym 2s2c2t-3n-cpuless 2s2c2t-3n-memless 2s2c2t-2n-pci 2s2c2t-3n-hmat 2s2c2t-2n-gpu"

#   T_PCI                         1: PCI devices on the nodes (see vm_topology_qemu_args)
#   T_GPU                         1: a GPU on each node (see vm_topology_qemu_args)
vm_topology() {
  T_NODE_CPUS=() T_NODE_MEM=() T_DIST=() T_PCI=0 T_GPU=0 T_NODE_INIT=() T_MACHINE="" T_HMAT=()
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
    2s2c2t-2n-pci)  # 2s2c2t-2n with an NVMe disk and a NIC on node 1, a NIC the kernel places nowhere
      T_SOCKETS=2 T_CORES=2 T_THREADS=2
      T_NODE_CPUS=(0-3 4-7) T_NODE_MEM=(384 384)
      T_DIST=("10 20" "20 10") T_PCI=1;;
    2s2c2t-3n-hmat)  # 2s2c2t-3n-cpuless with ACPI HMAT: node 2 a slower memory expander (CXL) on node 0
      T_SOCKETS=2 T_CORES=2 T_THREADS=2
      T_NODE_CPUS=(0-3 4-7 "") T_NODE_MEM=(256 256 256) T_NODE_INIT=("" "" 0)
      T_DIST=("10 20 30" "20 10 30" "30 30 10") T_MACHINE="hmat=on"
      # Each node from its nearest CPUs: DRAM 12000 MB/s and 100 ns; node 2
      # from node 0's CPUs reads at 10000 MB/s and writes at 8000, in 250 ns
      # and 300 ns (the kernel weighs the smaller bandwidth: 12000, 12000 and
      # 8000 weigh 3:3:2). Every entry gives read and write apart: an
      # "access" entry beside them reads as 0 (not given) in the kernel.
      local i t
      for i in 0 1; do
        for t in "read-latency,latency=100" "write-latency,latency=100" "read-bandwidth,bandwidth=12000M" \
                 "write-bandwidth,bandwidth=12000M"; do
          T_HMAT+=("hmat-lb,initiator=$i,target=$i,hierarchy=memory,data-type=$t")
        done
      done
      for t in "read-latency,latency=250" "write-latency,latency=300" "read-bandwidth,bandwidth=10000M" \
               "write-bandwidth,bandwidth=8000M"; do
        T_HMAT+=("hmat-lb,initiator=0,target=2,hierarchy=memory,data-type=$t")
      done
      # A memory-side cache in front of node 2, as a CXL expander may have.
      T_HMAT+=("hmat-cache,node-id=2,size=16M,level=1,associativity=direct,policy=write-back,line=64");;
    2s2c2t-2n-gpu)  # 2s2c2t-2n with a display function of AMD's vendor id behind an expander bridge on each node
      T_SOCKETS=2 T_CORES=2 T_THREADS=2
      T_NODE_CPUS=(0-3 4-7) T_NODE_MEM=(384 384)
      T_DIST=("10 20" "20 10") T_GPU=1;;
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
    [[ -n ${T_NODE_INIT[i]:-} ]] && arg+=",initiator=${T_NODE_INIT[i]}"
    T_QEMU+=(-numa "$arg")
  done
  for i in "${!T_DIST[@]}"; do
    read -ra row <<<"${T_DIST[i]}"
    for j in "${!row[@]}"; do
      ((i == j)) || T_QEMU+=(-numa "dist,src=$i,dst=$j,val=${row[j]}")
    done
  done
  # HMAT (with T_MACHINE hmat=on): latencies, bandwidths, memory-side caches.
  for arg in "${T_HMAT[@]}"; do T_QEMU+=(-numa "$arg"); done
  # With T_PCI: a PCI expander bridge on node 1 (bus 0x80) with two root
  # ports, an NVMe disk behind the first (0000:81:00.0) and a virtio NIC
  # behind the second (0000:82:00.0): the kernel gives both numa_node 1 and
  # local_cpulist 4-7. A second virtio NIC on the root bus (0000:00:02.0),
  # which no node holds: numa_node -1, every CPU local. The NICs are joined
  # to a hub that leads nowhere. The disk's image is T_PCI_DISK, made by
  # run-vm. Only SeaBIOS sets up the expander's bus range (run-vm drops
  # qboot), and the names (nvme0n1, eth0, eth1) need the drivers' modules
  # (vm_modules).
  if ((T_PCI)); then
    T_QEMU+=(-device virtio-net-pci,netdev=n0,bus=pcie.0,addr=02.0 -netdev hubport,id=n0,hubid=0
             -device pxb-pcie,id=pxb1,bus_nr=128,numa_node=1,bus=pcie.0
             -device pcie-root-port,id=rp1,bus=pxb1,chassis=1,slot=1
             -device pcie-root-port,id=rp2,bus=pxb1,chassis=2,slot=2
             -device "nvme,bus=rp1,serial=affix0,drive=d1"
             -drive "file=$T_PCI_DISK,if=none,id=d1,format=raw"
             -device virtio-net-pci,netdev=n1,bus=rp2 -netdev hubport,id=n1,hubid=0)
  fi
  # With T_GPU: a PCI expander bridge on each node (node 0: bus 0x40, node
  # 1: bus 0x80), a root port behind each and behind that QEMU's ati-vga, a
  # display function (class 0x030000) with AMD's vendor id 0x1002:
  # 0000:41:00.0 on node 0 (local_cpulist 0-3) and 0000:81:00.0 on node 1
  # (4-7), gpu0 and gpu1 in PCI address order. No driver binds them (no
  # amdgpu, so no unique_id): what --gpu reads is the PCI functions' sysfs
  # files. SeaBIOS sets up the expanders' bus ranges (run-vm drops qboot).
  if ((T_GPU)); then
    T_QEMU+=(-device pxb-pcie,id=pxb0,bus_nr=64,numa_node=0,bus=pcie.0
             -device pcie-root-port,id=rpg0,bus=pxb0,chassis=3,slot=3
             -device ati-vga,bus=rpg0
             -device pxb-pcie,id=pxb1,bus_nr=128,numa_node=1,bus=pcie.0
             -device pcie-root-port,id=rpg1,bus=pxb1,chassis=4,slot=4
             -device ati-vga,bus=rpg1)
  fi
}

# The layout as shell assignments for the guest (sourced by scenarios).
vm_topology_env() {
  local i
  echo "VM_TOPOLOGY='$1'"
  echo "VM_SOCKETS=$T_SOCKETS VM_CORES=$T_CORES VM_THREADS=$T_THREADS VM_CPUS=$T_CPUS"
  echo "VM_NODES=${#T_NODE_CPUS[@]} VM_PCI=$T_PCI VM_GPU=$T_GPU VM_HMAT=$((${#T_HMAT[@]} > 0))"
  for i in "${!T_NODE_CPUS[@]}"; do
    echo "VM_NODE${i}_CPUS='${T_NODE_CPUS[i]}' VM_NODE${i}_MEM=${T_NODE_MEM[i]} VM_NODE${i}_DIST='${T_DIST[i]}'"
  done
}
