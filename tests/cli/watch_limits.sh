#!/usr/bin/env bash
# affix watch where the open-files limit leaves no file per thread (a
# process of 201 threads under ulimit -n 64, soft and hard, so affix cannot
# raise it): every thread is still reported, read by path, and the counts
# are then not exact; with the spare files taken by files inherited open,
# the threads that cannot be read at all are counted in threads_unread,
# never dropped as gone (affix(1), WATCH).
. "$(dirname "$0")/watch_lib.bash"

start threads threads_helper 201

OUT=$(ulimit -n 64; "$AFFIX" watch --json -c 2 -i 0.1 "$PID" 2> "$tmp/err")
RC=$?
check "64 open files: exit status, nothing on stderr" "0 " "$RC $(cat "$tmp/err")"
check "64 open files: every thread reported, none unread" "201 201 0|201 201 0" \
  "$(head -n 2 <<<"$OUT" | jq -r '.processes[0] | "\(.threads) \(.thread_list | length) \(.threads_unread)"' |
     tr '\n' '|' | sed 's/|$//')"
check "64 open files: neither the intervals nor the process exact" "false false|false false" \
  "$(head -n 2 <<<"$OUT" | jq -r '"\(.exact) \(.processes[0].exact)"' | tr '\n' '|' | sed 's/|$//')"
check "64 open files: the summary" "201 0 false" \
  "$(tail -n 1 <<<"$OUT" | jq -r '.summary | "\(.processes[0].threads) \(.processes[0].threads_unread) \(.exact)"')"
check "64 open files: no thread exited" "0" \
  "$(head -n 2 <<<"$OUT" | jq '[.processes[0].thread_list[] | select(.exited)] | length' | sort -u)"

OUT=$(ulimit -n 64; "$AFFIX" watch -c 1 -i 0.1 "$PID" 2> "$tmp/err")
check "64 open files, text: all the threads" "1 process, 201 threads; per second:" \
  "$(grep -m 1 '^1 process' <<<"$OUT")"
check "64 open files, text: the process's line" "        201 threads, ran on" \
  "$(grep -m 1 -o '^        201 threads, ran on' <<<"$OUT")"

# Descriptors 48-63, the 16 that affix keeps spare, inherited open: what
# has no file of its own cannot be read, and is counted, not dropped.
OUT=$(ulimit -n 64; for fd in {48..63}; do eval "exec $fd>/dev/null"; done
      exec "$AFFIX" watch --json -c 1 -i 0.1 "$PID" 2> "$tmp/err")
RC=$?
check "no spare file: exit status, nothing on stderr" "0 " "$RC $(cat "$tmp/err")"
read -r threads unread listed exact pexact < <(head -n 1 <<<"$OUT" |
  jq -r '"\(.processes[0].threads) \(.processes[0].threads_unread) \(.processes[0].thread_list | length) \(.exact) \(.processes[0].exact)"')
[[ $unread =~ ^[0-9]+$ ]] || unread=-1  # no threads_unread field
check "no spare file: every thread read or counted unread" "201 $threads" "$((threads + unread)) $listed"
if ((unread > 0)); then echo "ok: no spare file: $unread threads unread"
else echo "FAIL: no spare file: no thread counted unread ($threads read)"; fail=1; fi
check "no spare file: not exact" "false false" "$exact $pexact"
check "no spare file: the summary counts them" "$unread" \
  "$(tail -n 1 <<<"$OUT" | jq -r '.summary.processes[0].threads_unread')"

OUT=$(ulimit -n 64; for fd in {48..63}; do eval "exec $fd>/dev/null"; done
      exec "$AFFIX" watch -c 1 -i 0.1 "$PID" 2> "$tmp/err")
check_match "no spare file, text: the unread in the header" "1 process, * threads (* unread); per second:" \
  "$(grep -m 1 '^1 process' <<<"$OUT")"
if [[ $(sed -n 2p <<<"$OUT") == exact:* ]]; then
  check_match "no spare file, text: and why the interval is not exact" \
    "not exact in this interval: * threads could not be read" "$(grep -m 1 '^not exact' <<<"$OUT")"
fi
finish
