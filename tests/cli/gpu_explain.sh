#!/usr/bin/env bash
# --gpu and explain --ranks with the real binary (affix(1), GPUS) on
# synthetic roots (tests/cli/gpu_lib.bash) and on the POWER9 capture of six
# NVIDIA GPUs: the map of ranks, one rank under a launcher's variables,
# topo's GPUs, every error with its text and status; and on this machine,
# which has no GPU, what run and --dry-run say (run has no --root: it binds
# this machine, so the ranks' real binding is the VM's scenario gpu.sh).
. "$(dirname "$0")/check_lib.bash"
. "$(dirname "$0")/gpu_lib.bash"
unset OMP_NUM_THREADS OMP_PLACES OMP_PROC_BIND GOMAXPROCS CUDA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES \
  HIP_VISIBLE_DEVICES GPU_DEVICE_ORDINAL CUDA_DEVICE_ORDER OMPI_COMM_WORLD_LOCAL_RANK MV2_COMM_WORLD_LOCAL_RANK \
  MPI_LOCALRANKID PMI_LOCAL_RANK SLURM_LOCALID PMIX_LOCAL_RANK PALS_LOCAL_RANKID LOCAL_RANK \
  OMPI_COMM_WORLD_RANK MV2_COMM_WORLD_RANK PMI_RANK SLURM_PROCID PMIX_RANK PALS_RANKID RANK
