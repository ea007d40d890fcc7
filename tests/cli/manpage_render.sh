#!/usr/bin/env bash
# man/affix.1 renders at 80 columns without a single groff/man warning, has
# every section the issue asks for, and its examples cover what it promises.
set -uo pipefail
src=${AFFIX_SOURCE_DIR:?}
page=$src/man/affix.1
fail=0
failed() { echo "FAIL: $*"; fail=1; }

err=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
[[ -z $err ]] || failed "man --warnings: $err"
text=$(MANWIDTH=80 man -l "$page" 2>/dev/null)
# No rendered line is wider than the terminal (except the literal
# examples, which must stay on one line to be copied, show --irq's
# table, whose rows are as wide as the kernel's IRQ names, explain
# --ranks' map, as wide as its captured machine's names, and show
# --shield's lines, as wide as the kernel's CPU lists and names).
wide=$(echo "$text" | awk 'length($0) > 80 && !/ExecStart=|ENTRYPOINT|EFFECTIVE  MANAGED|-edge |CUDA_VISIBLE_DEVICES=[0-9]$|cpuset\/jjh|: none of its CPUs allowed$|gives no UUID here\)$|^ +affix-shield-1  CPUs|^ +kernel    isolated|^ +CPU 4     kernel threads/' )
[[ -z $wide ]] || failed "lines wider than 80 columns: $wide"

sections="NAME/SYNOPSIS/DESCRIPTION/COMMANDS/LOCATIONS/OPTIONS/MEMORY/GPUS/SCHEDULING/READING THE MACHINE/WATCH/TOP/INTERRUPTS/SHIELD/APPLY/FOLLOWING AND METRICS/PICTURES/OUTPUT/EXIT STATUS/DIAGNOSTICS/GUARANTEES/ENVIRONMENT/PERMISSIONS/EXAMPLES/COMING FROM NUMACTL AND TASKSET/SEE ALSO/"
# Every section, in the conventional order (and no other).
order=$(grep -E '^[A-Z][A-Z ]+$' <<<"$text" | tr '\n' '/')
[[ $order == "$sections" ]] || failed "sections: $order, want $sections"
# One subsection per command under COMMANDS, in the order of the synopsis.
commands=$(sed -n '/^COMMANDS$/,/^LOCATIONS$/p' <<<"$text" | grep -E '^   [a-z]+$' | tr -d ' ' | tr '\n' '/')
[[ $commands == "run/pin/show/topo/explain/watch/top/shield/apply/" ]] || failed "COMMANDS subsections: $commands"

# What the page must say (flattened to one line, spaces squeezed).
flat=$(tr -s ' \n' '  ' <<<"$text")
for phrase in \
    "affix - place programs on CPUs and NUMA memory" \
    "physical_package_id" "their count minus one" "socket:1.core:0-3" "core:5.cpu:1" \
    "topology order" "N-M:STRIDE" \
    "CAP_SYS_NICE" "set_mempolicy" "seccomp" \
    "OMPI_COMM_WORLD_LOCAL_RANK" "MPI_LOCALRANKID" "PMI_LOCAL_RANK" "SLURM_LOCALID" \
    "SLURM_STEP_TASKS_PER_NODE" "AFFIX_CPUS" "AFFIX_NODES" "OMP_NUM_THREADS" "GOMAXPROCS" \
    "OMP_PLACES" "OMP_PROC_BIND" "AFFIX_COMPLETION_ROOT" \
    "ExecStart=/usr/bin/affix" "ENTRYPOINT" "mpirun -np 8 affix all --slice rank" \
    "srun" "affix pin -v node:1 4242" "affix show --pinned" "--env ./go_service" \
    "125 affix failed before the command started" "127 the command was not found" \
    "taskset(1)" "numactl(8)" "hwloc-bind(1)" \
    "cpuset nodes" "mem_policy" "+N more" "(mixed)" "as ps(1) does" "U+FFFD" \
    "did you mean 'show'?" "did you mean 'socket'?" "unknown option '--jsn' for 'topo'" \
    "cpuset.mems.effective" "Nothing half-applied" "whose shape affix chose" \
    "CUDA_VISIBLE_DEVICES" "CUDA_DEVICE_ORDER=PCI_BUS_ID" "ROCR_VISIBLE_DEVICES" "unique_id" \
    "MV2_COMM_WORLD_LOCAL_RANK" "PMIX_LOCAL_RANK" "LOCAL_WORLD_SIZE" "--slice rank --gpu closest" \
    "explain all --slice rank --gpu closest --ranks 8" "What is not done" "No device cgroup" \
    "cpuset.cpus.partition" "root invalid (REASON)" "A reboot keeps no shield" "cset shield" \
    "/run/affix/shields/NAME" "affix explain --shield WHERE --as systemd" "Linux 6.7 and later"; do
    [[ $flat == *"$phrase"* ]] || failed "page does not say: $phrase"
done
[[ $fail == 0 ]] && echo "ok: man/affix.1 renders cleanly with all sections"
exit $fail
