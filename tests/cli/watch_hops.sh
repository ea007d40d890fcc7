#!/usr/bin/env bash
# affix watch counts a thread's moves between CPUs 0 and 1 and the level
# that separates them (on this machine: another core): exactly as root
# (perf events; +-2), sampled where perf_event_open is refused (a seccomp
# filter answering EACCES, and an unprivileged user at
# perf_event_paranoid >= 2; +-10%). Another thread of the process, which
# runs but never moves, reports 0.
. "$(dirname "$0")/watch_lib.bash"
moves=301
level=$("$AFFIX" topo --json | jq -r '.cpus[0] as $a | .cpus[1] as $b |
  if $a.socket != $b.socket then "socket" elif $a.node != $b.node then "node"
  elif $a.llc != $b.llc then "llc" elif $a.core != $b.core then "core" else "smt" end')

check_hops() {  # MODE EXACT LOW HIGH
  check "$1: exit status" 0 "$RC"
  check "$1: nothing on stderr" "" "$ERR"
  check "$1: every line is JSON" "$(wc -l <<<"$OUT")" "$(jq -c . <<<"$OUT" | wc -l)"
  check "$1: exact" "$2" "$(jq -r .exact <<<"$SUMMARY")"
  local total
  total=$(thread_field "$HOP_TID" .migrations.total)
  if ((total >= $3 && total <= $4)); then echo "ok: $1: $total moves counted ($3-$4)"
  else echo "FAIL: $1: $total moves counted, expected $3-$4"; fail=1; fi
  check "$1: all at the $level level" "$total" "$(thread_field "$HOP_TID" ".migrations.$level")"
  check "$1: the steady thread ran and never moved" "0 true" \
    "$(thread_field "$STEADY_TID" '"\(.migrations.total) \(.switches.voluntary > 0)"')"
  check "$1: the main thread never moved" "0" "$(thread_field "$HOP_PID" .migrations.total)"
  check "$1: the process's CPUs" "0-1" "$(jq -r '.processes[0].cpus_ran' <<<"$SUMMARY")"
  check "$1: every interval says the mode" "$2" "$(head -n -1 <<<"$OUT" | jq -r .exact | sort -u)"
}

if [[ $(id -u) == 0 ]]; then
  start_hopper 0 1 $moves
  watch_hops
  check_hops "root" true $((moves - 2)) $((moves + 2))
  check "root: the interval lines add up to the summary" "$moves" \
    "$(head -n -1 <<<"$OUT" | jq -s "[.[].processes[0].thread_list[] | select(.tid == $HOP_TID) | .migrations.total] | add")"
  stop "$HOP_PID"
fi

start_hopper 0 1 $moves
watch_hops "$HELPERS/seccomp_run" perf_event_open EACCES
check_hops "perf_event_open refused by seccomp" false $((moves * 9 / 10)) $((moves * 11 / 10))
stop "$HOP_PID"

if [[ $(id -u) == 0 && $(cat /proc/sys/kernel/perf_event_paranoid) -ge 2 ]]; then
  start_hopper 0 1 $moves
  anyone=$(anyone_affix)
  AFFIX=$anyone watch_hops setpriv --reuid=nobody --regid=nogroup --clear-groups
  [[ $anyone == "$AFFIX" ]] || rm -rf "$(dirname "$anyone")"
  check_hops "unprivileged user" false $((moves * 9 / 10)) $((moves * 11 / 10))
  check "unprivileged user: numa_maps of root's process unreadable" "null" \
    "$(jq -c .processes[0].memory_pages <<<"$SUMMARY")"
  stop "$HOP_PID"
fi
finish