tmp=$(mktemp -d /tmp/affix-gpu-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
nv=$tmp/nv amd=$tmp/amd
# 2 nodes of 4 cores of 2 threads, two NVIDIA GPUs a node, with UUIDs.
gpu_machine "$nv" 2 4 2
gpu_function "$nv" 0000:1b:00.0 0x10de 0 0 7 GPU-0a2b3c4d-0000-1111-2222-333344445555
gpu_function "$nv" 0000:3b:00.0 0x10de 0 0 7 GPU-1a2b3c4d-0000-1111-2222-333344445555
gpu_function "$nv" 0000:88:00.0 0x10de 1 8 15 GPU-2a2b3c4d-0000-1111-2222-333344445555
gpu_function "$nv" 0000:b1:00.0 0x10de 1 8 15 GPU-3a2b3c4d-0000-1111-2222-333344445555
# 4 nodes of 2 cores of 1 thread, one AMD GPU a node; the last without a unique_id.
gpu_machine "$amd" 4 2 1
gpu_function "$amd" 0000:03:00.0 0x1002 0 0 1 2d9e4e3a1b2c3d40
gpu_function "$amd" 0000:23:00.0 0x1002 1 2 3 2d9e4e3a1b2c3d41
gpu_function "$amd" 0000:43:00.0 0x1002 2 4 5 2d9e4e3a1b2c3d42
gpu_function "$amd" 0000:63:00.0 0x1002 3 6 7
explain() { "$AFFIX" explain --root "$@"; }
status() {  # NAME STATUS COMMAND...: the command's status and its stderr
  local name=$1 want=$2 out rc
  shift 2
  out=$("$@" 2>&1 >/dev/null); rc=$?
  check "$name: exit $want" "$want" "$rc"
  last_err=$out
}

check "the NVIDIA map of 4 ranks" "ranks     4 local ranks (--ranks)
allowed   CPUs 0-15, nodes 0-1 (from all-online)

RANK  GPU   PCI           VENDOR  CPUS       NODES  MEMORY  VARIABLE
0     gpu0  0000:1b:00.0  nvidia  0-3 (4)    0      bind:0  CUDA_VISIBLE_DEVICES=GPU-0a2b3c4d-0000-1111-2222-333344445555
1     gpu1  0000:3b:00.0  nvidia  4-7 (4)    0      bind:0  CUDA_VISIBLE_DEVICES=GPU-1a2b3c4d-0000-1111-2222-333344445555
2     gpu2  0000:88:00.0  nvidia  8-11 (4)   1      bind:1  CUDA_VISIBLE_DEVICES=GPU-2a2b3c4d-0000-1111-2222-333344445555
3     gpu3  0000:b1:00.0  nvidia  12-15 (4)  1      bind:1  CUDA_VISIBLE_DEVICES=GPU-3a2b3c4d-0000-1111-2222-333344445555" \
  "$(explain "$nv" all --slice rank --gpu closest --ranks 4)"
check "8 AMD ranks on 4 GPUs: the map and who shares" "ranks     8 local ranks (--ranks)
allowed   CPUs 0-7, nodes 0-3 (from all-online)
by index  ROCR_VISIBLE_DEVICES counts the AMD GPUs this process may open, in PCI address order (no unique_id here)

RANK  GPU   PCI           VENDOR  CPUS   NODES  MEMORY  VARIABLE
0     gpu0  0000:03:00.0  amd     0 (1)  0      bind:0  ROCR_VISIBLE_DEVICES=GPU-2d9e4e3a1b2c3d40
1     gpu0  0000:03:00.0  amd     1 (1)  0      bind:0  ROCR_VISIBLE_DEVICES=GPU-2d9e4e3a1b2c3d40
2     gpu1  0000:23:00.0  amd     2 (1)  1      bind:1  ROCR_VISIBLE_DEVICES=GPU-2d9e4e3a1b2c3d41
3     gpu1  0000:23:00.0  amd     3 (1)  1      bind:1  ROCR_VISIBLE_DEVICES=GPU-2d9e4e3a1b2c3d41
4     gpu2  0000:43:00.0  amd     4 (1)  2      bind:2  ROCR_VISIBLE_DEVICES=GPU-2d9e4e3a1b2c3d42
5     gpu2  0000:43:00.0  amd     5 (1)  2      bind:2  ROCR_VISIBLE_DEVICES=GPU-2d9e4e3a1b2c3d42
6     gpu3  0000:63:00.0  amd     6 (1)  3      bind:3  ROCR_VISIBLE_DEVICES=3
7     gpu3  0000:63:00.0  amd     7 (1)  3      bind:3  ROCR_VISIBLE_DEVICES=3

warning   gpu0 (0000:03:00.0) is shared by local ranks 0-1 (8 ranks, 4 GPUs)
warning   gpu1 (0000:23:00.0) is shared by local ranks 2-3 (8 ranks, 4 GPUs)
warning   gpu2 (0000:43:00.0) is shared by local ranks 4-5 (8 ranks, 4 GPUs)
warning   gpu3 (0000:63:00.0) is shared by local ranks 6-7 (8 ranks, 4 GPUs)" \
  "$(explain "$amd" all --slice rank --gpu closest --ranks 8)"
check "--json: rank 3's GPU and variables" \
  '{"rank":3,"cpus":"3","gpu":"gpu1","env":{"ROCR_VISIBLE_DEVICES":"GPU-2d9e4e3a1b2c3d41","CUDA_VISIBLE_DEVICES":"0"},"shared_with":"2"}' \
  "$(explain "$amd" all --slice rank --gpu closest --ranks 8 --json |
     jq -c '.ranks[3] | {rank, cpus, gpu: .gpu.name, env: .gpu.env, shared_with: .gpu.shared_with}')"
check "--slice rank alone: the CPUs' map" "RANK  CPUS      NODES  MEMORY
0     0-7 (8)   0      -
1     8-15 (8)  1      -" "$(explain "$nv" all --slice rank --ranks 2 | sed -n '4,$p')"

# One rank, as it sees itself under Open MPI's variables (a launcher's list replaced).
check "rank 1 of 4 under Open MPI" "cpus      4-7 (4 CPUs)
order     4,6,5,7
sockets   0
nodes     0
gpu       gpu1 (nvidia): PCI 0000:3b:00.0, node 0, CPUs 0-7
rank      1 of 4 (from OMPI_COMM_WORLD_LOCAL_RANK/OMPI_COMM_WORLD_LOCAL_SIZE)
pool      4 GPUs of the job's list: CUDA_VISIBLE_DEVICES=0,1,2,3
exports   CUDA_VISIBLE_DEVICES=GPU-1a2b3c4d-0000-1111-2222-333344445555 (by UUID; replaces '0,1,2,3')
          CUDA_DEVICE_ORDER=PCI_BUS_ID
