#!/usr/bin/env bash
# affix watch on threads that live shorter than an interval: 2 threads that
# compute for 30 ms, made again and again. No sample sees most of them, but
# the process's own total (/proc/PID/stat, ended threads included) does: the
# watch counts what it says they used ("threads that came and went"), its
# total is /proc's, and no interval that had them is called exact.
. "$(dirname "$0")/pin_lib.bash"

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

start short short_threads
t0=$(ticks "$PID"); s0=$(date +%s%N)
run_affix watch --json -c 3 -i 1 "$PID"
t1=$(ticks "$PID"); s1=$(date +%s%N)
check "exit 0" "0 " "$RC $ERR"
summary=$(tail -n 1 <<<"$OUT" | jq -c '.summary')
# /proc's CPU time over the watch's 3 s: its count over the whole command
# (start and exit included), scaled to the 3 s.
proc_ms=$(( (t1 - t0) * 1000 / hz * 3000000000 / (s1 - s0) ))
watch_ms=$(jq '.processes[0].cpu_ms' <<<"$summary")
went_ms=$(jq '.processes[0].came_and_went_cpu_ms // 0' <<<"$summary")
echo "proc: $proc_ms ms over 3 s (scaled), watch: $watch_ms ms, of which came and went: $went_ms ms"
check "the watch's CPU time is /proc's (within 20%, 50 ms)" "yes" \
  "$( ((watch_ms * 10 >= proc_ms * 8 - 500 && watch_ms * 10 <= proc_ms * 12 + 500)) && echo yes ||
      echo "no: watch $watch_ms ms, /proc $proc_ms ms")"
check "most of it came and went" "yes" "$( ((went_ms * 2 >= watch_ms && went_ms > 0)) && echo yes || echo "no: $went_ms of $watch_ms ms")"
check "no interval is exact" "false false false" "$(head -n 3 <<<"$OUT" | jq -r '.exact' | tr '\n' ' ' | sed 's/ $//')"
check "the process is not exact in any interval" "false false false" \
  "$(head -n 3 <<<"$OUT" | jq -r '.processes[0].exact' | tr '\n' ' ' | sed 's/ $//')"
check "the summary is not exact" "false false" "$(jq -r '"\(.exact) \(.processes[0].exact)"' <<<"$summary")"

run_affix watch -c 2 -i 1 "$PID"
check "text: a line for them in each interval" "2" "$(grep -c '^        threads that came and went: [0-9.]*% CPU (moves not known)$' <<<"$OUT")"
check "text: and in the summary" "1" "$(grep -c '^        threads that came and went: [0-9.]* s CPU (moves not known)$' <<<"$OUT")"
if [[ $(sed -n 2p <<<"$OUT") == exact:* ]]; then
  check "text: each interval says why it is not exact" "2" \
    "$(grep -c '^not exact in this interval: threads came and went between two samples, their$' <<<"$OUT")"
fi
check "text: the summary not exact" "1" "$(grep -c '^summary of .* (not exact);' <<<"$OUT")"
finish
