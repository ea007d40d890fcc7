#!/usr/bin/env bash
# --slice rank under a real Open MPI mpirun: the ranks get disjoint CPU sets
# that together cover the selection (on this machine: all = 0-1).
. "$(dirname "$0")/check_lib.bash"
probe="$AFFIX_BUILD_DIR/probe_placement"
mpi() { mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 "$@"; }

# Each rank prints "RANK CPUS".
out=$(mpi sh -c '"$0" --slice rank all sh -c "echo \$OMPI_COMM_WORLD_LOCAL_RANK \$(grep Cpus_allowed_list /proc/self/status | cut -f2)"' "$AFFIX" | sort)
check "ranks get 0 and 1" "0 0
1 1" "$out"

# The same with --no-smt and the probe: disjoint, covering 0-1.
out=$(mpi "$AFFIX" --slice rank --no-smt all "$probe" | grep Cpus_allowed_list | sort)
check "two ranks, disjoint, covering" "Cpus_allowed_list: 0
Cpus_allowed_list: 1" "$out"

# Without mpirun, --slice rank finds no launcher: 125, nothing runs.
env -u OMPI_COMM_WORLD_LOCAL_RANK "$AFFIX" --slice rank all true 2>/dev/null
check "no launcher" 125 "$?"

exit $fail