allowed   CPUs 0-15, nodes 0-1 (from all-online)
memory    bind on node 0
dropped   0-3,8-15 slice" \
  "$(OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_LOCAL_SIZE=4 CUDA_VISIBLE_DEVICES=0,1,2,3 \
     CUDA_DEVICE_ORDER=PCI_BUS_ID explain "$nv" all --slice rank --gpu closest | sed '/^env/,$d')"
check "without a launcher: rank 0 of 1, gpu0's node" "gpu       gpu0 (nvidia): PCI 0000:1b:00.0, node 0, CPUs 0-7
rank      0 of 1 (no launcher's rank in the environment)" \
  "$(explain "$nv" all --gpu closest | grep -E '^(gpu|rank) ')"
check "an AMD GPU without unique_id: by index" \
  "exports   ROCR_VISIBLE_DEVICES=3 (by index: 3 among the AMD GPUs this process may open, in PCI address order)
          CUDA_VISIBLE_DEVICES=0" \
  "$(explain "$amd" all --gpu 3 | sed -n '/^exports/,/^allowed/p' | sed '$d')"

# topo: each GPU, and on the POWER9 capture the node that holds its memory.
check "topo: the GPUs" "gpus       gpu0   0000:03:00.0  amd     node 0   cpus 0-1
           gpu1   0000:23:00.0  amd     node 1   cpus 2-3
           gpu2   0000:43:00.0  amd     node 2   cpus 4-5
           gpu3   0000:63:00.0  amd     node 3   cpus 6-7" \
  "$("$AFFIX" topo --root "$amd" | sed -n '/^gpus/,/^$/p' | sed '/^$/d')"
p9=$AFFIX_CORPORA_DIR/nvidiagpunumanodes
check "topo: node 250 is gpu5's memory" "node 250                     no CPUs  mem 15.0 GiB (15.0 GiB free)  GPU memory of gpu5 (0035:05:00.0)" \
  "$("$AFFIX" topo --root "$p9" | grep '^node 250')"
check "topo --json: gpu0's memory node" '{"name":"gpu0","vendor":"nvidia","memory_node":255,"uuid":null}' \
  "$("$AFFIX" topo --root "$p9" --json | jq -c '.devices[] | select(.name == "gpu0") | {name, vendor, memory_node, uuid}')"

# The POWER9 capture: its cpuset (jjh) holds socket 0 alone, so socket 1's GPUs are left out.
check "POWER9: 3 ranks on socket 0's GPUs, the others left out" "ranks     3 local ranks (--ranks)
allowed   CPUs 0-15, nodes 0 (from cgroup1:/sys/fs/cgroup/cpuset/jjh/cpuset.effective_cpus)
left out  gpu3 (0007:00:00.0) is near CPUs 88-103: none of its CPUs allowed
left out  gpu4 (0035:04:00.0) is near CPUs 88-103: none of its CPUs allowed
left out  gpu5 (0035:05:00.0) is near CPUs 88-103: none of its CPUs allowed
by index  CUDA_VISIBLE_DEVICES counts the NVIDIA GPUs this process may open, in PCI address order (the driver gives no UUID here)

RANK  GPU   PCI           VENDOR  CPUS       NODES  MEMORY  VARIABLE
0     gpu0  0004:05:00.0  nvidia  0-15 (16)  0      bind:0  CUDA_VISIBLE_DEVICES=0
1     gpu1  0004:06:00.0  nvidia  0-15 (16)  0      bind:0  CUDA_VISIBLE_DEVICES=1
2     gpu2  0006:00:00.0  nvidia  0-15 (16)  0      bind:0  CUDA_VISIBLE_DEVICES=2" \
  "$(explain "$p9" all --gpu closest --ranks 3)"

# Errors: the exact words, exit 2 (run: 125), and nothing runs.
status "--gpu 3 outside the capture's cpuset" 2 explain "$p9" all --gpu 3
check "--gpu 3: names the allowed CPUs" "affix: error: --gpu 3: gpu3 (0007:00:00.0) is near CPUs 88-103, none of them allowed (allowed: 0-15, from cgroup1:/sys/fs/cgroup/cpuset/jjh/cpuset.effective_cpus)
affix: hint: the cpuset affix runs in leaves out the GPU's CPUs: give a GPU near the allowed ones ('affix topo' lists the GPUs and their CPUs)" "$last_err"
status "--gpu 7" 2 explain "$nv" all --gpu 7
check "--gpu 7: no such GPU" "affix: error: no GPU gpu7 on this machine
affix: hint: GPUs here, in PCI address order: gpu0 (0000:1b:00.0), gpu1 (0000:3b:00.0), gpu2 (0000:88:00.0), gpu3 (0000:b1:00.0)" "$last_err"
status "a Cirrus VGA only" 2 explain "$AFFIX_CORPORA_DIR/2pa-pcidomain32bits" all --gpu closest
check "a Cirrus VGA only: no NVIDIA or AMD GPU" "affix: error: --gpu closest: no NVIDIA or AMD GPU on this machine
affix: hint: it has no PCI function of class 03 (display or 3D controller) of NVIDIA or AMD; 'affix topo' lists its displays" "$last_err"
check "a Cirrus VGA only: topo names it a display" "displays   display0  0000:00:02.0  0x1013  no node  cpus 0  card0" \
  "$("$AFFIX" topo --root "$AFFIX_CORPORA_DIR/2pa-pcidomain32bits" | grep '^displays')"

# A job's GPUs (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES) are the pool.
check "POWER9, CUDA_VISIBLE_DEVICES=2: gpu2, not gpu0" "pool      1 GPU of the job's list: CUDA_VISIBLE_DEVICES=2
exports   CUDA_VISIBLE_DEVICES=2 (by index: 2 among the NVIDIA GPUs this process may open, in PCI address order)" \
  "$(CUDA_VISIBLE_DEVICES=2 CUDA_DEVICE_ORDER=PCI_BUS_ID explain "$p9" all --gpu closest | grep -E '^(pool|exports) ')"
check "two ranks over a pool of two, by UUID" "RANK  GPU   PCI           VENDOR  CPUS      NODES  MEMORY  VARIABLE
0     gpu3  0000:b1:00.0  nvidia  8-15 (8)  1      bind:1  CUDA_VISIBLE_DEVICES=GPU-3a2b3c4d-0000-1111-2222-333344445555
1     gpu0  0000:1b:00.0  nvidia  0-7 (8)   0      bind:0  CUDA_VISIBLE_DEVICES=GPU-0a2b3c4d-0000-1111-2222-333344445555" \
  "$(CUDA_VISIBLE_DEVICES=GPU-3a,0 CUDA_DEVICE_ORDER=PCI_BUS_ID explain "$nv" all --gpu closest --ranks 2 | sed -n '/^RANK/,/^$/p' | sed '/^$/d')"
check "ROCR_VISIBLE_DEVICES by unique_id prefix" "exports   ROCR_VISIBLE_DEVICES=GPU-2d9e4e3a1b2c3d42 (by UUID; replaces 'gpu-2D9E4E3A1B2C3D42')" \
  "$(ROCR_VISIBLE_DEVICES=gpu-2D9E4E3A1B2C3D42 explain "$amd" all --gpu closest | grep '^exports')"
status "a list affix cannot map" 2 env CUDA_VISIBLE_DEVICES=0,7 "$AFFIX" explain --root "$nv" all --gpu closest
check "a list affix cannot map: why" "affix: error: CUDA_VISIBLE_DEVICES='0,7': '7' is an index, and this process may open 4 NVIDIA GPUs (gpu0, gpu1, gpu2, gpu3)
affix: hint: affix reads the list as the GPU runtime does, to give only those GPUs: give indices or GPU UUIDs ('affix topo --json' lists the GPUs and their UUIDs), or unset it to give every GPU" "$last_err"
status "a MIG instance's own UUID" 2 env CUDA_VISIBLE_DEVICES=MIG-4f1e2d3c-0000-1111-2222-333344445555 "$AFFIX" explain --root "$nv" all --gpu closest
status "--gpu 1 outside the job's list" 2 env CUDA_VISIBLE_DEVICES=2 "$AFFIX" explain --root "$nv" all --gpu 1
check "--gpu 1 outside the job's list: why" "affix: error: --gpu 1: gpu1 (0000:3b:00.0) is not among the GPUs CUDA_VISIBLE_DEVICES=2 gives (gpu2)
affix: hint: a job's GPUs are its own: name one of them, or give --gpu closest" "$last_err"
status "rank 0 of 2 near no GPU of --gpu 2" 2 env OMPI_COMM_WORLD_LOCAL_RANK=0 OMPI_COMM_WORLD_LOCAL_SIZE=2 \
  "$AFFIX" explain --root "$nv" all --slice rank --gpu 2
check "names the rank's CPUs and the GPUs'" "affix: error: no GPU of --gpu 2 is near CPUs 0-7 (local rank 0 of 2)
affix: hint: the GPUs' CPUs: gpu2: CPUs 8-15; select CPUs near one (near:gpuN), or name another (--gpu N)" "$last_err"
status "--ranks: a rank that cannot be placed" 2 explain "$nv" all --slice rank --gpu closest --ranks 9
check "--ranks: names the rank" "affix: error: local rank 0 of 9: --slice 0/9: the selection has 8 cores, fewer than 9 parts" "$last_err"
status "--ranks without --gpu or --slice rank" 2 explain "$nv" all --ranks 2
check "--ranks alone" "affix: error: --ranks needs --slice rank or --gpu: it maps the ranks a launcher would start
affix: hint: 'affix explain all --slice rank --gpu closest --ranks 4' prints each rank's GPU, CPUs and nodes" "$last_err"
status "--ranks with --slice K/N" 2 explain "$nv" all --slice 1/2 --gpu closest --ranks 2
check "--ranks with --slice K/N" "affix: error: --ranks takes the place of the launcher's ranks: give --slice rank, not --slice K/N" "$last_err"
status "--ranks with --as" 2 explain "$nv" all --gpu closest --ranks 2 --as taskset
status "--gpu garbled" 2 explain "$nv" all --gpu 0,x
check "--gpu garbled: the words" "affix: error: invalid --gpu '0,x': expected closest, a GPU number or a list of them (0,2)
affix: hint: --gpu closest, --gpu 1, --gpu 0,2 or --gpu 4-7: the numbers are gpuN's ('affix topo' lists them)" "$last_err"
status "--gpu with an escape byte" 2 explain "$nv" all --gpu $'\e[31m'
check "--gpu: the escape byte shown escaped" "affix: error: invalid --gpu '\\e[31m': expected closest, a GPU number or a list of them (0,2)" "$(head -1 <<< "$last_err")"
status "pin --gpu without --check" 2 "$AFFIX" pin --gpu closest all $$
check "pin --gpu: why not" "affix: error: --gpu goes with run, explain and pin --check: a running process's environment cannot be changed
affix: hint: 'affix pin --check --gpu closest WHERE PID' checks that a process's CPUs, memory and variables agree with its GPU" "$last_err"
check "a job-wide rank without a local one: the warning" "warning   PMI_RANK=3 says this is one of several ranks, but no local rank variable is set: it is taken as rank 0 of 1, given gpu0 (0000:1b:00.0) like every other such rank (give --slice K/N, or set LOCAL_RANK and LOCAL_WORLD_SIZE)" \
  "$(PMI_RANK=3 explain "$nv" all --gpu closest | grep '^warning')"
status "a garbled launcher variable names --gpu" 2 env LOCAL_RANK=one LOCAL_WORLD_SIZE=2 "$AFFIX" explain --root "$nv" all --gpu closest
check "a garbled launcher variable" "affix: error: --gpu: LOCAL_RANK='one' is not a number" "$last_err"

# A device cgroup's view, as access(2) gives it: the process may not open
# gpu0's and gpu1's device files (mode 000, and affix run as nobody where
# this test is root), so they are left out and an index counts gpu2 and gpu3.
cg=$tmp/cg
cp -a "$nv" "$cg"
mkdir -p "$cg/dev"
i=0
for bdf in 0000:1b:00.0 0000:3b:00.0 0000:88:00.0 0000:b1:00.0; do
  printf 'Device Minor: \t %s\n' $i >> "$cg/proc/driver/nvidia/gpus/$bdf/information"
  : > "$cg/dev/nvidia$i"
  chmod $((i < 2 ? 0 : 666)) "$cg/dev/nvidia$i"
  i=$((i + 1))
done
chmod -R a+rX "$tmp" && chmod 000 "$cg/dev/nvidia0" "$cg/dev/nvidia1"
# (setpriv execs the command itself: a build under a directory only root may
# search, as mktemp -d makes, still runs; `env` run by the user could not.)
as_user() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
check "device cgroup: gpu0 and gpu1 left out, rank 0 takes gpu2" "gpu       gpu2 (nvidia): PCI 0000:88:00.0, node 1, CPUs 8-15
exports   CUDA_VISIBLE_DEVICES=GPU-2a2b3c4d-0000-1111-2222-333344445555 (by UUID)
left out  gpu0 (0000:1b:00.0): this process may not open dev/nvidia0
          gpu1 (0000:3b:00.0): this process may not open dev/nvidia1" \
  "$(as_user "$AFFIX" explain --root "$cg" all --gpu closest | grep -E '^(gpu|exports|left out) |^          gpu')"
check "device cgroup: index 1 is the second GPU it may open, gpu3" "gpu       gpu3 (nvidia): PCI 0000:b1:00.0, node 1, CPUs 8-15" \
  "$(CUDA_VISIBLE_DEVICES=1 CUDA_DEVICE_ORDER=PCI_BUS_ID as_user "$AFFIX" explain --root "$cg" all --gpu closest | grep '^gpu ')"
status "device cgroup: --gpu 0" 2 as_user "$AFFIX" explain --root "$cg" all --gpu 0
check "device cgroup: --gpu 0, why" "affix: error: --gpu 0: gpu0 (0000:1b:00.0) is not among the GPUs this process may open (gpu2, gpu3)
affix: hint: a job's GPUs are its own: name one of them, or give --gpu closest" "$last_err"

# This machine has no GPU: run and --dry-run refuse before anything starts (125).
marker=$tmp/ran
status "run --gpu closest here" 125 "$AFFIX" --gpu closest all -- touch "$marker"
check "run --gpu here: why" "affix: error: --gpu closest: no NVIDIA or AMD GPU on this machine
affix: hint: it has no PCI function of class 03 (display or 3D controller) of NVIDIA or AMD; 'affix topo' lists its displays" "$last_err"
check "run --gpu here: nothing ran" "no" "$([[ -e $marker ]] && echo yes || echo no)"
status "--dry-run --gpu closest here" 125 "$AFFIX" --dry-run --slice rank --gpu closest all -- true
status "run has no --root" 125 "$AFFIX" --root "$nv" --gpu closest all -- touch "$marker"
check "run --root: unknown" "affix: error: unknown option '--root' for 'run'
affix: hint: usage: affix [OPTIONS] WHERE [--] COMMAND [ARG...]; see 'affix run --help'" "$last_err"
check "run --root: nothing ran" "no" "$([[ -e $marker ]] && echo yes || echo no)"
exit $fail
