#!/usr/bin/env bash
# `affix --spread[=N] WHERE COMMAND`: every thread the command creates gets
# its own CPU of the selection before its first instruction (the probe's
# threads record their CPU list and CPU as their first act), in creation
# order, N per CPU; the main thread keeps the selection. Dynamic, static and
# Go programs; the command keeps its PID, its exit status, its signals and
# its group stops; the follower's death does not stop it; bad values and a
# refused ptrace exit 125 with the command not started. Pins within 0-1.
. "$(dirname "$0")/check_lib.bash"
# In a sanitized build LeakSanitizer cannot run at the exit of affix's
# follower (a tracer) nor where ptrace is refused (it stops the world with
# ptrace): leaks are checked by every other test. Ignored without sanitizers.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
build=${AFFIX_BUILD_DIR:?}
probe=$build/spread_probe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The probe's lines for 4 threads one after another: "K CPULIST CPU".
want4="main 0-1
1 0 0
2 1 1
3 0 0
4 1 1"
for p in spread_probe spread_probe_static; do
  check "$p: unspread, every thread inherits 0-1" "main 0-1
1 0-1" "$("$AFFIX" 0-1 "$build/$p" threads 1 | sed 's/ [01]$//')"
  check "$p: --spread, one CPU each, in creation order" "$want4" \
    "$("$AFFIX" --spread 0-1 "$build/$p" threads 4)"
  check "$p: --spread=2, two threads per CPU" "main 0-1
1 0 0
2 0 0
3 1 1
4 1 1" "$("$AFFIX" --spread=2 0-1 "$build/$p" threads 4)"
done
file "$build/spread_probe_static" | grep -q 'statically linked' ||
  { echo "FAIL: spread_probe_static is not static"; fail=1; }

# 200 short threads: a follower that placed a thread only at its creator's
# CLONE event would let some of them run first (facts: the two stops come in
# either order).
want200=$(echo "main 0-1"; for k in $(seq 1 200); do echo "$k $(( (k - 1) % 2 )) $(( (k - 1) % 2 ))"; done)
check "200 threads, each on its CPU from its first act" "$want200" \
  "$("$AFFIX" --spread 0-1 "$probe" threads 200)"
check "a WHERE written 1,0 is CPUs 0 then 1" "main 0-1
1 0 0
2 1 1" "$("$AFFIX" --spread 1,0 "$probe" threads 2)"
check "exec keeps spreading" "$want4" "$("$AFFIX" --spread 0-1 sh -c "exec $probe threads 4")"
check "a forked child's threads are not spread" "main 0-1
1 0-1
2 0-1" "$("$AFFIX" --spread 0-1 sh -c "$probe threads 2; true" | sed 's/ [01]$//')"

# Go creates threads with clone(2) directly.
if command -v go >/dev/null; then
  (cd "$tmp" && HOME=$tmp GOCACHE=$tmp/gocache GOPATH=$tmp/gopath \
    go build -o goprobe "$AFFIX_SOURCE_DIR/tests/helpers/go/spread_probe.go") ||
    { echo "FAIL: go build"; fail=1; }
  out=$("$AFFIX" --spread 0-1 "$tmp/goprobe" 4)
  check "go: main keeps 0-1" "main 0-1" "$(echo "$out" | head -1)"
  check "go: every other thread on one CPU, both used" "0 1" \
    "$(echo "$out" | sed -n 's/^thread //p' | sort -u | tr '\n' ' ' | sed 's/ $//')"
  check_match "go: at least 5 threads" "[5-9]*" "$(echo "$out" | grep -c '^thread')"
  check "go: unspread, all 0-1" "0-1" "$("$AFFIX" 0-1 "$tmp/goprobe" 4 | sed -n 's/^thread //p' | sort -u)"
else
  echo "skip: go (golang-go) not installed"
fi

# The command's own status, PID and signals.
"$AFFIX" --spread 0-1 sh -c 'exit 7'
check "exit status 7 stays 7" 7 "$?"
check "killed by SIGTERM: 143" 143 "$( ("$AFFIX" --spread 0-1 sh -c 'kill -TERM $$'); echo $?)"
"$AFFIX" --spread 0-1 sh -c 'echo $$' > "$tmp/pid" &
pid=$!
wait $pid
check "the command keeps affix's PID" "$pid" "$(cat "$tmp/pid")"

wait_for() {  # CONDITION...: up to 20 s (a hang guard, not a timing)
  local i
  for i in $(seq 1 400); do "$@" && return 0; sleep 0.05; done
  return 1
}
count_is() { [[ "$(cat "$tmp/count" 2>/dev/null)" == "$1" ]]; }
"$AFFIX" --spread 0-1 "$probe" usr1 3 "$tmp/count" &
pid=$!
for k in 1 2 3; do
  wait_for count_is $((k - 1)) || { echo "FAIL: signal $k: count $(cat "$tmp/count")"; fail=1; }
  kill -USR1 $pid
