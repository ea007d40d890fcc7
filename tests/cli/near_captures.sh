#!/usr/bin/env bash
# near:DEVICE and topo's devices on captured machines (affix(1), LOCATIONS,
# "Devices (near:)"): a network card behind bridges, an RDMA device, a PCI
# address in a 32-bit domain, GPUs in PCI address order, --mem bind that
# follows the device, and the errors (exit 2; run: 125).
. "$(dirname "$0")/check_lib.bash"
corpora="$AFFIX_CORPORA_DIR"
unset OMP_NUM_THREADS OMP_PLACES OMP_PROC_BIND GOMAXPROCS
explain() { "$AFFIX" explain --root "$corpora/$1" "${@:2}"; }
fake=fakepcilocalities

# eth0 at 0000:02:00.0 behind a bridge, local to socket 0 / node 0.
check "eth0: text" "cpus      0,4,8,12,16,20,24,28,32,36 (10 CPUs)
sockets   0
nodes     0
near      eth0 (net): PCI 0000:02:00.0, node 0, CPUs 0,4,8,12,16,20,24,28,32,36
allowed   CPUs 0-39, nodes 0-3 (from all-online)
memory    policy unchanged (no --mem)" "$(explain $fake near:eth0 | head -6)"
# ib0 on node 1: --mem bind takes node 1.
check "ib0: json, --mem bind" '{"cpus": "1,5,9,13,17,21,25,29,33,37", "count": 10, "sequence": [1, 5, 9, 13, 17, 21, 25, 29, 33, 37], "sockets": "1", "nodes": "1", "near": [{"device": "ib0", "class": "net", "pci": "0000:43:00.0", "node": 1, "cpus": "1,5,9,13,17,21,25,29,33,37"}], "allowed": {"cpus": "0-39", "nodes": "0-3", "source": "all-online"}, "self": "0-39", "mem": {"policy": "bind", "nodes": "1"}, "dropped": [], "env": {"AFFIX_CPUS": "1,5,9,13,17,21,25,29,33,37", "AFFIX_NODES": "1", "OMP_NUM_THREADS": "10", "GOMAXPROCS": "10", "OMP_PLACES": "{1},{5},{9},{13},{17},{21},{25},{29},{33},{37}", "OMP_PROC_BIND": "close", "AFFIX_ENV": "OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND"}, "env_kept": {}, "warnings": []}' \
  "$(explain $fake --json near:ib0 --mem bind)"
check "RDMA device qib0 = its PCI address, a later step" "cpus      1 (1 CPU)" "$(explain $fake near:0000:43:00.0.core:0 | head -1)"
check "qib0" "cpus      1,5,9,13,17,21,25,29,33,37 (10 CPUs)" "$(explain $fake near:qib0 | head -1)"
check "union" "cpus      0-1,4-5,8-9,12-13,16-17,20-21,24-25,28-29,32-33,36-37 (20 CPUs)" \
  "$(explain $fake near:eth1+near:43:00.0 | head -1)"
# A 32-bit PCI domain; GPUs numbered in PCI address order.
check "domain 10000" "near      10000:00:04.0 (pci): PCI 10000:00:04.0, no node (numa_node -1), CPUs 1" \
  "$(explain 2pa-pcidomain32bits near:10000:00:04.0 | grep '^near')"
check "gpu1" "near      gpu1 (gpu): PCI 0004:06:00.0, no node (numa_node -1), CPUs 0-15" \
  "$(explain nvidiagpunumanodes near:gpu1 | grep '^near')"

# A local_cpus that is no mask is left out with a warning (numa_node -1
# then says nothing: the whole machine of 4 nodes, with the warning).
check "odd local_cpus" "cpus      0-39 (40 CPUs)
warning   $corpora/40intel64-4n10c+pci-conflicts/sys/devices/pci0000:00/0000:00:03.0/0000:01:00.0/local_cpus: invalid cpu mask '0xf': unexpected 'x' at offset 1 (left out)
warning   the kernel does not say where sda is (numa_node -1): near:sda is every CPU" \
  "$(explain 40intel64-4n10c+pci-conflicts near:sda | grep -E '^cpus|^warning')"

