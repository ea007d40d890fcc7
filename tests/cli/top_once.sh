#!/usr/bin/env bash
# affix top --once: its command line and errors (exact texts, exit 2), and
# on this machine a spinner pinned to CPU 1: CPU 1 busy >= 80% with the
# spinner's TID among the threads listed under it, its process in the table
# with CPU 1 its only allowed CPU (pinned); text off a terminal escapes names.
# Both sources of --once on the same spinner over the same interval: the
# scheduler's events (where this machine gives them: root, or
# perf_event_paranoid <= 0) and --no-events (every thread read); a
# spinner moved between CPUs 0 and 1 counts moves in both.
. "$(dirname "$0")/pin_lib.bash"

usage="affix: hint: usage: affix top [--once [--json]] [-i SECONDS] [-n N] [WHERE] [--pid PID... | --tree PID | --name REGEX]; see 'affix top --help'"
errs() { tr '\n' '|' <<<"$ERR" | sed 's/|$//'; }

run_affix top --once -i 0
check "interval 0" "2 affix: error: invalid interval '0': expected seconds from 0.1 to 3600" "$RC $ERR"
run_affix top --once -i 1e3
check "interval not a decimal" "2 affix: error: invalid interval '1e3': expected seconds from 0.1 to 3600" "$RC $ERR"
run_affix top -n 0
check "frames 0" "2 affix: error: invalid frame count '0': expected a number of frames from 1 to 1000000000" "$RC $ERR"
run_affix top --once -n 2
check "-n with --once" "2 affix: error: -n and --once cannot be used together|$usage" "$RC $(errs)"
run_affix top --json
check "--json without --once" "2 affix: error: --json goes with --once|$usage" "$RC $(errs)"
run_affix top --once --pid 1 --name x
check "two filters" "2 affix: error: --pid, --tree and --name cannot be used together|$usage" "$RC $(errs)"
run_affix top --once --pid x
check "a PID that is not a number" "2 affix: error: invalid PID 'x': expected a number from 1 to 4194304" "$RC $ERR"
run_affix top --once --tree 0
check "--tree 0" "2 affix: error: invalid PID '0': expected a number from 1 to 4194304" "$RC $ERR"
run_affix top --once --name '('
check_match "--name not a regular expression" "2 affix: error: invalid --name '(': not a regular expression (*)" "$RC $ERR"
run_affix top --once --pid 4194304
check "a PID that does not exist" "1 affix: error: no such process: 4194304" "$RC $ERR"
run_affix top --once --tree 4194304
check "a tree that does not exist" "1 affix: error: no such process: 4194304" "$RC $ERR"
run_affix top --no-events
check "--no-events without --once" "2 affix: error: --no-events goes with --once|$usage" "$RC $(errs)"
run_affix top --once 0 1
check "two locations" "2 affix: error: unexpected argument '1' after the location '0'|$usage" "$RC $(errs)"
run_affix top --once node:9
check_match "a location that does not exist" "2 affix: error: *node*9*" "$RC $ERR"
run_affix top --onec
check "unknown option" "2 affix: error: unknown option '--onec' for 'top'|affix: hint: did you mean '--once'?" "$RC $(errs)"
run_affix top --help
check_match "--help" "0 *--once*--json*-i,--interval SECONDS*-n,--frames N*--pid PID*--tree PID*--name REGEX*" "$RC $OUT"

# A spinner pinned to CPU 1, with a name to escape (comm is the name exec'd:
# a link to bash).
name=$'spin\e[31m'
ln -s "$(command -v bash)" "$tmp/$name"
"$AFFIX" 1 -- "$tmp/$name" -c 'while :; do :; done' &
spin=$!
started+=("$spin")
sleep 0.5
run_affix top --once --json -i 1
check "--once --json: exit 0, nothing on stderr" "0 " "$RC $ERR"
check "CPU 1 busy >= 80%" "true" "$(jq '.cpus[] | select(.cpu == 1) | .busy >= 80' <<<"$OUT")"
check "CPU 1 has node, core, irqs_per_s, marks" "0 1 true []" \
  "$(jq -r '.cpus[] | select(.cpu == 1) | "\(.node) \(.core) \(.irqs_per_s > 0) \(.marks | tojson)"' <<<"$OUT")"
check "the spinner's TID under CPU 1" "$spin" \
  "$(jq -r ".cpus[] | select(.cpu == 1) | .threads[] | select(.tid == $spin) | .pid" <<<"$OUT")"
check "its share of CPU 1 > 0, its comm as the kernel has it" "true spin\u001b[31m" \
  "$(jq -r ".cpus[] | select(.cpu == 1) | .threads[] | select(.tid == $spin) | \"\\(.percent > 0) \\(.comm | @json | .[1:-1])\"" <<<"$OUT")"
check "not under CPU 0" "" "$(jq -r ".cpus[] | select(.cpu == 0) | .threads[] | select(.tid == $spin) | .tid" <<<"$OUT")"
check "its process: allowed 1, pinned, 1 thread, no migration" "1 true 1 0" \
  "$(jq -r ".processes[] | select(.pid == $spin) | \"\(.allowed) \(.pinned) \(.threads) \([.migrations_per_s[]] | add)\"" <<<"$OUT")"
check "its pages on node 0, none remote" "true 0" \
  "$(jq -r ".processes[] | select(.pid == $spin) | \"\(.pages[\"0\"] > 0) \(.remote_share)\"" <<<"$OUT")"
