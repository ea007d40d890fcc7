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
# A Go program started without GOMAXPROCS: Go sized GOMAXPROCS at its start
# from the CPUs it had. The stand-ins (tests/helpers/go_*_helper.cpp) carry
# the ELF section .go.buildinfo a Go executable has, so no Go toolchain is
# needed here.
had=$(nproc)
start goold go_old_helper
run_affix pin 0 $PID
check "Go 1.22 without GOMAXPROCS pinned to one CPU: exit 0" 0 "$RC"
check "Go 1.22 without GOMAXPROCS: the warning says what to set" \
  "affix: warning: $PID is a Go program (go1.22.1) started without GOMAXPROCS: Go sized GOMAXPROCS once, at its start, to the CPUs it had then ($had before this pin); it now has 1 CPU (restart it with GOMAXPROCS=1, or under 'affix --env')" "$ERR"
run_affix pin all $PID
check "given more CPUs again: no warning" "0 " "$RC $ERR"
stop $PID
GOMAXPROCS=2 start gomax go_old_helper
run_affix pin 0 $PID
check "Go with GOMAXPROCS=2: the GOMAXPROCS warning alone" \
  "affix: warning: $PID was started with GOMAXPROCS=2; it now has 1 CPU (restart it under 'affix --env', or set GOMAXPROCS)" "$ERR"
stop $PID
start gonew go_new_helper
run_affix pin 0 $PID
check "Go 1.25 follows its CPU list itself: no warning" "0 " "$RC $ERR"
stop $PID
GODEBUG=updatemaxprocs=0 start gonewoff go_new_helper
run_affix pin 0 $PID
check "Go 1.25 with GODEBUG=updatemaxprocs=0: the warning" \
  "affix: warning: $PID is a Go program (go1.25.0) started without GOMAXPROCS: Go sized GOMAXPROCS once, at its start, to the CPUs it had then ($had before this pin); it now has 1 CPU (restart it with GOMAXPROCS=1, or under 'affix --env')" "$ERR"
stop $PID
finish
