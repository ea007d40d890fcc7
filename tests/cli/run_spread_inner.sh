#!/usr/bin/env bash
# `affix --spread WHERE -- COMMAND` where COMMAND sets its own CPUs first
# (taskset, an inner affix): each new thread is spread over the selection's
# CPUs in its creator's CPU list as the command left it, and where none of
# the selection's CPUs is in it, the thread stays where its creator is;
# threads made by threads affix placed go on round-robin over the whole
# selection (issue 34, item 6). Pins within 0-1.
. "$(dirname "$0")/check_lib.bash"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"  # as run_spread.sh: a tracer
build=${AFFIX_BUILD_DIR:?}
probe=$build/spread_probe
tmp=$(mktemp -d)
pid=
trap '[[ -n $pid ]] && kill -KILL $pid 2>/dev/null; rm -rf "$tmp"' EXIT

# The probe's lines: "main CPULIST", then "K CPULIST CPU" per thread.
check "taskset -c 1 inside --spread all: every thread on CPU 1" "main 1
1 1 1
2 1 1
3 1 1
4 1 1" "$("$AFFIX" --spread all -- taskset -c 1 "$probe" threads 4)"
check "an inner 'affix 1' inside --spread 0-1: every thread on CPU 1" "main 1
1 1 1
2 1 1
3 1 1" "$("$AFFIX" --spread 0-1 -- "$AFFIX" 1 "$probe" threads 3)"
check "taskset -c 1 inside --spread 0 (no CPU of the selection): left on 1" "main 1
1 1 1
2 1 1" "$("$AFFIX" --spread 0 -- taskset -c 1 "$probe" threads 2)"
check "taskset -c 0-1 inside --spread 0-1: spread as without it" "main 0-1
1 0 0
2 1 1
3 0 0" "$("$AFFIX" --spread 0-1 -- taskset -c 0-1 "$probe" threads 3)"
check "static probe under taskset -c 0 inside --spread=2 0-1: on 0" "main 0
1 0 0
2 0 0
3 0 0" "$("$AFFIX" --spread=2 0-1 -- taskset -c 0 "$build/spread_probe_static" threads 3)"

# A chain (thread K creates thread K+1): threads affix placed create threads
# that go on round-robin; under taskset, the chain stays on its CPU.
check "a chain of threads: round-robin over the selection" "main 0-1
1 0
2 1
3 0
4 1" "$("$AFFIX" --spread 0-1 "$build/spread_nest" 4)"
check "a chain under taskset -c 1: all on 1" "main 1
1 1
2 1
3 1" "$("$AFFIX" --spread 0-1 -- taskset -c 1 "$build/spread_nest" 3)"

# What /proc says of live threads: Cpus_allowed_list of every thread.
wait_for() {  # CONDITION...: up to 20 s (a hang guard, not a timing)
  local i
  for i in $(seq 1 400); do "$@" && return 0; sleep 0.05; done
  return 1
}
"$AFFIX" --spread all -- taskset -c 1 "$build/threads_helper" 6 > "$tmp/out" &
pid=$!
wait_for grep -q ready "$tmp/out" || { echo "FAIL: threads_helper never ready"; fail=1; }
lists=$(for s in /proc/$pid/task/*/status; do awk '/^Cpus_allowed_list:/ {print $2}' "$s"; done | sort | uniq -c | sed 's/^ *//')
check "/proc: 6 threads, Cpus_allowed_list 1 each" "6 1" "$lists"
kill -KILL $pid
wait $pid 2>/dev/null
pid=
exit $fail
