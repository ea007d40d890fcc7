#!/usr/bin/env bash
# A pin that leaves a runtime sized for more CPUs than it now has warns, per
# process, from the environment it was started with: GOMAXPROCS and
# OMP_NUM_THREADS above the new CPU count, AFFIX_CPUS naming other CPUs.
. "$(dirname "$0")/pin_lib.bash"

GOMAXPROCS=8 OMP_NUM_THREADS=1 start go8 threads_helper 2
run_affix pin 0 $PID
check "GOMAXPROCS=8 pinned to one CPU: exit 0" 0 "$RC"
check "GOMAXPROCS=8 pinned to one CPU: the warning" \
  "affix: warning: $PID was started with GOMAXPROCS=8; it now has 1 CPU (restart it under 'affix --env', or set GOMAXPROCS)" "$ERR"
check "the pin itself is done" "0 0" "$(tid_lists $PID | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//')"
run_affix pin --dry-run all $PID
check "--dry-run warns of nothing" "" "$ERR"
run_affix pin --check 0 $PID
check "--check warns of nothing" "" "$ERR"
stop $PID

# Started under affix --env on both CPUs, then pinned to one: every variable
# --env exported now disagrees.
"$AFFIX" --env 0-1 "$HELPERS/threads_helper" 2 > "$tmp/env.out" &
PID=$!; started+=("$PID")
for _ in $(seq 1 100); do grep -q ready "$tmp/env.out" && break; sleep 0.05; done
run_affix pin 1 $PID
check "after affix --env 0-1, pin 1: the three warnings" \
  "affix: warning: $PID was started with GOMAXPROCS=2; it now has 1 CPU (restart it under 'affix --env', or set GOMAXPROCS)
affix: warning: $PID was started with OMP_NUM_THREADS=2; it now has 1 CPU (restart it under 'affix --env', or set OMP_NUM_THREADS)
affix: warning: $PID was started with AFFIX_CPUS=0-1; it now has CPUs 1 (restart it under 'affix --env' so that what it reads agrees)" "$ERR"
run_affix pin 0-1 $PID
check "back on 0-1: no warning" "0 " "$RC $ERR"
stop $PID

# One thread spread over two CPUs: the process has one CPU.
GOMAXPROCS=4 start goserver threads_helper 1
run_affix pin --spread 0-1 $PID
check "--spread over 2 CPUs of a GOMAXPROCS=4 process" \
  "affix: warning: $PID was started with GOMAXPROCS=4; it now has 1 CPU (restart it under 'affix --env', or set GOMAXPROCS)" "$ERR"
stop $PID
finish
