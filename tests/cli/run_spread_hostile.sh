#!/usr/bin/env bash
# `affix --spread` against programs that make threads the follower could
# miss (issue 34, items 1-3), each with tests/helpers/spread_hostile.cpp:
# an exec from a thread other than the main one gives the new program's main
# thread the whole selection back and spreading goes on from where it was;
# the exec'ing thread's old TID, reused by a later thread (made to happen
# with ns_last_pid, inside a PID namespace of the test's own), is spread
# like any new thread; a thread made with CLONE_UNTRACED is found by the
# follower's scan and gets its CPU. Pins within 0-1.
. "$(dirname "$0")/check_lib.bash"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"  # as run_spread.sh
build=${AFFIX_BUILD_DIR:?}
hostile=$build/spread_hostile
probe=$build/spread_probe

# 1. A thread execs the probe: it was thread 1 (CPU 0); the probe's main
# thread has 0-1 again, and its threads go on from thread 2 (CPU 1).
check "exec from a thread: main gets 0-1 back, spreading goes on" "main 0-1
1 1 1
2 0 0
3 1 1
4 0 0" "$("$AFFIX" --spread 0-1 "$hostile" exec-thread "$probe" threads 4)"
check "exec from a thread, --spread=2: the count goes on" "main 0-1
1 0 0
2 1 1
3 1 1" "$("$AFFIX" --spread=2 0-1 "$hostile" exec-thread "$probe" threads 3)"
check "exec from the main thread: unchanged" "main 0-1
1 0 0
2 1 1" "$("$AFFIX" --spread 0-1 sh -c "exec $probe threads 2")"

# The same from Go: syscall.Exec on a goroutine's own locked thread (the main
# goroutine holds the main thread). How many threads the runtime made before
# is its own: each of the probe's is on one CPU, its main thread on 0-1.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if command -v go >/dev/null; then
  (cd "$tmp" && HOME=$tmp GOCACHE=$tmp/gocache GOPATH=$tmp/gopath \
    go build -o goexec "$AFFIX_SOURCE_DIR/tests/helpers/go_exec/exec_thread.go") ||
    { echo "FAIL: go build"; fail=1; }
  out=$("$AFFIX" --spread 0-1 "$tmp/goexec" "$probe" threads 3)
  check "go syscall.Exec from a thread: the probe's main thread on 0-1" "main 0-1" "$(echo "$out" | head -1)"
  turn=$(echo "$out" | awk 'NR > 1 && $2 == $3 {print $2}' | paste -sd ' ')
  check "go syscall.Exec from a thread: its threads one CPU each, in turn ($turn)" yes \
    "$([[ $turn == "0 1 0" || $turn == "1 0 1" ]] && echo yes)"
else
  echo "skip: go (golang-go) not installed"
fi

# 2. The exec'ing thread's TID comes back for a later thread (ns_last_pid,
# written by the helper inside a PID namespace of its own: nothing else on
# the machine is touched). That thread is new: it gets the next CPU (thread
# 2: CPU 1), not its creator's list. "yes": the TID did come back.
if [[ $EUID -eq 0 ]]; then ns=(unshare --pid --fork --mount-proc)
else ns=(unshare --user --map-root-user --pid --fork --mount-proc); fi
check "the exec'ing thread's TID reused: spread as a new thread" "main 0-1
reused yes 1" "$("${ns[@]}" "$AFFIX" --spread 0-1 "$hostile" reuse 2>&1)"
check "unspread, the same program: the TID comes back, 0-1" "main 0-1
reused yes 0-1" "$("${ns[@]}" "$AFFIX" 0-1 "$hostile" reuse 2>&1)"

# 3. A CLONE_UNTRACED thread stops nowhere: the follower's scan (every
# 50 ms) finds it and gives it the next CPU (thread 1: CPU 0); the helper
# waits up to 5 s for that. Traced from then on, the thread it makes is
# stopped at its creation and placed before its first act (thread 2: CPU 1;
# left to the next scan it would start on its creator's CPU 0). The pthread
# the main thread makes next is thread 3 (CPU 0).
start=$(date +%s%N)
check "a CLONE_UNTRACED thread is placed, then followed" "untraced 0
its thread 1
next 0" "$("$AFFIX" --spread 0-1 "$hostile" untraced)"
# How long it took is said, not asserted (shared, noisy machines; a
# sanitized build is several times slower): the helper's own 5 s wait is
# the limit, and "untraced 0" above is the proof it was met.
echo "note: the CLONE_UNTRACED thread placed and followed in $((($(date +%s%N) - start) / 1000000)) ms"
check "unspread: every thread keeps 0-1" "untraced 0-1
its thread 0-1
next 0-1" "$("$AFFIX" 0-1 "$hostile" untraced)"
exit $fail
