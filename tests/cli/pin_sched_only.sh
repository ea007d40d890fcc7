#!/usr/bin/env bash
# `affix pin --policy batch PID`, as chrt -p users type it (issue 33, item
# 11): a scheduling option alone with one ID and no WHERE changes the
# scheduling only; every thread keeps its CPU list. On a sleep the test
# starts (its policy read back from /proc/PID/sched and chrt -p), narrowed
# to one CPU first so that a CPU change would show. Where words remain
# ambiguous, the error says what was read as what.
. "$(dirname "$0")/pin_lib.bash"

sleep 300 &
PID=$!; started+=("$PID")
taskset -pc 1 $PID > /dev/null
cpus_before=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/$PID/status)
check "the sleep is on CPU 1 before" 1 "$cpus_before"

# --- --policy batch PID -----------------------------------------------------
run_affix pin --dry-run --policy batch $PID
check "--dry-run --policy batch PID: exit 0, its line" "0 $PID: 1 thread on the CPUs each had, policy batch (1 would change)" \
  "$RC $(head -1 <<< "$OUT")"
check_match "--dry-run: the thread keeps CPU 1" "  thread $PID (sleep): 1 -> 1, other* -> batch*" "$(sed -n 2p <<< "$OUT")"
run_affix pin --check --policy batch $PID
check "--check before: exit 1, the policy named, no CPUs asked" "1 $PID: 1 thread, 1 not with policy batch
  $PID (sleep): policy other (asked: policy batch)" "$RC $OUT"
run_affix pin --policy batch $PID
check "pin --policy batch PID: exit 0, its line" "0 $PID: 1 thread on the CPUs each had, policy batch (1 changed)" "$RC $OUT"
check "pin --policy batch PID: nothing on stderr" "" "$ERR"
check "its policy is SCHED_BATCH (3) in /proc/PID/sched" 3 "$(awk '$1 == "policy" {print $3}' /proc/$PID/sched)"
check "chrt -p says SCHED_BATCH" "SCHED_BATCH" "$(chrt -p $PID | sed -n 's/.*scheduling policy: //p')"
check "its Cpus_allowed_list is unchanged" "$cpus_before" "$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/$PID/status)"
run_affix pin --check --policy batch $PID
check "--check after: exit 0" "0 $PID: 1 thread, with policy batch" "$RC $OUT"
run_affix pin --check --json --policy batch $PID
check "--check --json: ok, no CPUs asked" "true null" "$(jq -r '[.ok, .targets[0].cpus] | map(tostring) | join(" ")' <<< "$OUT")"

# --nice alone, options after the ID, --tid.
run_affix pin $PID --nice 5
check "pin PID --nice 5: exit 0" 0 "$RC"
check "nice 5 (prio 125), still batch" "3 125" "$(awk '$1 == "policy" {p = $3} $1 == "prio" {q = $3} END {print p, q}' /proc/$PID/sched)"
run_affix pin --tid --policy other $PID
check "pin --tid --policy other TID: exit 0" 0 "$RC"
check "back to SCHED_OTHER" "SCHED_OTHER" "$(chrt -p $PID | sed -n 's/.*scheduling policy: //p')"
check "the CPUs still unchanged" "$cpus_before" "$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/$PID/status)"

# --- What remains an error says what was read as what -----------------------
run_affix pin $PID
check "pin PID: exit 2, PID read as WHERE" "2 affix: error: no process ID given: '$PID' was read as WHERE
affix: hint: WHERE comes first, then the IDs: 'affix pin all $PID' (all: every CPU it may use); a scheduling option alone changes only that: 'affix pin --policy batch $PID'" \
  "$RC $ERR"
run_affix pin --count 1 --policy batch $PID
check "a selection option with one word: exit 2, PID read as WHERE" "2 affix: error: no process ID given: '$PID' was read as WHERE
affix: hint: WHERE comes first, then the IDs: 'affix pin all $PID' (all: every CPU it may use); without WHERE only a scheduling option goes (not one that shapes the selection)" \
  "$RC $ERR"
run_affix pin --policy batch 4000 $PID
check "two numbers: the first is WHERE, and the error says so" "2 affix: error: no cpu 4000 on this machine (cpus: 0-1)
affix: hint: '4000' was read as WHERE (CPU 4000) and '$PID' as the process IDs; without WHERE a scheduling option takes one ID (an 'affix pin' for each process)" \
  "$RC $ERR"
check "nothing changed by the errors" "SCHED_OTHER $cpus_before" \
  "$(chrt -p $PID | sed -n 's/.*scheduling policy: //p') $(awk '/^Cpus_allowed_list:/ {print $2}' /proc/$PID/status)"
stop $PID
finish
