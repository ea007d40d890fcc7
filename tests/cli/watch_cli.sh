#!/usr/bin/env bash
# affix watch: its command line and errors, text off a terminal (plain
# blocks, no escape sequences), names with escape bytes and \xff (text
# escaped and cut to their column, JSON valid UTF-8 and whole), the whole
# machine, --threads, Ctrl-C, write errors, the probe on one CPU.
. "$(dirname "$0")/watch_lib.bash"

run_affix watch 4194304
check "a PID that does not exist" "1 affix: error: no such process: 4194304" "$RC $ERR"
run_affix watch 4194304 4194303
check "no PID exists" "1 affix: error: no such process: 4194304, 4194303" "$RC $ERR"
run_affix watch -i 0 $$
check "interval 0" "2 affix: error: invalid interval '0': expected seconds from 0.1 to 3600" "$RC $ERR"
run_affix watch -i 3600.5 $$
check "interval too long" "2" "$RC"
run_affix watch -i 1e3 $$
check "interval not a decimal" "2 affix: error: invalid interval '1e3': expected seconds from 0.1 to 3600" "$RC $ERR"
run_affix watch -c 0 $$
check "count 0" "2 affix: error: invalid count '0': expected a number of intervals from 1 to 1000000000" "$RC $ERR"
run_affix watch x
check "a PID that is not a number" "2 affix: error: invalid PID 'x': expected a number from 1 to 4194304" "$RC $ERR"
run_affix watch --jsn
check "unknown option" "2 affix: error: unknown option '--jsn' for 'watch'|affix: hint: did you mean '--json'?" \
  "$RC $(tr '\n' '|' <<<"$ERR" | sed 's/|$//')"
run_affix watch --json=1 $$
check "a flag with a value" "2 affix: error: option '--json' takes no value" "$RC $(head -n 1 <<<"$ERR")"
run_affix watch --help
check_match "--help" "*-i,--interval SECONDS*-c,--count N*--threads*--json*" "$RC $OUT"

name=$'\e[31m\xffevil\n'
start_hopper 0 1 10 "$name"

run_affix watch -c 2 -i 0.1 4194304 "$HOP_PID"
check "a missing PID among others: a warning" "0 affix: warning: no such process: 4194304; watching the others" "$RC $ERR"
check "text: no escape sequence" "" "$(grep -c $'\e' <<<"$OUT" | grep -v '^0$')"
check "text: two blocks and the summary" "2 1" \
  "$(grep -c '^affix watch: 1 socket' <<<"$OUT" | tr '\n' ' ')$(grep -c '^summary of ' <<<"$OUT")"
check_match "text: the header says the interval" "affix watch: 1 socket, 1 node, 2 CPUs; every 0.1 s; at * s" \
  "$(head -n 1 <<<"$OUT")"
check "text: the header says the mode" "exact: the kernel's cpu-migrations event of every thread" "$(sed -n 2p <<<"$OUT")"
check "text: every line in 80 columns" "" "$(awk 'length > 80' <<<"$OUT")"
# Escaped, the name takes 16 columns: cut to its 15, the columns kept.
title=$(grep -m 1 '^    PID COMM' <<<"$OUT")
row=$(grep -m 1 "^ *$HOP_PID " <<<"$OUT")
check "text: the name escaped, cut to its column" "$(printf '%7s' "$HOP_PID") \\e[31m\\xffevil+|${#title}" \
  "${row:0:23}|${#row}"
row=$(sed '1,/^summary of/d' <<<"$OUT" | grep -m 1 "^ *$HOP_PID ")  # as wide as an interval's rows
check "text: the summary's row in its columns" "$(printf '%7s' "$HOP_PID") \\e[31m\\xffevil+|${#title}" \
  "${row:0:23}|${#row}"

# On a terminal (script(1) gives it one): a screen cleared and redrawn at
# each interval, then the summary under the last one.
screen=$(script -qec "'$AFFIX' watch -c 2 -i 0.1 $HOP_PID" /dev/null | tr -d '\r')
check "terminal: each interval clears the screen" "2" "$(grep -c $'^\e\\[H\e\\[2Jaffix watch: ' <<<"$screen")"
check "terminal: then the summary" "1" "$(grep -c '^summary of ' <<<"$screen")"

