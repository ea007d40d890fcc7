#!/usr/bin/env bash
# `affix pin` on a process of 2000 threads: every thread moves, `show --json`
# reports every thread, -v prints each old and new list, --spread gives each
# thread its own CPU round-robin in TID order, --tid moves one thread only.
. "$(dirname "$0")/pin_lib.bash"

start big threads_helper 2000
check "2000 threads on 0-1 to start" "2000 0-1" "$(thread_lists $PID)"

run_affix pin 1 $PID
check "pin 1: status" 0 "$RC"
check "pin 1: output" "$PID: 2000 threads on CPUs 1 (2000 moved)" "$OUT"
check "pin 1: no message" "" "$ERR"
check "pin 1: every thread on 1" "2000 1" "$(thread_lists $PID)"

run_affix show --json $PID
check "show --json: status" 0 "$RC"
check "show --json: 2000 threads" 2000 "$(echo "$OUT" | jq '.[0].threads | length')"
check "show --json: every thread on 1" '["1"]' "$(echo "$OUT" | jq -c '[.[0].threads[].cpus] | unique')"
check "show --json: the TIDs of /proc" "$(ls /proc/$PID/task | sort -n | tr '\n' ' ')" \
  "$(echo "$OUT" | jq -r '.[0].threads[].tid' | tr '\n' ' ')"
check "show --json: pid, comm, cpus, mems" "$PID threads_helper 1 0" \
  "$(echo "$OUT" | jq -r '.[0] | "\(.pid) \(.comm) \(.cpus) \(.mems)"')"
check "show --json: last_cpu of every thread is CPU 0 or 1" true \
  "$(echo "$OUT" | jq '[.[0].threads[].last_cpu] | all(. == 0 or . == 1)')"
check "show --json: memory_pages on node 0" "true" "$(echo "$OUT" | jq '.[0].memory_pages["0"] > 0')"

run_affix show $PID
check_match "show text: one group of 2000" "  1     2000     $(ls /proc/$PID/task | sort -n | head -1)[,-]*  *  0  *  threads_helper" \
  "$(echo "$OUT" | sed -n 4p)"

run_affix pin -v 0-1 $PID
check "pin -v: status" 0 "$RC"
check "pin -v: one line per thread" 2001 "$(echo "$OUT" | wc -l)"
first_tid=$(ls /proc/$PID/task | sort -n | head -1)
check "pin -v: old and new list, and the name" "  thread $first_tid (threads_helper): 1 -> 0-1" "$(echo "$OUT" | sed -n 2p)"
check "pin -v: every thread back on 0-1" "2000 0-1" "$(thread_lists $PID)"

run_affix pin --spread 0-1 $PID
check "pin --spread: status" 0 "$RC"
expected=$(ls /proc/$PID/task | sort -n | awk '{print $1, (NR - 1) % 2}')
check "pin --spread: round-robin in TID order" "$expected" "$(tid_lists $PID)"

run_affix pin 0-1 $PID
tids=($(ls /proc/$PID/task | sort -n))
run_affix pin --tid 1 ${tids[5]}
check "pin --tid: status" 0 "$RC"
check "pin --tid: output" "${tids[5]}: 1 thread on CPUs 1 (1 moved)" "$OUT"
check "pin --tid: only that thread" "1999 0-1 1 1" "$(thread_lists $PID)"
check "pin --tid: the named one" "1" "$(sed -n 's/^Cpus_allowed_list:\t//p' /proc/$PID/task/${tids[5]}/status)"

# --spread is one round over all the named processes (affix(1), "Pin
# options"): the second continues where the first's threads ended, so that
# `pin --spread core:all W1 W2` gives each single-threaded worker its own CPU.
big=$PID
start three1 threads_helper 3
p1=$PID
start three2 threads_helper 3
p2=$PID
run_affix pin --spread 0-1 $p1 $p2
check "--spread over two PIDs: status" 0 "$RC"
check "--spread: the first process" "$(ls /proc/$p1/task | sort -n | awk '{print $1, (NR - 1) % 2}')" "$(tid_lists $p1)"
n1=$(ls /proc/$p1/task | wc -l)
check "--spread: the second continues the round" "$(ls /proc/$p2/task | sort -n | awk -v n1=$n1 '{print $1, (n1 + NR - 1) % 2}')" \
  "$(tid_lists $p2)"
run_affix pin --spread=2 0-1 $p1 $p2
check_match "--spread=2: the report" "$p1: 3 threads 2 per CPU from CPUs 0-1 (? moved)" "$(head -n 1 <<<"$OUT")"
check "--spread=2: two threads per CPU over both" "0 0 1 1 0 0" "$( (tid_lists $p1; tid_lists $p2) | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//')"
stop $p1
stop $p2
PID=$big

# A process's name is data: -v shows it escaped.
evil="$tmp/ev$(printf '\033')[31mil"
cp "$HELPERS/threads_helper" "$evil"
"$evil" 1 > "$tmp/evil.out" &
epid=$!
started+=("$epid")
for _ in $(seq 1 100); do grep -q ready "$tmp/evil.out" && break; sleep 0.05; done
run_affix pin -v 1 $epid
check "-v: a name with an escape sequence, escaped" "$epid: 1 thread on CPUs 1 (1 moved)
  thread $epid (ev\\e[31mil): 0-1 -> 1" "$OUT"

# Pinning what is already in place changes nothing and says so.
run_affix pin 0-1 $PID
run_affix pin 0-1 $PID
check "pin again: nothing moved" "$PID: 2000 threads on CPUs 0-1 (0 moved)" "$OUT"
finish
