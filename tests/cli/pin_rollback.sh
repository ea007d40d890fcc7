#!/usr/bin/env bash
# All or nothing: in the helper only the main thread runs as nobody (raw
# setresuid), so an affix running as nobody may move it and no other
# thread. pin moves it, is refused the next thread, puts it back, fails
# (exit 1) naming the thread and the reason; every thread keeps its list.
. "$(dirname "$0")/pin_lib.bash"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

start creds setuid_helper 65534 4
tids=($(ls /proc/$PID/task | sort -n))
check "helper: main thread is nobody's" "65534" "$(awk '/^Uid:/ {print $2}' /proc/$PID/task/${tids[0]}/status)"
check "helper: the others are root's" "0" "$(awk '/^Uid:/ {print $2}' /proc/$PID/task/${tids[1]}/status)"

"$AFFIX" pin 0-1 $PID > /dev/null  # as root: the starting lists, all 0-1
as_nobody "$AFFIX" pin 1 $PID > "$tmp/out" 2> "$tmp/err"
check "pin as nobody: status" 1 "$?"
check "pin as nobody: message" \
"affix: error: cannot move thread ${tids[1]} (setuid_helper) of process $PID: permission denied; nothing was changed
affix: hint: moving another user's process needs CAP_SYS_NICE" "$(cat "$tmp/err")"
check "pin as nobody: nothing on stdout" "" "$(cat "$tmp/out")"
check "pin as nobody: every thread kept 0-1" "4 0-1" "$(thread_lists $PID)"

# The main thread alone is nobody's to move: the failure above was a rollback.
as_nobody "$AFFIX" pin --tid 1 $PID > "$tmp/out" 2> "$tmp/err"
check "pin --tid main thread as nobody" "0 $PID: 1 thread on CPUs 1 (1 moved)" "$? $(cat "$tmp/out")"
check "only the main thread moved" "3 0-1 1 1" "$(thread_lists $PID)"

# A process that is not nobody's at all: refused at the first thread.
start rootproc threads_helper 2
as_nobody "$AFFIX" pin 1 $PID > "$tmp/out" 2> "$tmp/err"
check "pin another user's process: status" 1 "$?"
check "pin another user's process: message" \
"affix: error: cannot move thread $PID (threads_helper) of process $PID: permission denied; nothing was changed
affix: hint: moving another user's process needs CAP_SYS_NICE" "$(cat "$tmp/err")"
check "pin another user's process: unchanged" "2 0-1" "$(thread_lists $PID)"
finish