# A thread's ID is not a process (watching it beside its process would
# replace the process's rings): exit 2, the same error as pin's.
run_affix watch -c 1 -i 0.1 "$HOP_PID" "$HOP_TID"
check "a TID: error and hint" "2 affix: error: $HOP_TID is a thread of process $HOP_PID|affix: hint: '$HOP_PID' shows the whole process" \
  "$RC $(tr '\n' '|' <<<"$ERR" | sed 's/|$//')"
check "a TID: nothing watched" "" "$OUT"
run_affix watch --json -c 1 -i 0.1 "$STEADY_TID"
check "a TID alone" "2 affix: error: $STEADY_TID is a thread of process $HOP_PID" "$RC $(head -n 1 <<<"$ERR")"

run_affix watch -c 1 -i 0.1 --threads "$HOP_PID"
check "--threads: a row per thread" "$HOP_PID $HOP_TID $STEADY_TID" \
  "$(sed '/^summary of/q' <<<"$OUT" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF == 14 {print $2}' | sort -n | tr '\n' ' ' | sed 's/ $//')"
title=$(grep -m 1 '^    PID     TID COMM' <<<"$OUT")
check "--threads: every row in its columns" "${#title}" \
  "$(sed '/^summary of/q' <<<"$OUT" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {print length}' | sort -u)"

run_affix watch --json -c 2 -i 0.1 "$HOP_PID"
check "JSON: valid UTF-8" "0" "$(iconv -f UTF-8 -t UTF-8 "$tmp/out" > /dev/null 2>&1; echo $?)"
check "JSON: three lines, each a JSON object" "3" "$(jq -c 'objects' <<<"$OUT" | wc -l)"
check "JSON: the name, its bad byte replaced" "$(printf '\e[31m\xef\xbf\xbdevil\n')" \
  "$(head -n 1 <<<"$OUT" | jq -j '.processes[0].comm')"
check "JSON: the documented fields" \
  "anon_pages came_and_went_cpu_ms comm cpu_ms cpus_ran exact exited file_pages memory_pages migrations pid ran_on_nodes remote_pages remote_share switches thread_list threads threads_unread wait_ms wait_partial weighted" \
  "$(head -n 1 <<<"$OUT" | jq -r '.processes[0] | keys | join(" ")')"
check "JSON: a thread's fields" "comm cpu cpu_ms exact exited migrations switches tid wait_ms wait_partial" \
  "$(head -n 1 <<<"$OUT" | jq -r '.processes[0].thread_list[0] | keys | join(" ")')"
check "JSON: levels" "core llc node smt socket total" \
  "$(head -n 1 <<<"$OUT" | jq -r '.processes[0].migrations | keys | join(" ")')"
check "JSON: interval fields" "true 0.1 3" \
  "$(head -n 1 <<<"$OUT" | jq -r '"\(.exact) \(.interval * 10 | round / 10) \(.processes[0].threads)"')"
check "JSON: the summary" "1 $HOP_PID" "$(tail -n 1 <<<"$OUT" | jq -r '"\(.summary.processes | length) \(.summary.processes[0].pid)"')"

# The whole machine: the hopper's steady thread runs every 5 ms, so its
# process is listed; affix itself too.
run_affix watch --json -c 1 -i 0.3
check "machine: exit status" "0" "$RC"
check "machine: the hopper is listed" "1" "$(head -n 1 <<<"$OUT" | jq "[.processes[] | select(.pid == $HOP_PID)] | length")"
check "machine: no thread list without --threads" "null" \
  "$(head -n 1 <<<"$OUT" | jq -c ".processes[] | select(.pid == $HOP_PID) | .thread_list")"
# Kernel threads' names (kworker/15:0H-events_highpri) are longer than the
# column: cut in text, the rows keep their columns.
run_affix watch -c 1 -i 0.3
title=$(grep -m 1 '^    PID COMM' <<<"$OUT")
check "machine text: every row in its columns" "${#title}" \
  "$(sed '/^summary of/q' <<<"$OUT" | awk 'substr($0, 1, 8) != "        " && /^ *[0-9]+ / && !/^[0-9]+ process(es)?, / {print length}' |
     sort -u)"

# Ctrl-C ends the watch with the summary, exit 0.
rm -f "$tmp/int.out"
"$AFFIX" watch -i 0.1 "$HOP_PID" > "$tmp/int.out" 2>&1 &
watcher=$!
wait_file "$tmp/int.out"
kill -INT "$watcher"
wait "$watcher"
check "SIGINT: exit 0" "0" "$?"
check "SIGINT: the summary" "1" "$(grep -c '^summary of ' "$tmp/int.out")"

