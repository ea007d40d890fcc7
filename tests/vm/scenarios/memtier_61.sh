# vm-topologies: 2s2c2t-3n-hmat
# On Debian's default kernel (6.1), older than weighted interleave (6.9):
# --mem weighted is refused with the version that has it, by run and its
# dry run, before anything is set or written; explain says so. The HMAT
# figures are read as 6.1 shows them.
. "$VM_LIB"
check_true "kernel: no interleave weights" [ ! -e /sys/kernel/mm/mempolicy/weighted_interleave ]
refusal="affix: error: cannot interleave by weights on nodes 0,2: this kernel has no MPOL_WEIGHTED_INTERLEAVE (Linux 6.9 and later have it)
affix: hint: use --mem interleave (every node alike), or boot Linux 6.9 or later"
check_run "run --mem weighted refused" 125 affix --mem weighted node:0 -- touch ran
check_eq "run: the kernel that has it" "$refusal" "$ERR"
check_true "run: not started" [ ! -e ran ]
check_run "--dry-run refused alike" 125 affix --dry-run --mem weighted:0,2 --weights 0=3 node:0 -- touch ran
check_eq "--dry-run: the same error" "$refusal" "$ERR"
check_eq "--dry-run: nothing on stdout" "" "$OUT"
check_run "explain warns" 0 affix explain --mem weighted node:0
check_match "explain: the weights the kernel lacks" "*
memory    weighted interleave on nodes 0,2
weights   none: this kernel has no interleave weights (Linux 6.9 and later have them)
*
warning   this kernel has no MPOL_WEIGHTED_INTERLEAVE (Linux 6.9 and later have it): 'run' would refuse --mem weighted" "$OUT"
check_run "interleave still works" 0 affix --mem interleave:0,2 node:0 -- grep -c 'interleave:0,2' /proc/self/numa_maps
check_run "topo --json" 0 affix topo --json
check_eq "topo: node 2's HMAT on 6.1" '{"access":1,"read_bandwidth_mbs":10000,"write_bandwidth_mbs":8000,"read_latency_ns":250,"write_latency_ns":300,"initiators":"0"}' \
  "$(json '.nodes[2].hmat' | jq -c .)"
check_eq "topo: no weights" "null" "$(json '.nodes[2].interleave_weight')"
finish