check "migrations_per_s by level" '["core","llc","node","smt","socket"]' \
  "$(jq -c ".processes[] | select(.pid == $spin) | .migrations_per_s | keys" <<<"$OUT")"

# The two sources at once, over the same 2 s: the spinner's share agrees.
if [[ $(id -u) == 0 ]] || (($(cat /proc/sys/kernel/perf_event_paranoid) <= 0)); then source=events; else source=proc; fi
"$AFFIX" top --once --json -i 2 >"$tmp/events.json" 2>"$tmp/events.err" &
events_pid=$!
run_affix top --once --json -i 2 --no-events
wait "$events_pid"
check "events: exit 0, nothing on stderr; its source, no warning; --no-events': proc" "0  $source [] proc" \
  "$? $(cat "$tmp/events.err") $(jq -r .source "$tmp/events.json") $(jq -c .warnings "$tmp/events.json") $(jq -r .source <<<"$OUT")"
share() { jq -r ".cpus[] | select(.cpu == 1) | .threads[] | select(.tid == $spin) | .percent" "$@"; }
ev=$(share "$tmp/events.json")
pr=$(share <<<"$OUT")
check "both: the spinner's TID under CPU 1 with a share" "true true" \
  "$(jq -n "$ev > 0") $(jq -n "$pr > 0")"
check "both: its share within 10 points of the other's ($ev, $pr)" "true" \
  "$(jq -n "($ev - $pr) | fabs < 10")"
same() { jq -c ".processes[] | select(.pid == $spin) | [.comm, .threads, .allowed, .pinned, .ran_on_nodes, (.pages[\"0\"] > 0), .remote_share, ([.migrations_per_s[]] | add)]" "$@"; }
check "both: its process row (comm, threads, allowed, pinned, nodes, pages, remote, no move)" \
  "$(same <<<"$OUT")" "$(same "$tmp/events.json")"
check "…which is" '["spin\u001b[31m",1,"1",true,"0",true,0,0]' "$(same "$tmp/events.json")"
# A spinner moved between CPUs 0 and 1 every 50 ms: moves in both sources.
"$AFFIX" 0 -- "$tmp/$name" -c 'while :; do :; done' &
mover=$!
started+=("$mover")
(for _ in $(seq 60); do taskset -pc 1 "$mover" >/dev/null; sleep 0.05; taskset -pc 0 "$mover" >/dev/null; sleep 0.05; done) &
flipper=$!
started+=("$flipper")
for how in "" --no-events; do
  expected=$source
  [[ -n $how ]] && expected=proc
  run_affix top --once --json -i 1 --pid "$mover" $how
  check "moved ${how:-(events)}: source, no warning, moves > 0, ran on node 0" "0 $expected [] true 0" \
    "$RC $(jq -c -r ".source, .warnings, (.processes[] | select(.pid == $mover) | ([.migrations_per_s[]] | add > 0), .ran_on_nodes)" <<<"$OUT" | paste -sd' ')"
done
kill "$flipper" "$mover" 2>/dev/null
wait "$flipper" "$mover" 2>/dev/null

# WHERE: CPU 1 only; --pid: the spinner only.
run_affix top --once --json -i 0.5 1 --pid "$spin"
check "WHERE 1 --pid: one CPU row, one process" "1|$spin" \
  "$(jq -r '[.cpus[].cpu] | join(",")' <<<"$OUT")|$(jq -r '[.processes[].pid] | join(",")' <<<"$OUT")"
# --pid PID...: the words after its value that are PIDs; WHERE before it.
sleep 60 &
idle=$!
started+=("$idle")
run_affix top --once --json -i 0.2 --pid "$spin" "$idle"
check "--pid as two words: both processes (the idle one though it did not run)" "0 $(printf '%s\n' "$spin" "$idle" | sort -n | paste -sd,)" \
  "$RC $(jq -r '[.processes[].pid] | sort | join(",")' <<<"$OUT")"
run_affix top --once --json -i 0.2 1 --pid "$idle,$spin"
check "WHERE, then --pid with commas: of the two, the one that ran on CPU 1" "0 1|$spin" \
  "$RC $(jq -r '[.cpus[].cpu] | join(",")' <<<"$OUT")|$(jq -r '[.processes[].pid] | sort | join(",")' <<<"$OUT")"
run_affix top --once -i 0.2 --pid "$idle" node:0
check "a word that is no PID ends the list: it is WHERE" "0" "$RC"
run_affix top --once -i 0.2 1 --pid "$idle" node:0
check "…and a second WHERE after it is refused" "2 affix: error: unexpected argument 'node:0' after the location '1'|$usage" "$RC $(errs)"
# --name: the spinner's name is matched unescaped
run_affix top --once --json -i 0.5 --name '^spin.\[31m$'
check "--name" "$spin" "$(jq -r '[.processes[].pid] | join(",")' <<<"$OUT")"

# Text: the name escaped, no escape byte out.
run_affix top --once -i 0.5 --pid "$spin"
check "text: no escape byte" "0" "$(grep -c $'\e' <<<"$OUT")"
check_match "text: the spinner's row, escaped, pinned" "*$spin*1 pinned*spin\\\\e\\[31m" "$(grep "^ *$spin " <<<"$OUT")"
# Off a terminal without --once: -n N frames of the same text.
run_affix top -n 2 -i 0.2 --pid "$spin"
check "batch: two frames" "0 2" "$RC $(grep -c '^interval ' <<<"$OUT")"
finish
