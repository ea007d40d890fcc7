#!/usr/bin/env bash
# `affix pin --tree`: a process, its descendants and every thread of each.
# A tree that forks a short-lived child every 2 ms from two of its
# processes: 10 trials, each exit 0 and no descendant left off target (a
# process forked after the pin inherits the new list, so at any moment
# after it every process of the tree is on it). A shell pipeline. The
# report, -v, --dry-run; `pin` without --tree leaves the children alone.
. "$(dirname "$0")/pin_lib.bash"
# A fork still inside the kernel when its parent is moved keeps the old list
# in the root cpuset (affix(1), GUARANTEES, Limits); in a cpuset of its own
# the kernel gives it the parent's list again when the fork completes. The
# trials assert the whole guarantee, so the trees run in one (pin_churn.sh).
own_cpuset

# Every process whose parent chain leads to $1 (itself included).
# The stat files go through cat: a process that exits between the glob and
# the read is skipped there, where awk (mawk) would stop at it, printing
# nothing (tests in parallel start and end processes all the time).
descendants() {
  local root=$1
  cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$root" '
    { line = $0; sub(/.*\) /, "", line); split(line, f, " "); parent[$1] = f[2] }
    END { found[root] = 1; grew = 1
          while (grew) { grew = 0; for (p in parent) if (!(p in found) && (parent[p] in found)) { found[p] = 1; grew = 1 } }
          for (p in found) print p }' | sort -n
}
# "PID:LIST" for every thread of the tree not on $2.
off_target() {
  local root=$1 want=$2 p
  for p in $(descendants "$root"); do
    awk -v p="$p" -v want="$want" '/^Cpus_allowed_list:/ && $2 != want {print p ":" $2}' \
      /proc/$p/task/*/status 2>/dev/null
  done
}

start forks fork_helper 2
bad=0
for trial in $(seq 1 10); do
  target=$((trial % 2))
  run_affix pin --tree $target $PID
  if [[ $RC -ne 0 || -n "$ERR" ]]; then
    echo "FAIL: trial $trial: status $RC: $ERR"; fail=1; bad=$((bad + 1)); continue
  fi
  left=$(off_target $PID $target)
  if [[ -n "$left" ]]; then
    echo "FAIL: trial $trial: pinned to $target, left behind: $left"; fail=1; bad=$((bad + 1))
  fi
  check_match "trial $trial: report" "$PID: * processes, * threads on CPUs $target (* moved)" "$OUT"
done
check "10 trials of a tree forking every 2 ms: exit 0, no descendant off target" 0 "$bad"
stop $PID

# A shell pipeline: the shell and both commands.
sh -c 'sleep 1000 | cat' < /dev/null > /dev/null 2>&1 & sh_pid=$!
for _ in $(seq 1 100); do [[ $(descendants $sh_pid | wc -l) -ge 3 ]] && break; sleep 0.05; done
started+=($(descendants $sh_pid))  # all three are killed at the end
run_affix pin --tree 1 $sh_pid
check "pipeline: status and report" "0 $sh_pid: 3 processes, 3 threads on CPUs 1 (3 moved)" "$RC $OUT"
check "pipeline: every process on 1" "" "$(off_target $sh_pid 1)"
run_affix pin -v --tree 0-1 $sh_pid
check "pipeline -v: a line per process and per thread" 7 "$(echo "$OUT" | wc -l)"
check_match "pipeline -v: the process lines name them" "*  process * (sleep)*" "$OUT"
# Without --tree only the shell moves.
run_affix pin 1 $sh_pid
check "without --tree: only the shell" "1" "$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/$sh_pid/status)"
check "without --tree: its children stay" "" "$(off_target $sh_pid 0-1 | grep -v "^$sh_pid:")"

# --dry-run: per thread, what it has and what it would get; nothing changes.
run_affix pin --dry-run --tree 0 $sh_pid
check "dry run: status" 0 "$RC"
check_match "dry run: report" "$sh_pid: 3 processes, 3 threads on CPUs 0 (3 would move)*" "$OUT"
check "dry run: a line per thread" 3 "$(echo "$OUT" | grep -c '^    thread .*: .* -> 0$')"
check "dry run: nothing moved" "" "$(off_target $sh_pid 0-1 | grep -v "^$sh_pid:1$")"

# --tree --spread: the shell (the root) keeps the whole selection; its
# children get one CPU each, in the order they started (sleep before cat:
# a pipeline's commands start left to right, but take their start times).
run_affix pin --tree --spread 0-1 $sh_pid
check "--tree --spread: status" 0 "$RC"
check_match "--tree --spread: the report says the root keeps them all" \
  "$sh_pid: * processes, * threads one CPU each from CPUs 0-1, $sh_pid's threads on all of them (? moved)" "$(head -n 1 <<<"$OUT")"
check "--tree --spread: the root keeps 0-1" "0-1" "$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/$sh_pid/status)"
kids=$(for p in $(descendants $sh_pid); do [[ $p == "$sh_pid" ]] && continue
  echo "$(awk '{sub(/.*\) /, ""); split($0, f, " "); print f[20]}' /proc/$p/stat) $p"; done | sort -n -k1,1 -k2,2 | awk '{print $2}')
got=$(for p in $kids; do awk '/^Cpus_allowed_list:/ {print $2}' /proc/$p/status; done | tr '\n' ' ')
check "--tree --spread: the children one CPU each, in the order they started" "0 1 " "$got"
run_affix pin --tree --tid --spread 0 $sh_pid
check "--tree --tid --spread" "2 affix: error: --tree moves whole processes and their descendants; it does not go with --tid" "$RC $ERR"

run_affix pin --tree --tid 0 $sh_pid
check "--tree with --tid" "2 affix: error: --tree moves whole processes and their descendants; it does not go with --tid" "$RC $ERR"
finish