# Errors: exit 2, the device named, a hint.
out=$(explain $fake near:lo 2>&1); rc=$?
check "lo: exit" 2 "$rc"
check "lo: message" "affix: error: lo has no PCI function (a virtual device: $corpora/$fake/sys/devices/virtual/net/lo)
affix: hint: near: takes a device on PCI (a network card, disk, RDMA device, GPU); 'affix topo --json' lists them" "$out"
out=$(explain 32intel64-2p8co2t+8ve near:eth0 2>&1); rc=$?
check "eth0 missing: exit" 2 "$rc"
check "eth0 missing: message" "affix: error: no device 'eth0' (not in /sys/class/net, block, infiniband, drm or dax)
affix: hint: devices here: enp96s0f0 enp96s0f1" "$out"
out=$(explain nvidiagpunumanodes near:gpu6 2>&1); rc=$?
check "gpu6: exit" 2 "$rc"
check "gpu6: message" "affix: error: no GPU gpu6 on this machine
affix: hint: GPUs here, in PCI address order: gpu0 (0004:05:00.0), gpu1 (0004:06:00.0), gpu2 (0006:00:00.0), gpu3 (0007:00:00.0), gpu4 (0035:04:00.0), gpu5 (0035:05:00.0)" "$out"
out=$(explain $fake near:0000:81:00.8 2>&1); rc=$?
check "malformed: exit" 2 "$rc"
check "malformed: message" "affix: error: invalid location 'near:0000:81:00.8': PCI function 8 above 7
  near:0000:81:00.8
                  ^" "$out"
out=$(explain $fake socket:0.near:eth0 2>&1); rc=$?
check "later step: exit" 2 "$rc"
check "later step: message" "affix: error: invalid location 'socket:0.near:eth0': 'near:' can only be the first step
  socket:0.near:eth0
           ^" "$(printf '%s\n' "$out" | head -3)"
# run: 125, nothing started.
"$AFFIX" near:no-such-device-here true 2>/dev/null; rc=$?
check "run: exit 125" 125 "$rc"

# topo lists the devices by node; JSON has them with their CPUs.
check "topo text" "devices    node 0   eth0 eth1 eth2 eth3 sda sr0 display0
           node 1   ib0 qib0" "$("$AFFIX" topo --root "$corpora/$fake" | grep -A1 '^devices')"
check "topo json" '[{"name": "enp96s0f0", "class": "net", "pci": "0000:60:00.0", "node": 0, "cpus": "0-7,16-23"}, {"name": "enp96s0f1", "class": "net", "pci": "0000:60:00.1", "node": 0, "cpus": "0-7,16-23"}]' \
  "$("$AFFIX" topo --json --root "$corpora/32intel64-2p8co2t+8ve" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["devices"]))')"

# This machine: lo is virtual; a PCI device here, if any, resolves.
out=$("$AFFIX" explain near:lo 2>&1); rc=$?
check "live lo: exit" 2 "$rc"
check "live lo" "affix: error: lo has no PCI function (a virtual device: /sys/devices/virtual/net/lo)" \
  "$(printf '%s\n' "$out" | head -1)"
first=$(ls /sys/bus/pci/devices 2>/dev/null | head -1)
if [ -n "$first" ]; then
  out=$("$AFFIX" explain "near:$first" | grep '^near')
  check "live PCI $first" "near      $first (pci): PCI $first" "${out%%, *}"
  # A launch binds where explain says, memory on the device's nodes.
  cpus=$("$AFFIX" explain --json "near:$first" | python3 -c 'import json,sys; print(json.load(sys.stdin)["cpus"])')
  check "live launch near:$first --mem bind" "Cpus_allowed_list:	$cpus" \
    "$("$AFFIX" "near:$first" --mem bind grep Cpus_allowed_list /proc/self/status)"
fi
exit $fail
