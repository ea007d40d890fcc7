# vm-topologies: 2s2c2t-2n-gpu
# --gpu on a real kernel: a display function of AMD's vendor id behind an
# expander bridge on each node (gpu0 0000:41:00.0 on node 0, gpu1
# 0000:81:00.0 on node 1). Two ranks (SLURM_LOCALID 0 and 1 of a 2-task
# step) started side by side each get their own GPU, that node's CPUs and
# memory and the variables that name it, as their /proc shows; pin --check
# agrees inside each rank and names what disagrees with the other rank's
# environment; explain --ranks prints the same map; four ranks share the
# two GPUs with a warning; a cpuset without node 1 leaves gpu1 out.
. "$VM_LIB"
dev() { printf '%s %s %s %s' "$(cat /sys/bus/pci/devices/$1/class)" "$(cat /sys/bus/pci/devices/$1/vendor)" \
  "$(cat /sys/bus/pci/devices/$1/numa_node)" "$(cat /sys/bus/pci/devices/$1/local_cpulist)"; }
check_eq "gpu0's function: display, AMD, node 0" "0x030000 0x1002 0 0-3" "$(dev 0000:41:00.0)"
check_eq "gpu1's function: display, AMD, node 1" "0x030000 0x1002 1 4-7" "$(dev 0000:81:00.0)"

check_run "topo" 0 affix topo
check_eq "topo: the GPUs" "gpus       gpu0   0000:41:00.0  amd     node 0   cpus 0-3
           gpu1   0000:81:00.0  amd     node 1   cpus 4-7" "$(printf '%s\n' "$OUT" | sed -n '/^gpus/,/^$/p' | sed '/^$/d')"

# The map first, as a user would look at it.
check_run "explain --ranks 2" 0 affix explain all --slice rank --gpu closest --ranks 2
check_match "explain --ranks 2: the allowed CPUs" "allowed   CPUs 0-7, nodes 0-1 (from *)" "$(printf '%s\n' "$OUT" | sed -n 2p)"
check_eq "explain --ranks 2: the map" "ranks     2 local ranks (--ranks)
by index  ROCR_VISIBLE_DEVICES counts the AMD GPUs this process may open, in PCI address order (no unique_id here)

RANK  GPU   PCI           VENDOR  CPUS     NODES  MEMORY  VARIABLE
0     gpu0  0000:41:00.0  amd     0-3 (4)  0      bind:0  ROCR_VISIBLE_DEVICES=0
1     gpu1  0000:81:00.0  amd     4-7 (4)  1      bind:1  ROCR_VISIBLE_DEVICES=1" "$(printf '%s\n' "$OUT" | sed 2d)"

# Two ranks as srun starts them: each one's environment says which it is.
rank() {  # rank R N CMD...: CMD as local rank R of N of a Slurm step (env execs it: same PID)
  r=$1 n=$2; shift 2
  env SLURM_LOCALID=$r SLURM_STEP_TASKS_PER_NODE=$n SLURM_NODEID=0 "$@"
}
for r in 0 1; do
  env SLURM_LOCALID=$r SLURM_STEP_TASKS_PER_NODE=2 SLURM_NODEID=0 \
    affix --slice rank --gpu closest all -- sleep 120 > /tmp/rank$r.out 2> /tmp/rank$r.err &
  eval "pid$r=\$!"
