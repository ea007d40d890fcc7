#!/usr/bin/env bash
# affix under a real Slurm (22.05, Debian's slurmctld + slurmd + munge): a
# private one-node cluster on 127.0.0.1, started here and stopped at the end
# (no systemd, ports 16817/16818 away from Slurm's own 6817/6818), every srun
# wrapped in timeout.
#   - srun -n 2 --cpu-bind=none affix --slice rank all: disjoint slices in rank order;
#   - srun -n 2 --cpu-bind=map_cpu:1,0 affix self: Slurm's binding kept, no warning
#     (and --slice rank self slices a binding both tasks share);
#   - the same with all: each task widened, and each warns;
#   - srun -n 3 on two cores (one task more than cores): every task fails
#     cleanly (125), nothing runs.
# Expected CPU lists are this machine's (2 CPUs: slices 0 and 1); on a
# larger one they come from `affix explain` and are checked to be disjoint,
# ordered and covering.
# Not part of plain ctest: on with -DAFFIX_SLURM_TESTS=ON (scripts/test),
# which needs the packages of `scripts/setup --slurm`.
. "$(dirname "$0")/check_lib.bash"
. "$(dirname "$0")/slurm_lib.bash"

# Each task prints "LOCALID CPUS" of what it ran.
report='echo $SLURM_LOCALID $(grep Cpus_allowed_list /proc/self/status | cut -f2)'
json_field() { grep -o "\"$1\": \"\{0,1\}[^\",]*" | head -1 | sed 's/.*[": ]//'; }
all=$("$AFFIX" explain all --json | json_field cpus)
cores=$("$AFFIX" explain all --no-smt --json | json_field count)
[[ $all == 0-* || $all == 0,* ]] || die "CPUs 0 and 1 must be allowed here (allowed: $all)"
echo "ok: this machine: CPUs $all, $cores cores"

# --cpu-bind=none: Slurm leaves the tasks unbound, --slice rank gives each
# its part of the cores: disjoint, in rank order, together all of them.
out=$(step -n 2 --cpu-bind=none "$AFFIX" --slice rank all sh -c "$report" 2>"$dir/err" | sort)
slice0=$("$AFFIX" explain all --slice 0/2 --json | json_field cpus)
slice1=$("$AFFIX" explain all --slice 1/2 --json | json_field cpus)
check "--cpu-bind=none, --slice rank all: each task its slice" "0 $slice0
1 $slice1" "$out"
check "--cpu-bind=none: the slices are disjoint, ordered and cover all" "$all" \
  "$("$AFFIX" explain "$slice0+$slice1" --json | json_field cpus)"
first1=${slice1%%[-,]*} last0=${slice0##*[-,]}
((last0 < first1)) && echo "ok: slice 0 ($slice0) before slice 1 ($slice1)" ||
  { echo "FAIL: slice 0 ($slice0) not before slice 1 ($slice1)"; fail=1; }
check "--cpu-bind=none: no warning" "" "$(cat "$dir/err")"

# map_cpu:1,0: task 0 on CPU 1, task 1 on CPU 0; self keeps it.
out=$(step -n 2 --cpu-bind=map_cpu:1,0 sh -c "$report" | sort)
check "Slurm's own binding, without affix" "0 1
1 0" "$out"
out=$(step -n 2 --cpu-bind=map_cpu:1,0 "$AFFIX" self sh -c "$report" 2>"$dir/err" | sort)
check "map_cpu:1,0, self keeps Slurm's binding" "0 1
1 0" "$out"
check "map_cpu:1,0, self: no warning" "" "$(cat "$dir/err")"

# Both tasks bound to CPUs 0-1: --slice rank self slices what Slurm gave.
out=$(step -n 2 --cpu-bind=mask_cpu:0x3,0x3 "$AFFIX" --slice rank self sh -c "$report" 2>"$dir/err" | sort)
check "mask_cpu:0x3,0x3, --slice rank self" "0 $(taskset -c 0-1 "$AFFIX" explain self --slice 0/2 --json | json_field cpus)
1 $(taskset -c 0-1 "$AFFIX" explain self --slice 1/2 --json | json_field cpus)" "$out"

# map_cpu:1,0 with all: each task widened to every CPU, and each warns once.
out=$(step -n 2 --cpu-bind=map_cpu:1,0 "$AFFIX" all sh -c "$report" 2>"$dir/err" | sort)
check "map_cpu:1,0, all widens each task" "0 $all
1 $all" "$out"
check "map_cpu:1,0, all: each task warns once" "affix: warning: CPUs $("$AFFIX" explain all --exclude 1 --json | json_field cpus) are outside the CPUs affix was started on (1); 'self' keeps to those
affix: warning: CPUs $("$AFFIX" explain all --exclude 0 --json | json_field cpus) are outside the CPUs affix was started on (0); 'self' keeps to those" "$(sort "$dir/err")"

# One task more than there are cores: every task refuses, nothing runs, srun reports 125.
n=$((cores + 1))
out=$(step -n "$n" --overcommit --cpu-bind=none "$AFFIX" --slice rank all sh -c "$report" 2>"$dir/err")
rc=$?
check "-n $n on $cores cores: nothing ran" "" "$out"
check "-n $n on $cores cores: srun's status is affix's" 125 "$rc"
want=$(for ((k = 0; k < n; k++)); do
  echo "affix: error: --slice $k/$n: the selection has $cores cores, fewer than $n parts"; done)
check "-n $n on $cores cores: every task says why" "$want" "$(grep '^affix:' "$dir/err" | grep -v hint | sort)"
exit $fail
