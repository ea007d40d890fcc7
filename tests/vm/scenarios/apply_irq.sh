# vm-topologies: 2s2c2t-2n-pci
# affix apply on a real kernel with two nodes and a NIC on node 1: an IRQ
# rule by name moves eth1's interrupts (virtio1-*) near eth1, then another
# file moves its receive queue to socket 0; --check exits 1 naming the IRQ
# before and 0 after; --dry-run changes nothing; a process rule puts a
# process the scenario starts on node 1 (every thread read back), and the
# file's error refuses it whole.
. "$VM_LIB"
aff() { cat /proc/irq/$1/smp_affinity_list; }
eff() { cat /proc/irq/$1/effective_affinity_list; }
ip link set eth0 up; ip link set eth1 up
rx=$(awk '$NF == "virtio1-input.0" { sub(":", "", $1); print $1 }' /proc/interrupts)
check_true "eth1's receive interrupt ($rx)" test -n "$rx"
virtio1=$(awk '$NF ~ /^virtio1-/ { sub(":", "", $1); print $1 }' /proc/interrupts | tr '\n' ' ')

cat > /tmp/near.toml <<'RULES'
[[rule]]
name = "nic"
irqs = { "virtio1-*" = "near:eth1" }
RULES
check_run "apply near: eth1's IRQs" 0 affix apply /tmp/near.toml
check_match "apply: the rule's block" "rule nic: IRQs*'virtio1-\*': *IRQs on CPUs 4-7*" "$(echo $OUT)"
check_eq "every virtio1 IRQ on node 1" "$(for i in $virtio1; do echo 4-7; done | tr '\n' ' ')" \
  "$(for i in $virtio1; do aff $i; done | tr '\n' ' ')"
check_run "apply --check near: in place" 0 affix apply --check /tmp/near.toml
check_match "--check: the count" "*IRQs checked: everything where the rules say" "$OUT"

cat > /tmp/s0.toml <<'RULES'
[[rule]]
name = "rx0"
irqs = { "virtio1-input.*" = "socket:0" }
RULES
check_run "apply --check socket:0: not yet" 1 affix apply --check /tmp/s0.toml
check_match "--check names the IRQ" "*rx0: IRQ $rx (virtio1-input.0): cpus 4-7*, not within 0-3*" "$OUT"
check_run "apply --dry-run socket:0" 0 affix apply --dry-run /tmp/s0.toml
check_eq "--dry-run moved nothing" "4-7" "$(aff $rx)"
check_run "apply socket:0" 0 affix apply /tmp/s0.toml
check_eq "the receive interrupt on socket 0" "0-3" "$(aff $rx)"
# Without interrupt remapping an IRQ moves at its next interrupt; --check
# reads the effective list too: packets from the other NIC (ARP) bring it.
i=0
while ! in_list "$(eff $rx)" 0-3 && [ $i -lt 20 ]; do
  arping -c 1 -w 1 -I eth0 10.9.9.9 > /dev/null 2>&1; i=$((i + 1))
done
check_true "delivered within socket 0 once packets came ($(eff $rx))" in_list "$(eff $rx)" 0-3
check_run "apply --check socket:0: in place" 0 affix apply --check /tmp/s0.toml
check_run "apply --check --json near: one IRQ off" 1 affix apply --check --json /tmp/near.toml
check_eq "--check --json: the IRQ and its rule" "irq $rx nic" \
  "$(json '.differences[] | "\(.kind) \(.irq) \(.rule)"')"

# A process rule, resolved on this machine's nodes.
sleep 4242 &
sp=$!
cat > /tmp/proc.toml <<'RULES'
[[rule]]
name = "sleeper"
comm = "sleep"
cmdline = "^sleep 4242$"
where = "node:1.core:1"
RULES
check_run "apply --check proc: not yet" 1 affix apply --check /tmp/proc.toml
check_match "--check names the process" "sleeper: $sp (sleep): cpus 0-7, not within 6-7*" "$OUT"
check_run "apply proc" 0 affix apply /tmp/proc.toml
check_eq "the sleeper on node 1's second core" "6-7" "$(status_of $sp Cpus_allowed_list)"
check_run "apply --check proc: in place" 0 affix apply --check /tmp/proc.toml

# An error anywhere in the file: nothing of it is applied.
cat > /tmp/bad.toml <<'RULES'
[[rule]]
name = "nic"
irqs = { "virtio1-*" = "near:eth1" }

[[rule]]
name = "sleeper"
comm = "sleep"
where = "node:2"
RULES
check_run "a node this machine lacks: exit 2" 2 affix apply /tmp/bad.toml
check_eq "the error, with line and column" "affix: error: /tmp/bad.toml:8:9: no node 2 on this machine (nodes: 0-1)" "$ERR"
check_eq "nothing applied (the IRQ stays on socket 0)" "0-3" "$(aff $rx)"
check_eq "nothing applied (the sleeper stays)" "6-7" "$(status_of $sp Cpus_allowed_list)"
kill $sp
finish
