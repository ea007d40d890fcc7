#!/usr/bin/env bash
# show --irq and pin --irq (affix(1), INTERRUPTS): show on a synthetic root
# (text, JSON, devices by name and address, bad words), show on this machine
# read only (the JSON parses, every IRQ it lists is in /proc/interrupts),
# pin --irq's usage errors, --dry-run and --check on a real IRQ (nothing
# written: its list is the same after), and as nobody the refusal before
# any write. Nothing here moves an interrupt.
. "$AFFIX_SOURCE_DIR/tests/cli/check_lib.bash"
root=$(mktemp -d /tmp/affix-irq-XXXXXX)
trap 'rm -rf "$root"' EXIT

# --- A synthetic root: a NIC (MSI-X 130-131) and an NVMe drive (40, managed)
mkdir -p "$root/proc" "$root/sys/class/net" "$root/sys/class/block" "$root/sys/bus/pci/devices" \
  "$root/sys/kernel/debug/irq/irqs"
cat >"$root/proc/interrupts" <<'END'
           CPU0       CPU1       CPU2       CPU3
  40:         10          0          0          0  IR-PCI-MSIX-0000:00:04.0    0-edge      nvme0q0
 130:     120000          0          0      98122  IR-PCI-MSIX-0000:02:00.0    0-edge      eth0-TxRx-0
 131:          0          7          0          0  IR-PCI-MSIX-0000:02:00.0    1-edge      eth0-TxRx-1
 NMI:          0          0          0          0   Non-maskable interrupts