done
wait $pid
check "3 SIGUSR1 from outside reach the handler" "0 3" "$? $(cat "$tmp/count")"

# A group stop stays a stop while followed (PTRACE_LISTEN) and SIGCONT ends it.
rm -f "$tmp/count"
"$AFFIX" --spread 0-1 "$probe" usr1 1 "$tmp/count" &
pid=$!
wait_for count_is 0
state() { awk '{print $3}' "/proc/$pid/stat"; }
stopped() { [[ "$(state)" == [Tt] ]]; }
kill -STOP $pid
wait_for stopped
sleep 0.3  # a stop that the follower let go would be over by now
check_match "SIGSTOP stops the followed command" "[Tt]" "$(state)"
kill -CONT $pid
wait_for eval '[[ "$(state)" == S ]]'
kill -USR1 $pid
wait $pid
check "after SIGCONT it runs to its end" "0 1" "$? $(cat "$tmp/count")"

# The follower killed mid-run: the command goes on to its end.
"$AFFIX" --spread 0-1 "$probe" await "$tmp/go" 2 > "$tmp/out" &
pid=$!
tracer() { awk '/^TracerPid:/ {print $2}' "/proc/$pid/status"; }
wait_for eval '[[ "$(tracer)" != 0 ]]'
g=$(tracer)
check_match "a follower traces the command" "[1-9]*" "$g"
check "the follower is not the shell's child" "" "$(jobs -p | grep -x "$g")"
kill -KILL "$g"
wait_for eval '[[ "$(tracer)" == 0 ]]'
touch "$tmp/go"
wait $pid
check "follower killed: the command goes on, status 0" 0 "$?"
check "follower killed: its output" 3 "$(wc -l < "$tmp/out")"

# The follower leaves when the command does.
rm "$tmp/go"
"$AFFIX" --spread 0-1 "$probe" await "$tmp/go" 0 > /dev/null &
pid=$!
wait_for eval '[[ "$(tracer)" != 0 ]]'
g=$(tracer)
touch "$tmp/go"
wait $pid
gone() { ! kill -0 "$g" 2>/dev/null; }
wait_for gone
check "the follower exits with the command" 0 "$?"

# -v, --dry-run, explain: the spread order.
check "--dry-run shows the order" "affix: would bind to CPUs 0-1 (2 CPUs; socket 0; node 0)
affix: would spread the threads the command creates, one CPU each (2 per CPU): threads 1-2: CPU 0, threads 3-4: CPU 1, then again from CPU 0
affix: would follow the command's threads with ptrace: a debugger or strace cannot attach to it while it runs
affix: would exec: true" "$("$AFFIX" --dry-run --spread=2 0-1 true 2>&1)"
check "-v says it is followed" "affix: bind to CPUs 0-1 (2 CPUs; socket 0; node 0)
affix: spread the threads the command creates, one CPU each: thread 1: CPU 0, thread 2: CPU 1, then again from CPU 0
affix: follow the command's threads with ptrace: a debugger or strace cannot attach to it while it runs
affix: exec: true" "$("$AFFIX" -v --spread 0-1 true 2>&1)"
check "explain shows the order" "spread    threads 1-3: CPU 0, threads 4-6: CPU 1, then again from CPU 0" \
  "$("$AFFIX" explain --spread=3 0-1 | grep '^spread')"

# Bad input: exit 125, the command not started.
bad() {  # NAME EXPECTED-STDERR AFFIX-ARGS...
  local name=$1 want=$2 err rc
  shift 2
  rm -f "$tmp/marker"
  err=$("$@" touch "$tmp/marker" 2>&1)
  rc=$?
  check "$name: exit 125, not started" "125 no" "$rc $([[ -e $tmp/marker ]] && echo yes || echo no)"
  check "$name: message" "$want" "$err"
}
for v in 0 x ''; do
  bad "--spread=$v" "affix: error: invalid --spread '$v': expected a whole number of threads per CPU from 1 to 1048576 (--spread=2)" \
    "$AFFIX" "--spread=$v" 0-1
done
bad "ptrace refused" "affix: error: cannot follow the command's threads for --spread: ptrace: Operation not permitted
affix: hint: the kernel refuses ptrace here (Yama ptrace_scope 3, a seccomp filter, or a container without CAP_SYS_PTRACE); the command was not started" \
  "$build/seccomp_run" ptrace EPERM "$AFFIX" --spread 0-1
"$build/seccomp_run" ptrace EPERM "$AFFIX" 0-1 true
check "ptrace refused, no --spread: runs" 0 "$?"
err=$("$AFFIX" pin --spread=0 0-1 $$ 2>&1)
check "pin --spread=0: exit 2" "2" "$?"
check "pin --spread=0: message" "affix: error: invalid --spread '0': expected a whole number of threads per CPU from 1 to 1048576 (--spread=2)" "$err"
exit $fail
