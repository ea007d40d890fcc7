#!/usr/bin/env bash
# `affix --spread` run under a tracer (strace -f, an outer affix --spread):
# a process has one tracer, so the follower cannot attach; the error names
# the tracer by PID and comm (TracerPid of affix's status), exit 125, the
# command not started (issue 34, item 7). Pins within 0-1.
. "$(dirname "$0")/check_lib.bash"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"  # as run_spread.sh: under a tracer
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hint="affix: hint: a process has one tracer at a time (strace, gdb, an outer 'affix --spread'): run --spread outside it, or leave out --spread; the command was not started"

command -v strace >/dev/null || { echo "FAIL: strace is not installed (scripts/setup installs it)"; exit 1; }
strace -f -o /dev/null "$AFFIX" --spread 0-1 touch "$tmp/marker" 2> "$tmp/err" &
spid=$!
wait $spid
check "under strace -f: exit 125, not started" "125 no" "$? $([[ -e $tmp/marker ]] && echo yes || echo no)"
check "under strace -f: the error names strace" "affix: error: cannot follow the command's threads for --spread: ptrace: Operation not permitted: affix is already traced by process $spid (strace)
$hint" "$(cat "$tmp/err")"

# An outer --spread follows the inner affix: its follower is the tracer (a
# fork of affix, so its comm is affix's).
err=$("$AFFIX" --spread 0-1 -- "$AFFIX" --spread 0-1 touch "$tmp/marker" 2>&1)
check "inside an outer --spread: exit 125, not started" "125 no" "$? $([[ -e $tmp/marker ]] && echo yes || echo no)"
check_match "inside an outer --spread: the error names the outer follower" \
  "affix: error: cannot follow the command's threads for --spread: ptrace: Operation not permitted: affix is already traced by process [1-9]* (affix)
$hint" "$err"

# A tracer whose comm is not plain text is shown escaped: strace under
# another name (a copy called "s tr\ace").
cp "$(command -v strace)" "$tmp/s tr\\ace"
"$tmp/s tr\\ace" -f -o /dev/null "$AFFIX" --spread 0-1 true 2> "$tmp/err" &
spid=$!
wait $spid
check "a tracer's comm is escaped" "125 affix: error: cannot follow the command's threads for --spread: ptrace: Operation not permitted: affix is already traced by process $spid (s tr\\\\ace)" \
  "$? $(head -1 "$tmp/err")"

# Untraced, the same run goes.
"$AFFIX" --spread 0-1 true
check "untraced: runs" 0 "$?"
exit $fail
