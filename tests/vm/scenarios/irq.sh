# vm-topologies: 2s2c2t-2n-pci
# Interrupts on a real kernel: the NVMe disk's queues are managed by the
# kernel (pin --irq refuses them by name and moves nothing); a root port's
# MSI on node 1 moves to socket 0 and back; the node-1 NIC's receive
# interrupt moves to socket 0, and once packets arrive (ARP from the other
# NIC on the same hub) the kernel delivers it there (effective_affinity_list:
# without interrupt remapping an IRQ moves at its next interrupt); --check
# and --dry-run change nothing.
. "$VM_LIB"
aff() { cat /proc/irq/$1/smp_affinity_list; }
eff() { cat /proc/irq/$1/effective_affinity_list; }
nvme_irqs=$(ls /sys/bus/pci/devices/0000:81:00.0/msi_irqs | sort -n | tr '\n' ' ')
port=$(ls /sys/bus/pci/devices/0000:80:00.0/msi_irqs | sort -n | head -n 1)
check_run "show --irq nvme0n1 --json" 0 affix show --irq --json nvme0n1
check_eq "show --irq nvme0n1: its queues" "$nvme_irqs" "$(json '[.[].irq | tostring] | join(" ")') "
# Debian's kernel has no IRQ debugfs (GENERIC_IRQ_DEBUGFS), where the flag
# can be read without writing: show says unknown (null), never "not managed".
check_eq "no I/O queue shown as unmanaged" "true" \
  "$(json '[.[] | select(.name | test("nvme0q[1-9]")) | .managed != false] | all | tostring')"
before=$(for i in $nvme_irqs; do aff $i; done | tr '\n' ' ')
check_run "pin --irq socket:0 nvme0n1" 1 affix pin --irq socket:0 nvme0n1
check_match "refused by name" "affix: error: *managed*" "$ERR"
check_eq "nothing moved" "$before" "$(for i in $nvme_irqs; do aff $i; done | tr '\n' ' ')"
check_run "show --irq (every IRQ with a device)" 0 affix show --irq --json
check_eq "the root port's MSI listed with its device" "0000:80:00.0" "$(json ".[] | select(.irq == $port) | .device.pci")"
check_run "pin --irq --dry-run socket:0 $port" 0 affix pin --irq --dry-run socket:0 $port
check_eq "--dry-run moved nothing" "4-7" "$(aff $port)"
check_run "pin --irq --check socket:0 $port" 1 affix pin --irq --check socket:0 $port
check_run "pin --irq socket:0 $port" 0 affix pin --irq socket:0 $port
check_eq "smp_affinity_list is socket 0" "0-3" "$(aff $port)"
check_run "pin --irq socket:1 $port (back)" 0 affix pin --irq socket:1 $port
check_eq "back on socket 1" "4-7" "$(aff $port)"

ip link set eth0 up; ip link set eth1 up
rx=$(awk '$NF == "virtio1-input.0" { sub(":", "", $1); print $1 }' /proc/interrupts)
check_true "eth1's receive interrupt ($rx)" test -n "$rx"
check_run "pin --irq socket:0 $rx" 0 affix pin --irq socket:0 $rx
check_eq "its smp_affinity_list is socket 0" "0-3" "$(aff $rx)"
i=0
while ! in_list "$(eff $rx)" 0-3 && [ $i -lt 20 ]; do
  arping -c 1 -w 1 -I eth0 10.9.9.9 > /dev/null 2>&1; i=$((i + 1))
done
check_true "delivered within socket 0 once packets came ($(eff $rx))" in_list "$(eff $rx)" 0-3
check_run "pin --irq --check socket:0 $rx" 0 affix pin --irq --check socket:0 $rx
check_run "pin --irq --check socket:1 $rx" 1 affix pin --irq --check socket:1 $rx
check_match "--check names it" "*IRQ $rx (virtio1-input.0): cpus 0-3*not within 4-7*" "$OUT"
check_run "pin --irq socket:1 eth1 (every IRQ of the device)" 0 affix pin --irq socket:1 eth1
check_eq "back on node 1" "4-7" "$(aff $rx)"
check_run "pin --irq of an IRQ that does not exist" 2 affix pin --irq socket:0 9999
check_run "pin --irq of a word that is no IRQ nor device" 2 affix pin --irq socket:0 x/y
finish
