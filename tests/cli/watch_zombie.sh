#!/usr/bin/env bash
# affix watch on zombies. A zombie process (exited, its parent does not reap
# it) is said to be one, not "no such process": exit 1, or a warning where
# other named processes are watched. A process whose main thread called
# pthread_exit while a worker runs (a zombie leader) is watched through its
# live thread: the worker counted, the zombie not, and its memory read from
# the worker's files (the leader's numa_maps reads empty).
. "$(dirname "$0")/pin_lib.bash"

start zchild zombie_helper child
read -r _ PARENT CHILD < "$tmp/zchild.out"
check "the child is a zombie" "Z" "$(awk '{print $3}' "/proc/$CHILD/stat")"
zombie="process $CHILD has exited (a zombie, <defunct>): its parent, $PARENT, has not reaped it"
run_affix watch -c 1 -i 0.1 "$CHILD"
check "a zombie: exit 1 and what it is" "1 affix: error: $zombie; nothing to watch" "$RC $ERR"
check "a zombie: nothing printed" "" "$OUT"
run_affix watch -c 1 -i 0.1 4194304 "$CHILD"
check "a zombie and a PID that does not exist" \
  "1 affix: error: no such process: 4194304; $zombie; nothing to watch" "$RC $ERR"
run_affix watch --json -c 1 -i 0.1 "$CHILD" "$PARENT"
check "a zombie among others: a warning" "0 affix: warning: $zombie; watching the others" "$RC $ERR"
check "a zombie among others: the others watched" "$PARENT" \
  "$(head -n 1 <<<"$OUT" | jq -r '[.processes[].pid] | join(" ")')"

start leader zombie_helper leader
read -r _ LPID WORKER < "$tmp/leader.out"
check "the main thread is a zombie, the worker runs" "Z R" \
  "$(awk '{print $3}' "/proc/$LPID/task/$LPID/stat") $(awk '{print ($3 == "R" || $3 == "S") ? "R" : $3}' "/proc/$LPID/task/$WORKER/stat")"
run_affix watch --json -c 2 -i 0.3 "$LPID"
check "zombie leader: exit 0" "0 " "$RC $ERR"
last=$(sed -n 2p <<<"$OUT")
check "zombie leader: its live thread watched, not the zombie" "1 $WORKER" \
  "$(jq -r '.processes[0] | "\(.threads) \([.thread_list[].tid] | join(" "))"' <<<"$last")"
check "zombie leader: the worker's CPU time counted" "yes" \
  "$(jq -r 'if .processes[0].cpu_ms > 0 then "yes" else "no: \(.processes[0].cpu_ms)" end' <<<"$last")"
# The worker touches 32 MiB of its own: 8192 pages of 4 KiB.
anon=$(jq '[(.processes[0].anon_pages // {})[]] | add // 0' <<<"$last")
check "zombie leader: its memory read from a live thread" "yes" "$( ((anon >= 8000)) && echo yes || echo "no: $anon pages")"
run_affix watch -c 1 -i 0.3 "$LPID"
# The line under its row, or two where too wide for 80 columns.
check_match "zombie leader, text: its pages" "*1 thread, ran on *; anon 0:*" \
  "$(grep -m 1 -A 1 '^        1 thread' <<<"$OUT" | tr -s ' \n' ' ')"
finish
