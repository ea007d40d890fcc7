# vm-topologies: all
# `affix topo --json` against the layout the VM was booted with: sockets,
# cores, SMT siblings, nodes, distances, memory. The kernel's own view is
# checked first, so that a harness mistake cannot pass as an affix bug.
. "$VM_LIB"
sysd=/sys/devices/system
per_socket=$((VM_CORES * VM_THREADS))
last=$((VM_CPUS - 1))

check_eq "kernel: online CPUs" "0-$last" "$(cat $sysd/cpu/online)"
n=0
while [ $n -lt "$VM_NODES" ]; do
  check_eq "kernel: node$n cpulist" "$(node_cpus $n)" "$(cat $sysd/node/node$n/cpulist)"
  check_eq "kernel: node$n distances" "$(node_dist $n)" "$(cat $sysd/node/node$n/distance)"
  n=$((n + 1))
done

check_run "topo --json" 0 affix topo --json
topo=$OUT
check_eq "smt" "$VM_THREADS" "$(json .smt)"
check_eq "allowed cpus" "0-$last" "$(json .allowed.cpus)"
if grep -qw cpuset /sys/fs/cgroup/cgroup.controllers; then
  check_match "allowed source" "cgroup2:*" "$(json .allowed.source)"
else  # a v1 cpuset unmounted earlier in this boot (shield_v1) still holds the controller
  check_match "allowed source (cpuset on no v2 cgroup)" "status:/proc/self/status" "$(json .allowed.source)"
fi
check_eq "number of cpus" "$VM_CPUS" "$(json '.cpus | length')"

# One line per CPU: [cpu, socket, die, llc, core, thread, siblings, node, online, allowed].
# The L3 domain (QEMU: one per socket) comes from the kernel's cache files.
printf '%s' "$topo" | jq -c '.cpus[] | [.cpu, .socket, .die, .llc, .core, .thread, .siblings, .node, .online, .allowed]' > cpus.got
llcs=""
c=0
while [ $c -le $last ]; do
  socket=$((c / per_socket)) core=$((c / VM_THREADS)) thread=$((c % VM_THREADS))
  first=$((core * VM_THREADS))
  if [ "$VM_THREADS" = 1 ]; then siblings=$c; else siblings="$first-$((first + VM_THREADS - 1))"; fi
  check_eq "kernel: cpu$c package" "$socket" "$(cat $sysd/cpu/cpu$c/topology/physical_package_id)"
  check_eq "kernel: cpu$c siblings" "$siblings" "$(cat $sysd/cpu/cpu$c/topology/thread_siblings_list)"
  l3=$(cat $sysd/cpu/cpu$c/cache/index3/shared_cpu_list)
  case " $llcs " in *" $l3 "*) ;; *) llcs="$llcs $l3";; esac
  llc=$(echo $llcs | tr ' ' '\n' | grep -n -x -F "$l3" | cut -d: -f1)
  want="[$c,$socket,$socket,$((llc - 1)),$core,$thread,\"$siblings\",$(node_of_cpu $c),true,true]"
  check_eq "cpu $c" "$want" "$(sed -n "$((c + 1))p" cpus.got)"
  c=$((c + 1))
done

# Nodes: [node, cpus, distances], and memory as the kernel counts it.
printf '%s' "$topo" | jq -c '.nodes[] | [.node, .cpus, .distances]' > nodes.got
check_eq "number of nodes" "$VM_NODES" "$(json '.nodes | length')"
n=0
while [ $n -lt "$VM_NODES" ]; do
  want="[$n,\"$(node_cpus $n)\",[$(node_dist $n | tr ' ' ',')]]"
  check_eq "node $n" "$want" "$(sed -n "$((n + 1))p" nodes.got)"
  kernel_kb=$(awk '/MemTotal/ { print $4 }' $sysd/node/node$n/meminfo)
  got_kb=$(json ".nodes[$n].memory_total_kb")
  check_eq "node $n memory_total_kb = kernel's MemTotal" "$kernel_kb" "$got_kb"
  mib=$(node_mem $n)
  if [ "$mib" = 0 ]; then
    check_eq "node $n has no memory" 0 "$got_kb"
  else
    # The kernel keeps some of each node for itself; at least half is left.
    check_true "node $n memory near ${mib} MiB" [ "$got_kb" -le $((mib * 1024)) -a "$got_kb" -gt $((mib * 512)) ]
    check_true "node $n memory_free_kb <= total" [ "$(json ".nodes[$n].memory_free_kb")" -le "$got_kb" ]
  fi
  n=$((n + 1))
done

# The text form's summary line counts the same machine.
check_run "topo (text)" 0 affix topo
check_match "text summary" \
  "machine *$VM_CPUS CPUs ($VM_CPUS online), $VM_SOCKETS sockets, $VM_NODES nodes, $((VM_SOCKETS * VM_CORES)) cores, SMT $VM_THREADS,*" \
  "$(echo "$OUT" | head -n 1)"
finish
