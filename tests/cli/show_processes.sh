#!/usr/bin/env bash
# affix show: affix itself by default; several PIDs, one that does not exist
# (an error for it, exit 1, the others still shown); --pinned lists a
# helper with a pinned thread and not an unpinned one.
. "$(dirname "$0")/pin_lib.bash"

run_affix show
check "show: status" 0 "$RC"
check_match "show: affix itself" "[0-9]* affix  cpus 0-1  cpuset nodes 0  mem policy default  anon 0:*; file 0:*" "$(echo "$OUT" | head -1)"
check "show: header" "  CPUS  THREADS  TIDS  LAST CPUS  NODES  POLICY  COMM" "$(echo "$OUT" | sed -n 3p | sed 's/   */  /g')"
run_affix show --json
check "show --json: affix itself" "affix 1" "$(echo "$OUT" | jq -r '.[0] | "\(.comm) \(.threads | length)"')"

start pinned threads_helper 4
pinned=$PID
start free threads_helper 2
free=$PID
tids=($(ls /proc/$pinned/task | sort -n))
"$AFFIX" pin --tid 1 ${tids[2]} > /dev/null

run_affix show $pinned 4194304 $free
check "show with a missing PID: status" 1 "$RC"
check "show with a missing PID: error" "affix: error: no such process: 4194304" "$ERR"
check "show with a missing PID: the others shown" "$pinned threads_helper $free threads_helper" \
  "$(echo "$OUT" | grep -v '^ ' | awk '{print $1, $2}' | tr '\n' ' ' | sed 's/ $//')"
check "show: groups by list" "0-1 3|1 1 ${tids[2]}|" \
  "$(echo "$OUT" | sed -n 4,5p | awk '{printf "%s %s%s|", $1, $2, ($1 == "1" ? " " $3 : "")}')"
run_affix show --json 4194304 $free
check "show --json with a missing PID" "1 [$free]" "$RC $(echo "$OUT" | jq -c '[.[].pid]')"

# A thread's ID is not a process: exit 2, the same error as pin's, nothing
# shown (/proc/TID exists for every thread; it is not listed).
run_affix show ${tids[1]}
check "show a TID: error and hint" "2 affix: error: ${tids[1]} is a thread of process $pinned|affix: hint: '$pinned' shows the whole process" \
  "$RC $(tr '\n' '|' <<<"$ERR" | sed 's/|$//')"
check "show a TID: nothing shown" "" "$OUT"
run_affix show --json $free ${tids[1]}
check "show --json with a TID among PIDs" "2 affix: error: ${tids[1]} is a thread of process $pinned|" \
  "$RC $(head -n 1 <<<"$ERR")|$OUT"

run_affix show --pinned
check "show --pinned: status" 0 "$RC"
check "show --pinned: lists the pinned helper" "$pinned threads_helper 0-1 1: ${tids[2]}" \
  "$(echo "$OUT" | awk -v p=$pinned '$1 == p {print $1, $2, $3, $4, $5}')"
check "show --pinned: not the free one" "" "$(echo "$OUT" | awk -v p=$free '$1 == p')"
run_affix show --pinned --json
check "show --pinned --json" "1 0-1" \
  "$(echo "$OUT" | jq -r ".[] | select(.pid == $pinned) | \"\([.threads[] | select(.cpus == \"1\")] | length) \(.allowed)\"")"
check "show --pinned --json: not the free one" "" "$(echo "$OUT" | jq ".[] | select(.pid == $free) | .pid")"

run_affix show --pinned $pinned
check "show --pinned with a PID" "2 affix: error: --pinned scans every process; it takes no PID" "$RC $ERR"
run_affix show x
check "show bad PID" "2 affix: error: invalid PID 'x': expected a number from 1 to 4194304" "$RC $ERR"
finish
