#!/usr/bin/env bash
# pin's usage and resolution errors (exit 2), --mem without --migrate, and
# --migrate on this one-node machine (the report, and the no-op path).
. "$(dirname "$0")/pin_lib.bash"

start target threads_helper 3

run_affix pin --mem bind 0 $PID
check "--mem without --migrate: status" 2 "$RC"
check "--mem without --migrate: message" \
"affix: error: Linux cannot change another process's memory policy: a thread sets its own, for itself only
affix: hint: --migrate moves the pages it has to the nodes of --mem (pinning the CPUs already makes its new local allocations land there)" "$ERR"
run_affix pin --migrate --tid 0 $PID
check "--migrate --tid" "2 affix: error: --migrate moves a process's pages, which its threads share; it does not go with --tid" "$RC $ERR"
run_affix pin 0 abc
check "bad PID" "2 affix: error: invalid PID 'abc': expected a number from 1 to 4194304" "$RC $ERR"
run_affix pin --tid 0 0
check "bad TID" "2 affix: error: invalid thread ID '0': expected a number from 1 to 4194304" "$RC $ERR"
run_affix pin cpu:9 $PID
check "CPU that does not exist: status" 2 "$RC"
run_affix pin 'socket:' $PID
check "bad spec: status" 2 "$RC"
run_affix pin 0
check "no PID: status" 2 "$RC"
check "nothing moved by any of these" "3 0-1" "$(thread_lists $PID)"

before=$(awk '{for (i = 1; i <= NF; i++) if ($i ~ /^N0=/) s += substr($i, 4)} END {print s}' /proc/$PID/numa_maps)
run_affix pin --migrate 1 $PID
check "--migrate: status" 0 "$RC"
check "--migrate: report" \
"$PID: 3 threads on CPUs 1 (3 moved)
$PID: moved 0 pages (every node is a target: nothing to move)
  pages per node before: 0:$before
  pages per node after:  0:$before" "$OUT"
check "--migrate: threads moved" "3 1" "$(thread_lists $PID)"
run_affix pin --migrate --mem bind:0 0-1 $PID
check "--migrate --mem bind:0" "0 $PID: moved 0 pages (every node is a target: nothing to move)" \
  "$RC $(echo "$OUT" | sed -n 2p)"
run_affix pin --migrate --mem bind:1 0-1 $PID
check "--migrate to a node that does not exist: status" 2 "$RC"

# A PID that is a thread other than the main one: exit 2, the man page's
# words, nothing moved (affix once moved the whole process, labelled with
# the TID).
tids=($(ls /proc/$PID/task | sort -n))
run_affix pin 1 ${tids[1]}
check "a TID without --tid: status" 2 "$RC"
check "a TID without --tid: message" "affix: error: ${tids[1]} is a thread of process $PID
affix: hint: '--tid ${tids[1]}' moves only that thread; '$PID' moves the whole process" "$ERR"
check "a TID without --tid: nothing moved" "3 0-1" "$(thread_lists $PID)"

# --dry-run: each thread's list and the one it would get; nothing changes.
run_affix pin --dry-run 0 $PID
check "dry run: status" 0 "$RC"
check "dry run: report" "$PID: 3 threads on CPUs 0 (3 would move)
  thread ${tids[0]} (threads_helper): 0-1 -> 0
  thread ${tids[1]} (threads_helper): 0-1 -> 0
  thread ${tids[2]} (threads_helper): 0-1 -> 0" "$OUT"
check "dry run: nothing moved" "3 0-1" "$(thread_lists $PID)"
run_affix pin --dry-run --migrate 0 $PID
check "dry run --migrate: status" 0 "$RC"
check_match "dry run --migrate: the pages that would move" "*$PID: would move 0 pages to node 0
  pages per node now: 0:*
  pages that would leave each node: none" "$OUT"

run_affix pin --help
check_match "pin --help" "Usage: affix pin*" "$OUT"
finish
