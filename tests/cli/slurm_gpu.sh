#!/usr/bin/env bash
# --gpu under a real Slurm (the private one-node cluster of slurm_lib.bash):
# srun starts the tasks and sets SLURM_LOCALID and SLURM_STEP_TASKS_PER_NODE,
# and affix reads them as --slice rank does.
#   - srun -n 2 affix explain --root GPUROOT all --slice rank --gpu closest:
#     each task prints its own rank's GPU, CPUs and variables, as
#     explain --ranks 2 maps them (a synthetic root of 2 nodes and 2 NVIDIA
#     GPUs: run has no --root, and this machine has no GPU);
#   - the same without --slice: each task its GPU and that GPU's CPUs;
#   - srun -n 2 affix --gpu closest all -- ...: the real run on this machine
#     refuses in every task (no GPU here), 125, nothing runs.
# Not part of plain ctest: on with -DAFFIX_SLURM_TESTS=ON (scripts/test).
. "$(dirname "$0")/check_lib.bash"
. "$(dirname "$0")/gpu_lib.bash"
. "$(dirname "$0")/slurm_lib.bash"

root=$dir/gpuroot
gpu_machine "$root" 2 2 1
gpu_function "$root" 0000:3b:00.0 0x10de 0 0 1 GPU-3b000000-0000-1111-2222-333344445555
gpu_function "$root" 0000:af:00.0 0x10de 1 2 3 GPU-af000000-0000-1111-2222-333344445555
chmod -R a+rX "$dir"
# What a task prints: its SLURM_LOCALID, then what explain says of its rank
# (the jq filter $1), explain's options the rest.
cat >"$dir/task" <<TASK
#!/bin/sh
filter=\$1; shift
"$AFFIX" explain --root "$root" "\$@" --json | jq -r --arg id "\$SLURM_LOCALID" "\$filter"
TASK
chmod 755 "$dir/task"
line='"\(.gpu.rank)/\(.gpu.ranks) \(.gpu.name) \(.cpus) \(.gpu.env.CUDA_VISIBLE_DEVICES) \(.gpu.rank_source)"'
out=$(step -n 2 --cpu-bind=none "$dir/task" "\$id + \" \" + $line" all --slice rank --gpu closest 2>"$dir/err" | sort)
check "srun -n 2, --slice rank --gpu closest: each task its own GPU and node" \
  "0 0/2 gpu0 0-1 GPU-3b000000-0000-1111-2222-333344445555 SLURM_LOCALID/SLURM_STEP_TASKS_PER_NODE
1 1/2 gpu1 2-3 GPU-af000000-0000-1111-2222-333344445555 SLURM_LOCALID/SLURM_STEP_TASKS_PER_NODE" "$out"
check "srun -n 2: no error, no warning" "" "$(cat "$dir/err")"
map=$("$AFFIX" explain --root "$root" all --slice rank --gpu closest --ranks 2 --json |
  jq -r ".ranks[] | \"\\(.rank) \" + $line" | sed 's/ --ranks$/ SLURM_LOCALID\/SLURM_STEP_TASKS_PER_NODE/')
check "the tasks agree with explain --ranks 2" "$map" "$out"

out=$(step -n 2 --cpu-bind=none "$dir/task" "\$id + \" \" + $line" all --gpu closest 2>"$dir/err" | sort)
check "srun -n 2, --gpu closest without --slice: each its GPU and that GPU's CPUs" \
  "0 0/2 gpu0 0-1 GPU-3b000000-0000-1111-2222-333344445555 SLURM_LOCALID/SLURM_STEP_TASKS_PER_NODE
1 1/2 gpu1 2-3 GPU-af000000-0000-1111-2222-333344445555 SLURM_LOCALID/SLURM_STEP_TASKS_PER_NODE" "$out"

# Four tasks on two GPUs: each task told which rank it shares with.
out=$(step -n 4 --overcommit --cpu-bind=none "$dir/task" '$id + " " + .gpu.name + " " + .cpus + " " + (.warnings | join("|"))' \
  all --slice rank --gpu closest 2>"$dir/err" | sort)
check "srun -n 4 on 2 GPUs: shared, each told" \
  "0 gpu0 0 local rank 0 of 4 shares gpu0 (0000:3b:00.0) with rank 1 (4 ranks, 2 GPUs)
1 gpu0 1 local rank 1 of 4 shares gpu0 (0000:3b:00.0) with rank 0 (4 ranks, 2 GPUs)
2 gpu1 2 local rank 2 of 4 shares gpu1 (0000:af:00.0) with rank 3 (4 ranks, 2 GPUs)
3 gpu1 3 local rank 3 of 4 shares gpu1 (0000:af:00.0) with rank 2 (4 ranks, 2 GPUs)" "$out"

# The real run binds this machine, which has no GPU: every task refuses, nothing runs.
marker=$dir/ran
out=$(step -n 2 --cpu-bind=none "$AFFIX" --slice rank --gpu closest all touch "$marker" 2>"$dir/err")
rc=$?
check "srun -n 2 affix --gpu here: srun's status is affix's" 125 "$rc"
check "srun -n 2 affix --gpu here: nothing ran" "no" "$([[ -e $marker ]] && echo yes || echo no)"
check "srun -n 2 affix --gpu here: each task says why" "affix: error: --gpu closest: no NVIDIA or AMD GPU on this machine
affix: error: --gpu closest: no NVIDIA or AMD GPU on this machine" "$(grep '^affix: error' "$dir/err" | sort)"
exit $fail
