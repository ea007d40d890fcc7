#!/usr/bin/env bash
# A table of bad inputs. Each row asserts the exact stderr, the exit status
# (run: 125; explain: 2 for usage/spec/resolution, 1 for an unreadable root)
# and that the command did not run (it would have created a marker file).
set -u
fail=0
rows=0
tmp=$(mktemp -d)
cgroup=""
cleanup() { [[ -n "$cgroup" ]] && rmdir "$cgroup" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
marker="$tmp/ran"
corpora="$AFFIX_CORPORA_DIR"
unset OMPI_COMM_WORLD_LOCAL_RANK OMPI_COMM_WORLD_LOCAL_SIZE MPI_LOCALRANKID MPI_LOCALNRANKS \
  PMI_LOCAL_RANK PMI_LOCAL_SIZE SLURM_LOCALID SLURM_STEP_TASKS_PER_NODE SLURM_NODEID

# row STATUS EXPECTED_STDERR COMMAND...: run COMMAND (the marker command is
# already in it where there is one) and check all three.
row() {
  local want_status=$1 want_err=$2
  shift 2
  rows=$((rows + 1))
  rm -f "$marker"
  local err status
  err=$("$@" 2>&1 >/dev/null)
  status=$?
  local label="row $rows: ${*:2}" bad=0
  if [[ "$status" != "$want_status" ]]; then
    echo "FAIL: $label: status $status, expected $want_status"; bad=1
  fi
  if [[ "$err" != "$want_err" ]]; then
    echo "FAIL: $label: stderr"; echo "  expected: $(printf %q "$want_err")"
    echo "  actual:   $(printf %q "$err")"; bad=1
  fi
  if [[ -e "$marker" ]]; then echo "FAIL: $label: the command ran"; bad=1; fi
  if [[ $bad == 0 ]]; then echo "ok: $label"; else fail=1; fi
}
# run ARGS... EXPECTED: `affix ARGS... touch MARKER` must fail with 125.
run() { local want=${!#}; row 125 "$want" "$AFFIX" "${@:1:$#-1}" touch "$marker"; }
# explain ARGS... EXPECTED: `affix explain ARGS...` must fail with 2.
explain() { local want=${!#}; row 2 "$want" "$AFFIX" explain "${@:1:$#-1}"; }
spec() {  # SPEC REASON CARET_COLUMN: the three lines of a spec error
  printf "affix: error: invalid location '%s': %s\n  %s\n  %*s^" "$1" "$2" "$1" "$3" ""
}
run_hint="affix: hint: usage: affix [OPTIONS] WHERE [--] COMMAND [ARG...]; see 'affix run --help'"
explain_hint="affix: hint: usage: affix explain [OPTIONS] WHERE [--json | --as FORMAT | --svg[=FILE] | --ascii]; see 'affix explain --help'"

# --- location syntax
run socket: "$(spec socket: 'missing number' 7)"
run socket:1-0 "$(spec socket:1-0 'reversed range' 9)"
run socket:0, "$(spec socket:0, 'stray comma' 8)"
run sock:0 "$(spec sock:0 "unknown level 'sock' (socket, node, die, llc, core, cpu)" 0)
affix: hint: did you mean 'socket'?"
run 0,,1 "$(spec 0,,1 'stray comma' 2)"
run 0- "$(spec 0- 'missing number' 2)"
run core:0. "$(spec core:0. "missing step after '.'" 7)"
run +0 "$(spec +0 "missing location before '+'" 0)"
run 0+ "$(spec 0+ "missing location after '+'" 2)"
run cpu:01 "$(spec cpu:01 'leading zero' 4)"
run cpu:1048577 "$(spec cpu:1048577 'number beyond 1048576' 4)"
run 'socket:0 x' "$(spec 'socket:0 x' "unexpected ' '" 8)"
run all:0 "$(spec all:0 "unknown level 'all' (socket, node, die, llc, core, cpu)" 0)"
run cpu:-1 "$(spec cpu:-1 "expected a number, found '-'" 4)"
run node:0..core:0 "$(spec node:0..core:0 "expected a level (socket, node, die, llc, core, cpu), found '.'" 7)"
run cpu:0-1:0 "$(spec cpu:0-1:0 'stride 0' 8)"
run 0.cpu:0 "$(spec 0.cpu:0 'a bare CPU list takes no further step (write cpu:LIST)' 1)"
run --exclude socket: all "$(spec socket: 'missing number' 7)"
explain --json 'node:1-0' "$(spec node:1-0 'reversed range' 7)"

# --- units that do not exist
run socket:1 "affix: error: no socket 1 on this machine (sockets: 0)"
run node:3 "affix: error: no node 3 on this machine (nodes: 0)"
run core:2 "affix: error: no core 2 on this machine (cores: 0-1)"
explain --root "$corpora/16amd64-8n2c-cpusets" llc:99 "affix: error: no llc 99 on this machine (llcs: 0-14)"  # the host may list no caches
run die:1 "affix: error: no die 1 on this machine (dies: 0)"
run cpu:2 "affix: error: no cpu 2 on this machine (cpus: 0-1)"
run 0-7 "affix: error: no cpu 2 on this machine (cpus: 0-1)"
run socket:0.core:2 "affix: error: no core 2 in socket:0 (cores: 0-1)"
run core:1.cpu:1 "affix: error: no cpu 1 in core:1 (cpus: 0)"
run --exclude socket:3 all "affix: error: no socket 3 on this machine (sockets: 0)"
run -m bind:1 all "affix: error: no node 1 on this machine (nodes: 0)"
run -m interleave:0-1 all "affix: error: no node 1 on this machine (nodes: 0)"

# --- offline and not allowed, on captured machines
cpusets="$corpora/16amd64-8n2c-cpusets"
explain --root "$cpusets" cpu:4 "affix: error: CPU 4 is offline"
explain --root "$corpora/16em64t-4s2c2t-offlines" cpu:0-5 "affix: error: CPU 2 is offline"
explain --root "$cpusets" cpu:8 "affix: error: CPU 8 is not allowed (allowed: 0-3,5-6,12-15, from cpuset:/dev/cpuset/dummy/cpus)"
explain --root "$cpusets" cpu:0-3+cpu:9 "affix: error: CPU 9 is not allowed (allowed: 0-3,5-6,12-15, from cpuset:/dev/cpuset/dummy/cpus)"

# --- not allowed on this machine: affix inside a cgroup v1 cpuset of CPU 1
cgroup=/sys/fs/cgroup/cpuset/affix-test-$$
if mkdir "$cgroup" && echo 1 >"$cgroup/cpuset.cpus" && echo 0 >"$cgroup/cpuset.mems"; then
  in_cgroup() { sh -c 'echo $$ >"$0/tasks" && exec "$@"' "$cgroup" "$@"; }
  row 125 "affix: error: CPU 0 is not allowed (allowed: 1, from cgroup1:$cgroup/cpuset.effective_cpus)" \
    in_cgroup "$AFFIX" 0 touch "$marker"
  row 125 "affix: error: CPU 0 is not allowed (allowed: 1, from cgroup1:$cgroup/cpuset.effective_cpus)" \
    in_cgroup "$AFFIX" -m bind cpu:0-1 touch "$marker"
else
  echo "FAIL: cannot create the cpuset cgroup $cgroup"; fail=1
fi

# --- empty selections
run --exclude all all "affix: error: --exclude 'all' removes every CPU of 'all' (0-1)"
run --exclude 0-1 0 "affix: error: --exclude '0-1' removes every CPU of '0' (0)"
explain --root "$cpusets" node:4 "affix: error: 'node:4' selects no CPU that is online and allowed (allowed: 0-3,5-6,12-15, from cpuset:/dev/cpuset/dummy/cpus)"
explain --root "$cpusets" node:4+node:5 "affix: error: 'node:4+node:5' selects no CPU that is online and allowed (allowed: 0-3,5-6,12-15, from cpuset:/dev/cpuset/dummy/cpus)"

# --- --count and --slice that cannot be met
run -n 3 all "affix: error: --count 3: the selection has only 2 CPUs (0-1)"
run -n 2 0 "affix: error: --count 2: the selection has only 1 CPU (0)"
run --no-smt --count 2 1 "affix: error: --count 2: the selection has only 1 CPU (1)"
run --slice 2/3 all "affix: error: --slice 2/3: the selection has 2 cores, fewer than 3 parts"
run --slice 0/3 0 "affix: error: --slice 0/3: the selection has 1 core, fewer than 3 parts"
run --slice 2/2 all "affix: error: invalid --slice '2/2': there is no part 2 of 2 (parts are numbered 0 to 1)"
run --slice 0/0 all "affix: error: invalid --slice '0/0': N must be at least 1"

# --- --slice rank without a launcher
run --slice rank all "affix: error: --slice rank: no launcher rank found (OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, PMI_LOCAL_RANK, SLURM_LOCALID, PMIX_LOCAL_RANK, PALS_LOCAL_RANKID, LOCAL_RANK are unset)
affix: hint: start affix under mpirun or srun, or give --slice K/N"
row 125 "affix: error: --slice rank: OMPI_COMM_WORLD_LOCAL_RANK is set but OMPI_COMM_WORLD_LOCAL_SIZE is not" \
  env OMPI_COMM_WORLD_LOCAL_RANK=1 "$AFFIX" --slice rank all touch "$marker"
row 125 "affix: error: --slice rank: local rank 2 is not below local size 2 (OMPI_COMM_WORLD_LOCAL_RANK/OMPI_COMM_WORLD_LOCAL_SIZE)" \
  env OMPI_COMM_WORLD_LOCAL_RANK=2 OMPI_COMM_WORLD_LOCAL_SIZE=2 "$AFFIX" --slice rank all touch "$marker"
row 125 "affix: error: --slice rank: SLURM_LOCALID is set but SLURM_STEP_TASKS_PER_NODE or SLURM_NODEID is not" \
  env SLURM_LOCALID=0 "$AFFIX" --slice rank all touch "$marker"

# --- conflicting, unknown and malformed options
run -n 2 --count 3 all "affix: error: option '--count' given twice
$run_hint"
run --slice rank --slice 0/2 all "affix: error: option '--slice' given twice
$run_hint"
run -m bind --mem local all "affix: error: option '--mem' given twice
$run_hint"
run --no-smt=1 all "affix: error: option '--no-smt' takes no value
$run_hint"
run --mem local:0 all "affix: error: invalid --mem 'local:0': 'local' takes no nodes"
run --mem fast all "affix: error: invalid --mem 'fast': unknown policy 'fast' (expected bind, preferred, interleave, weighted or local)"
run -m bind:0x all "affix: error: invalid --mem 'bind:0x': bad node list: unexpected 'x' at offset 1"
run -n x all "affix: error: invalid --count 'x': expected a whole number from 1 to 1048576"
run --order random all "affix: error: invalid --order 'random': expected compact or scatter"
run --bogus all "affix: error: unknown option '--bogus' for 'run'
$run_hint"
run --json all "affix: error: unknown option '--json' for 'run'
$run_hint"
explain all --env "affix: error: unknown option '--env' for 'explain'
$explain_hint"
explain 0 1 "affix: error: unexpected '1' after the location '0'
$explain_hint"
explain "affix: error: no location given
$explain_hint"
row 125 "affix: error: no location given
$run_hint" "$AFFIX"
row 125 "affix: error: no command given to run at 'all'
$run_hint" "$AFFIX" run all
# No WHERE before the command (--slice rank, --gpu as a launcher's line has
# them): the command was read as WHERE, and the hint offers 'all'.
row 125 "affix: error: no command given to run: './omp' was read as WHERE
affix: hint: WHERE comes before the command, and 'all' is every CPU affix may use: 'affix --slice rank all -- ./omp'" \
  "$AFFIX" --slice rank -- ./omp
row 125 "affix: error: no command given to run: './omp' was read as WHERE
affix: hint: WHERE comes before the command, and 'all' is every CPU affix may use: 'affix --gpu closest all ./omp'" \
  "$AFFIX" --gpu closest ./omp
row 125 "affix: error: no command given to run: '$marker' was read as WHERE
affix: hint: WHERE comes before the command, and 'all' is every CPU affix may use: 'affix --slice 0/2 all $marker'" \
  "$AFFIX" run --slice 0/2 "$marker"
row 125 "affix: error: option '-n' needs a value
$run_hint" "$AFFIX" all -n
row 1 "affix: error: $tmp/none: no such directory" "$AFFIX" explain --root "$tmp/none" all

# --- numactl's and taskset's habits: the hint is a command that works here
# (the suggested placement is run for real: it must start the command).
foreign() {  # WORDS... HINT: `affix WORDS... touch MARKER` fails with HINT
  local want=${!#}
  row 125 "affix: error: unknown option '${1%%=*}' for 'run'
affix: hint: $want" "$AFFIX" "${@:1:$#-1}" touch "$marker"
  local suggested=${want#*is \'}
  suggested=${suggested%\'}
  rm -f "$marker"
  case $suggested in
    "affix pin "*|"affix show "*) return ;;  # a PID of the user's
  esac
  rows=$((rows + 1))
  if ${suggested/#affix/$AFFIX} touch "$marker" && [[ -e $marker ]]; then
    echo "ok: row $rows: '$suggested' runs"
  else
    echo "FAIL: row $rows: the hint's '$suggested' does not run"; fail=1
  fi
}
foreign --cpunodebind=0 --membind=0 "numactl's --cpunodebind=0 --membind=0 is 'affix node:0 --mem bind'"
foreign -N 0 -m 0 "numactl's -N 0 -m 0 is 'affix node:0 --mem bind'"
foreign --physcpubind=0 --localalloc "numactl's --physcpubind=0 --localalloc is 'affix 0 --mem local'"
foreign -C 0 --membind=0 "numactl's -C 0 --membind=0 is 'affix 0 --mem bind:0'"
foreign --interleave=0 "numactl's --interleave=0 is 'affix all --mem interleave:0'"
foreign --preferred=0 "numactl's --preferred=0 is 'affix all --mem preferred:0'"
foreign -l "numactl's -l is 'affix all --mem local'"
foreign -c 0 "taskset's -c 0 is 'affix 0'"
foreign -p 0x1 1234 "taskset's -p 0x1 1234 is 'affix pin 0 1234'"
foreign -pc 0 1234 "taskset's -pc 0 1234 is 'affix pin 0 1234'"
run -m 0 all "affix: error: invalid --mem '0': unknown policy '0' (expected bind, preferred, interleave, weighted or local)
affix: hint: numactl's -m 0 is '--mem bind:0'"

echo "$rows rows"
if (( rows < 40 )); then echo "FAIL: only $rows rows"; fail=1; fi
exit $fail
