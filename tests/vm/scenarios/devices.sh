# vm-topologies: 2s2c2t-2n-pci
# near:DEVICE on a real kernel: a disk and a NIC behind a PCI expander
# bridge on node 1, by PCI address and by name; --mem bind follows the
# device; a NIC the kernel places nowhere is every CPU, with the warning;
# topo lists the devices under their node; bad names are errors.
. "$VM_LIB"
for d in 0000:81:00.0 81:00.0 nvme0n1 0000:82:00.0 eth1; do
  check_run "explain near:$d" 0 affix explain --json near:$d
  check_eq "near:$d: the CPUs of node 1" "4-7 1" "$(json '.cpus + " " + .nodes')"
done
check_run "explain near:eth1 (text)" 0 affix explain near:eth1
check_match "explain names the device" "*eth1*0000:82:00.0*" "$OUT"
check_run "near:nvme0n1.core:1" 0 affix explain --json near:nvme0n1.core:1
check_eq "near:nvme0n1.core:1: the second core of node 1" "6-7" "$(json .cpus)"
check_run "run near:eth1 --mem bind" 0 affix near:eth1 --mem bind cat /proc/self/status /proc/self/numa_maps
check_eq "the command's CPUs" "4-7" "$(printf '%s\n' "$OUT" | sed -n 's/^Cpus_allowed_list:[[:space:]]*//p')"
check_match "its memory bound to node 1" "* bind:1 *" "$(printf '%s\n' "$OUT" | grep -m 1 ' bind:')"
check_run "near:eth0 (numa_node -1)" 0 affix explain --json near:eth0
check_eq "near:eth0 is every CPU" "0-7" "$(json .cpus)"
check_match "near:eth0: explain's warning" "*the kernel does not say where eth0 is (numa_node -1): near:eth0 is every CPU*" "$(json '.warnings | join("|")')"
check_run "run near:eth0" 0 affix near:eth0 true
check_eq "run near:eth0: the warning" "affix: warning: the kernel does not say where eth0 is (numa_node -1): near:eth0 is every CPU" "$ERR"
check_run "topo" 0 affix topo
check_match "topo: node 1's devices" "*devices*eth1*nvme0n1*" "$OUT"
check_run "topo --json" 0 affix topo --json
check_eq "topo --json: nvme0n1" "block 0000:81:00.0 1 4-7" "$(json '.devices[] | select(.name == "nvme0n1") | "\(.class) \(.pci) \(.node) \(.cpus)"')"
check_eq "topo --json: eth1" "net 0000:82:00.0 1 4-7" "$(json '.devices[] | select(.name == "eth1") | "\(.class) \(.pci) \(.node) \(.cpus)"')"
check_eq "topo --json: eth0, node null" "net 0000:00:02.0 null 0-7" "$(json '.devices[] | select(.name == "eth0") | "\(.class) \(.pci) \(.node) \(.cpus)"')"
check_run "near:lo" 2 affix explain near:lo
check_match "near:lo: no PCI function" "affix: error: *lo*" "$ERR"
check_run "near:nvme9n9" 2 affix explain near:nvme9n9
check_match "near:nvme9n9: no such device, the disks listed" "affix: error: *nvme9n9*" "$ERR"
check_match "near:nvme9n9: the hint names nvme0n1" "*nvme0n1*" "$ERR"
check_run "near:0000:81:00.8" 2 affix explain near:0000:81:00.8
check_run "socket:0.near:eth1" 2 affix explain socket:0.near:eth1
finish