done
for r in 0 1; do
  eval "pid=\$pid$r"
  i=0
  while [ "$(cat /proc/$pid/comm 2>/dev/null)" != sleep ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  check_eq "rank $r: affix exec'd the command" sleep "$(cat /proc/$pid/comm 2>/dev/null)"
  check_eq "rank $r: said nothing" "" "$(cat /tmp/rank$r.err)"
done
check_eq "rank 0: node 0's CPUs" "0-3" "$(status_of $pid0 Cpus_allowed_list)"
check_eq "rank 1: node 1's CPUs" "4-7" "$(status_of $pid1 Cpus_allowed_list)"
check_match "rank 0: memory bound to node 0" "* bind:0 *" "$(grep -m 1 ' bind:' /proc/$pid0/numa_maps)"
check_match "rank 1: memory bound to node 1" "* bind:1 *" "$(grep -m 1 ' bind:' /proc/$pid1/numa_maps)"
gpu_vars() { tr '\0' '\n' < /proc/$1/environ | grep -E '^(ROCR|CUDA|HIP)_' | sort | tr '\n' ' '; }
check_eq "rank 0: its GPU's variables" "CUDA_VISIBLE_DEVICES=0 ROCR_VISIBLE_DEVICES=0 " "$(gpu_vars $pid0)"
check_eq "rank 1: its GPU's variables" "CUDA_VISIBLE_DEVICES=0 ROCR_VISIBLE_DEVICES=1 " "$(gpu_vars $pid1)"

# Inside each rank pin --check agrees; with the other rank's variables it names what disagrees.
for r in 0 1; do
  eval "pid=\$pid$r"
  check_run "rank $r: pin --check" 0 rank $r 2 affix pin --check --slice rank --gpu closest all $pid
done
check_eq "rank 1: pin --check's lines" "$pid1: 1 thread within CPUs 4-7
  $pid1: memory policy bind:1, as asked (bind:1)
  $pid1: its environment names gpu1 (0000:81:00.0): ROCR_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=0" "$OUT"
check_run "rank 0's check of rank 1's process" 1 rank 0 2 affix pin --check --slice rank --gpu closest all $pid1
check_eq "what disagrees" "$pid1: 1 thread, 1 not within CPUs 0-3, memory policy not bind:0
  $pid1 (sleep): cpus 4-7, not within 0-3
  $pid1: memory policy bind:1, not bind:0
  $pid1: ROCR_VISIBLE_DEVICES=1 names gpu1 (0000:81:00.0), not gpu0 (0000:41:00.0)" "$OUT"
check_run "rank 0's check of rank 1's process, --json" 1 rank 0 2 affix pin --check --json --slice rank --gpu closest all $pid1
check_eq "--json: the variable, and the GPU it names" "ROCR_VISIBLE_DEVICES 1 0 gpu1 (0000:81:00.0)" \
  "$(json '.targets[0].env[0].wrong[0] | "\(.name) \(.value) \(.want) \(.names)"')"
kill $pid0 $pid1
wait $pid0 $pid1 2>/dev/null

# Four ranks on two GPUs share them, each told.
check_run "rank 3 of 4" 0 rank 3 4 affix --slice rank --gpu closest all -- sh -c 'grep Cpus_allowed_list /proc/self/status'
check_eq "rank 3 of 4: its slice, near gpu1" "Cpus_allowed_list:	6-7" "$OUT"
check_eq "rank 3 of 4: the warning" "affix: warning: local rank 3 of 4 shares gpu1 (0000:81:00.0) with rank 2 (4 ranks, 2 GPUs)" "$ERR"
check_run "--dry-run" 0 rank 1 2 affix --dry-run --slice rank --gpu closest all -- true
check_eq "--dry-run's lines" "affix: would set memory policy bind on node 1
affix: would bind to CPUs 4-7 (4 CPUs; socket 1; node 1)
affix: would give local rank 1 of 2 (SLURM_LOCALID/SLURM_STEP_TASKS_PER_NODE) the GPU gpu1 (PCI 0000:81:00.0, amd, CPUs 4-7)
affix: would set ROCR_VISIBLE_DEVICES=1
affix: would set CUDA_VISIBLE_DEVICES=0
affix: would exec: true" "$OUT"

# A cpuset without node 1: gpu1 is left out, and asked for by number it is an error that names the allowed CPUs.
cg=/sys/fs/cgroup/affix-gpu
echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
mkdir $cg && echo 0-3 > $cg/cpuset.cpus && echo 0 > $cg/cpuset.mems
printf '#!/bin/sh\necho $$ > %s/cgroup.procs && exec "$@"\n' $cg > inside
chmod +x inside
check_run "--gpu 1 inside a cpuset of node 0" 125 ./inside affix --gpu 1 all -- touch ran
check_eq "the error names the allowed CPUs" "affix: error: --gpu 1: gpu1 (0000:81:00.0) is near CPUs 4-7, none of them allowed (allowed: 0-3, from cgroup2:$cg/cpuset.cpus.effective)
affix: hint: the cpuset affix runs in leaves out the GPU's CPUs: give a GPU near the allowed ones ('affix topo' lists the GPUs and their CPUs)" "$ERR"
check_true "nothing ran" [ ! -e ran ]
check_run "--gpu closest inside: gpu0" 0 ./inside affix explain --json --gpu closest all
check_eq "gpu0, its CPUs, gpu1 left out" "gpu0 0-3 gpu1 (0000:81:00.0) is near CPUs 4-7" "$(json '.gpu.name + " " + .cpus + " " + .gpu.left_out[0]')"
finish