END
irq_lists() {  # IRQ CPUS [EFFECTIVE]
  mkdir -p "$root/proc/irq/$1"
  echo "$2" >"$root/proc/irq/$1/smp_affinity_list"
  [[ $# -lt 3 ]] || echo "$3" >"$root/proc/irq/$1/effective_affinity_list"
}
irq_lists 40 0 0
irq_lists 130 0-3 0
irq_lists 131 2-3
printf 'dstate:   0x02600200\n            IRQD_AFFINITY_MANAGED\n' >"$root/sys/kernel/debug/irq/irqs/40"
printf 'dstate:   0x00400000\n            IRQD_AFFINITY_SET\n' >"$root/sys/kernel/debug/irq/irqs/130"
nic=sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0
mkdir -p "$root/$nic/msi_irqs" "$root/$nic/net/eth0"
touch "$root/$nic/msi_irqs/130" "$root/$nic/msi_irqs/131"
ln -s ../../devices/pci0000:00/0000:00:02.0/0000:02:00.0/net/eth0 "$root/sys/class/net/eth0"
ln -s ../../../devices/pci0000:00/0000:00:02.0/0000:02:00.0 "$root/sys/bus/pci/devices/0000:02:00.0"
nvme=sys/devices/pci0000:00/0000:00:04.0
mkdir -p "$root/$nvme/msi_irqs" "$root/$nvme/nvme/nvme0/nvme0n1"
touch "$root/$nvme/msi_irqs/40"
ln -s ../../devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1 "$root/sys/class/block/nvme0n1"
ln -s ../../../devices/pci0000:00/0000:00:04.0 "$root/sys/bus/pci/devices/0000:00:04.0"

out=$("$AFFIX" show --irq --root "$root" 2>&1); rc=$?
check "show --irq: exit 0" 0 "$rc"
check "show --irq: the table" \
"IRQ  CPUS  EFFECTIVE  MANAGED  DEVICE                      NAME                                         COUNTS
40   0     0          yes      0000:00:04.0 nvme0,nvme0n1  IR-PCI-MSIX-0000:00:04.0 0-edge nvme0q0      0:10
130  0-3   0          no       0000:02:00.0 eth0           IR-PCI-MSIX-0000:02:00.0 0-edge eth0-TxRx-0  0:120000 3:98122
131  2-3   -          unknown  0000:02:00.0 eth0           IR-PCI-MSIX-0000:02:00.0 1-edge eth0-TxRx-1  1:7" "$out"
out=$("$AFFIX" show --irq --root "$root" nvme0n1 2>&1)
check "show --irq nvme0n1: its PCI function's IRQ" \
"IRQ  CPUS  EFFECTIVE  MANAGED  DEVICE                      NAME                                     COUNTS
40   0     0          yes      0000:00:04.0 nvme0,nvme0n1  IR-PCI-MSIX-0000:00:04.0 0-edge nvme0q0  0:10" "$out"
out=$("$AFFIX" show --irq --json --root "$root" 02:00.0 2>&1)
check "show --irq --json 02:00.0" \
'[{"irq": 130, "name": "IR-PCI-MSIX-0000:02:00.0 0-edge eth0-TxRx-0", "actions": "eth0-TxRx-0", "device": {"pci": "0000:02:00.0", "names": ["eth0"]}, "cpus": "0-3", "effective": "0", "counts": {"0": 120000, "1": 0, "2": 0, "3": 98122}, "managed": false}, {"irq": 131, "name": "IR-PCI-MSIX-0000:02:00.0 1-edge eth0-TxRx-1", "actions": "eth0-TxRx-1", "device": {"pci": "0000:02:00.0", "names": ["eth0"]}, "cpus": "2-3", "effective": null, "counts": {"0": 0, "1": 7, "2": 0, "3": 0}, "managed": null}]' "$out"
check "show --irq eth0 and 02:00.0 name the same IRQs" \
  "$("$AFFIX" show --irq --root "$root" 0000:02:00.0)" "$("$AFFIX" show --irq --root "$root" eth0)"

expect() {  # NAME STATUS STDERR -- ARGS...
  local name=$1 status=$2 want=$3; shift 4
  local err rc
  err=$("$AFFIX" "$@" 2>&1 >/dev/null); rc=$?
  check "$name: exit" "$status" "$rc"
  check "$name: message" "$want" "$err"
}
list_hint="affix: hint: 'affix show --irq' lists the interrupts and their devices"
expect "show --irq 999" 2 "affix: error: IRQ 999 does not exist
$list_hint" -- show --irq --root "$root" 999
expect "show --irq eth5" 2 "affix: error: no IRQ or device named 'eth5'
affix: hint: give an IRQ number, a device name (eth0, nvme0n1) or a PCI address (0000:02:00.0); 'affix show --irq' lists the interrupts and their devices" \
  -- show --irq --root "$root" eth5
expect "show --irq --pinned" 2 "affix: error: --pinned and --irq cannot be used together" -- show --irq --pinned
expect "show --irq without proc/interrupts" 1 "affix: error: $root/sys/proc/interrupts: cannot read" \
  -- show --irq --root "$root/sys"

# --- pin --irq: usage errors, before anything is read or written
pin_hint="affix: hint: 'affix pin --irq WHERE IRQ|DEVICE...' moves interrupts, 'affix pin WHERE PID...' processes"
expect "pin --irq --tid" 2 "affix: error: --irq moves interrupts; it does not go with --tid
$pin_hint" -- pin --irq --tid all 0
expect "pin --irq --mem" 2 "affix: error: --irq moves interrupts; it does not go with --mem
$pin_hint" -- pin --irq --mem bind all 0
expect "pin --irq --tree" 2 "affix: error: --irq moves interrupts; it does not go with --tree
$pin_hint" -- pin --irq --tree all 0
expect "pin --irq --migrate" 2 "affix: error: --irq moves interrupts; it does not go with --migrate
$pin_hint" -- pin --irq --migrate all 0
expect "pin --irq without IRQs" 2 "affix: error: no IRQ or device given: 'all' was read as WHERE
affix: hint: WHERE comes first, then the IRQs or devices: 'affix pin --irq all all'" -- pin --irq all
expect "pin --irq 99999" 2 "affix: error: IRQ 99999 does not exist
$list_hint" -- pin --irq all 99999
expect "pin --irq x1" 2 "affix: error: no IRQ or device named 'x1'
affix: hint: give an IRQ number, a device name (eth0, nvme0n1) or a PCI address (0000:02:00.0); 'affix show --irq' lists the interrupts and their devices" \
  -- pin --irq all x1

# --- This machine, read only
json=$("$AFFIX" show --irq --json); rc=$?
check "show --irq --json here: exit 0" 0 "$rc"
if command -v jq >/dev/null; then
  check "show --irq --json here: an array" array "$(jq -r type <<<"$json")"
  listed=$(jq -r '.[].irq' <<<"$json")
else
  listed=$(grep -oE '"irq":[0-9]+' <<<"$json" | cut -d: -f2)
fi
in_proc=$(awk -F: '$1 ~ /^ *[0-9]+$/ {gsub(/ /, "", $1); print $1}' /proc/interrupts)
missing=$(comm -23 <(sort <<<"$listed") <(sort <<<"$in_proc"))
check "show --irq here: every IRQ listed is in /proc/interrupts" "" "$missing"
text=$("$AFFIX" show --irq)
check "show --irq here: a row per IRQ of the JSON" "$(($(wc -l <<<"$listed") + 1))" "$(wc -l <<<"$text")"
check "show --irq here: the header" "IRQ CPUS EFFECTIVE MANAGED DEVICE" "$(head -1 <<<"$text" | grep -oE "^IRQ +CPUS +EFFECTIVE +MANAGED +DEVICE" | tr -s " ")"

irq=$(head -1 <<<"$listed")
if [[ -n $irq ]]; then
  list=$(</proc/irq/$irq/smp_affinity_list)
  name=$(jq -r ".[] | select(.irq == $irq) | .actions" <<<"$json" 2>/dev/null || true)
  label="IRQ $irq${name:+ ($name)}"
  eff=""
  [[ -r /proc/irq/$irq/effective_affinity_list ]] && eff=", effective $(</proc/irq/$irq/effective_affinity_list)"
  would=1; [[ $list == 0 ]] && would=0
  out=$("$AFFIX" pin --irq --dry-run cpu:0 "$irq" 2>&1); rc=$?
  check "pin --irq --dry-run: exit 0" 0 "$rc"
  check "pin --irq --dry-run: its list and the one it would get" "1 IRQ on CPUs 0 ($would would move)
  $label: $list -> 0$eff" "$out"
  check "pin --irq --dry-run: nothing written" "$list" "$(</proc/irq/$irq/smp_affinity_list)"
  out=$("$AFFIX" pin --irq --check "$list" "$irq" 2>&1); rc=$?
  check "pin --irq --check on its own list: exit 0" 0 "$rc"
  check "pin --irq --check on its own list" "1 IRQ within CPUs $list" "$out"
  # As nobody: refused before any write, and it says why.
  anyone=$(anyone_affix)
  out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$anyone" pin --irq cpu:0 "$irq" 2>&1); rc=$?
  check "pin --irq as nobody: exit 1" 1 "$rc"
  check "pin --irq as nobody: the refusal" "affix: error: $label: cannot write /proc/irq/$irq/smp_affinity_list: Permission denied; nothing was moved
affix: hint: moving interrupts needs root (affix(1), PERMISSIONS)" "$out"
  check "pin --irq as nobody: nothing written" "$list" "$(</proc/irq/$irq/smp_affinity_list)"
  [[ $anyone == "$AFFIX" ]] || rm -rf "$(dirname "$anyone")"
fi

# --- A NIC's IRQs near the NIC (near:DEV DEV), where this machine has a NIC
# with IRQs: the device near: names is read as for run and explain. Only
# --dry-run and --check: nothing is written.
nic=""
for dev in $(jq -r '.[] | select(.device != null) | .device.names[]' <<<"$json" 2>/dev/null | sort -u); do
  [[ -e /sys/class/net/$dev ]] || continue
  "$AFFIX" explain "near:$dev" >/dev/null 2>&1 && { nic=$dev; break; }
done
# (tests/near_machine_test.cpp resolves near:eth1 on a capture, machine or not)
if [[ -n $nic ]]; then
  near_cpus=$("$AFFIX" explain --json "near:$nic" | jq -r .cpus)
  nic_irqs=$(jq -r --arg d "$nic" '[.[] | select(.device != null and (.device.names | index($d))) | .irq] | length' <<<"$json")
  before=$(for i in $(jq -r --arg d "$nic" '.[] | select(.device != null and (.device.names | index($d))) | .irq' <<<"$json"); do
    cat /proc/irq/$i/smp_affinity_list; done)
  out=$("$AFFIX" pin --irq --dry-run "near:$nic" "$nic" 2>&1); rc=$?
  check "pin --irq --dry-run near:$nic $nic: exit 0" 0 "$rc"
  check_match "pin --irq --dry-run near:$nic $nic: its IRQs on the NIC's CPUs" \
    "$nic_irqs IRQ* on CPUs $near_cpus (* would move)*" "$out"
  out=$("$AFFIX" pin --irq --check "near:$nic" "$nic" 2>&1); rc=$?
  check_match "pin --irq --check near:$nic $nic: checked against the NIC's CPUs" \
    "$nic_irqs IRQ*within CPUs $near_cpus*" "$out"
  after=$(for i in $(jq -r --arg d "$nic" '.[] | select(.device != null and (.device.names | index($d))) | .irq' <<<"$json"); do
    cat /proc/irq/$i/smp_affinity_list; done)
  check "near:$nic: nothing written" "$before" "$after"
fi
exit $fail