# A reader that goes away, SIGPIPE ignored (systemd's IgnoreSIGPIPE=yes):
# the next write fails and ends the watch at once (else it would run its
# 100 intervals and exit 0).
(trap '' PIPE; "$AFFIX" watch --json -c 100 -i 0.1 "$HOP_PID" 2> "$tmp/pipe.err" | head -n 1 > /dev/null
 echo "${PIPESTATUS[0]}" > "$tmp/pipe.rc")
check "SIGPIPE ignored, the reader gone: exit 1 and why" \
  "1 affix: error: cannot write to standard output: Broken pipe" "$(cat "$tmp/pipe.rc") $(cat "$tmp/pipe.err")"
# The same with SIGPIPE at its default, as in a terminal's shell (env sets
# it so: a shell cannot undo a SIGPIPE ignored when it started): not killed
# by the signal (141, no word), but the same error, for text and JSON.
for format in --json --threads; do
  (env --default-signal=PIPE "$AFFIX" watch $format -c 100 -i 0.1 "$HOP_PID" 2> "$tmp/pipe.err" | head -n 1 > /dev/null
   echo "${PIPESTATUS[0]}" > "$tmp/pipe.rc")
  check "SIGPIPE at its default ($format), the reader gone: exit 1 and why" \
    "1 affix: error: cannot write to standard output: Broken pipe" "$(cat "$tmp/pipe.rc") $(cat "$tmp/pipe.err")"
done
"$AFFIX" watch -c 1 -i 0.1 "$HOP_PID" > /dev/full 2> "$tmp/full.err"
check "a full disk: exit 1 and why" "1 affix: error: cannot write to standard output: No space left on device" \
  "$? $(cat "$tmp/full.err")"
"$AFFIX" watch --json -c 1 -i 0.1 "$HOP_PID" > /dev/full 2> "$tmp/full.err"
check "a full disk, JSON: exit 1 and why" "1 affix: error: cannot write to standard output: No space left on device" \
  "$? $(cat "$tmp/full.err")"

# On one CPU (taskset -c 0) no move can be made: the probe still opens the
# event, and the header says exact only where it could.
sampled_as_nobody="sampled: moves from se.nr_migrations, levels estimated from the CPUs seen;
perf_event_open: Permission denied (kernel.perf_event_paranoid = $(cat /proc/sys/kernel/perf_event_paranoid)); for exact
counts run as root, with CAP_PERFMON, or with kernel.perf_event_paranoid <= 1"
if [[ $(id -u) == 0 && $(cat /proc/sys/kernel/perf_event_paranoid) -ge 2 ]]; then
  anyone=$(anyone_affix)
  OUT=$(setpriv --reuid=nobody --regid=nogroup --clear-groups taskset -c 0 "$anyone" watch -c 1 -i 0.1 "$HOP_PID")
  check "one CPU, unprivileged: the header says sampled and why" "$sampled_as_nobody" \
    "$(sed -n '2,/^1 process/p' <<<"$OUT" | head -n -1)"
  check "one CPU, unprivileged: no 'not exact' line" "0" "$(grep -c '^not exact' <<<"$OUT")"
  OUT=$(setpriv --reuid=nobody --regid=nogroup --clear-groups taskset -c 0 "$anyone" watch --json -c 1 -i 0.1 "$HOP_PID")
  check "one CPU, unprivileged: JSON not exact" "false false" "$(head -n 1 <<<"$OUT" | jq -r '"\(.exact) \(.processes[0].exact)"')"
  [[ $anyone == "$AFFIX" ]] || rm -rf "$(dirname "$anyone")"
fi
if [[ $(id -u) == 0 ]]; then
  OUT=$(taskset -c 0 "$AFFIX" watch -c 1 -i 0.1 "$HOP_PID")
  check "one CPU, root: the header says exact" "exact: the kernel's cpu-migrations event of every thread|0" \
    "$(sed -n 2p <<<"$OUT")|$(grep -c '^not exact' <<<"$OUT")"
  OUT=$(taskset -c 0 "$AFFIX" watch --json -c 1 -i 0.1 "$HOP_PID")
  check "one CPU, root: JSON exact" "true true" "$(head -n 1 <<<"$OUT" | jq -r '"\(.exact) \(.processes[0].exact)"')"
fi
finish
