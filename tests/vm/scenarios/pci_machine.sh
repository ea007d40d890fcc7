# vm-topologies: 2s2c2t-2n-pci
# The PCI topology is what the device scenarios rely on: an NVMe disk and a
# NIC behind a PCI expander bridge on node 1, with their drivers' names, and
# a NIC on the root bus that no node holds. Checked in sysfs, then what
# affix reads of the machine is unchanged by the devices.
. "$VM_LIB"
dev() { cat "/sys/bus/pci/devices/$1/$2" 2>&1; }
check_eq "the disk's function on node 1" "1 4-7" "$(dev 0000:81:00.0 numa_node) $(dev 0000:81:00.0 local_cpulist)"
check_eq "the node-1 NIC's function on node 1" "1 4-7" "$(dev 0000:82:00.0 numa_node) $(dev 0000:82:00.0 local_cpulist)"
check_eq "the root-bus NIC placed nowhere" "-1 0-7" "$(dev 0000:00:02.0 numa_node) $(dev 0000:00:02.0 local_cpulist)"
check_match "nvme0n1 is the disk (nvme loaded)" "*/0000:81:00.0/nvme/nvme0/nvme0n1" "$(realpath /sys/class/block/nvme0n1)"
check_match "eth1 is the node-1 NIC (virtio_net loaded)" "*/0000:82:00.0/virtio*/net/eth1" "$(realpath /sys/class/net/eth1)"
check_match "eth0 is the root-bus NIC" "*/0000:00:02.0/virtio*/net/eth0" "$(realpath /sys/class/net/eth0)"
check_true "the disk's queues have interrupts" test -n "$(ls /sys/bus/pci/devices/0000:81:00.0/msi_irqs 2>/dev/null)"
check_run "topo --json" 0 affix topo --json
check_eq "nodes" "0-3 4-7" "$(json '[.nodes[].cpus] | join(" ")')"
finish
