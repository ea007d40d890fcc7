#!/usr/bin/env bash
# `affix pin --tree` under fork churn, in the cpuset the test runs in (the
# root cpuset here, where Linux does not correct a fork's CPU list when the
# fork completes): a root that forks a short child every 3 ms, pinned 10
# times to one CPU then the other. After each pin exits 0, every thread of
# every live process of the tree is on the new list (a fork that began
# before pin moved the root and ended after pin's last look kept the old
# list: 1 to 5 trials in 10 before affix waited for every thread it moved
# to be out of clone(2)). Each trial is run twice: as root (the kernel's
# process events connector) and without CAP_NET_ADMIN (no connector: the
# threads' /proc/PID/task/TID/syscall alone).
. "$(dirname "$0")/pin_lib.bash"

# The first two CPUs this test may use.
allowed=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
cpus=($(python3 -c '
import sys
out = []
for part in sys.argv[1].split(","):
    a, _, b = part.partition("-")
    out += range(int(a), int(b or a) + 1)
print(*out[:2])' "$allowed"))
if ((${#cpus[@]} < 2)); then echo "FAIL: needs 2 CPUs, has $allowed"; exit 1; fi
cpuset=$(awk -F: '$2 ~ /(^|,)cpuset(,|$)/ {print $3}' /proc/self/cgroup)
echo "note: CPUs ${cpus[*]} of $allowed, cpuset ${cpuset:-(cgroup v2)}"
[[ $cpuset == / ]] || echo "note: not the root cpuset: Linux itself gives a late fork its parent's current list"

# A root with 128 MiB of its own memory in small pages (each fork copies
# its 32768 page table entries, a few ms) forking a child that lives 30 ms,
# 3 ms after each fork ends.
start churn tree_churn_helper 3 30 512
prefix=()
if [[ $(id -u) == 0 ]] && setpriv --inh-caps=-net_admin --bounding-set=-net_admin true 2>/dev/null; then
  modes=("connector" "no connector")
else
  modes=("as is")
fi
for mode in "${modes[@]}"; do
  [[ $mode == "no connector" ]] && prefix=(setpriv --inh-caps=-net_admin --bounding-set=-net_admin)
  bad=0
  for trial in $(seq 1 10); do
    target=${cpus[$(((trial + 1) % 2))]}
    "${prefix[@]}" "$AFFIX" pin --tree "$target" "$PID" > "$tmp/out" 2> "$tmp/err"
    RC=$?
    left=$("$HELPERS/tree_churn_helper" check "$PID" "$target")
    ERR=$(cat "$tmp/err")
    if [[ $RC -ne 0 || -n "$ERR" ]]; then
      echo "FAIL: $mode: trial $trial: status $RC: $ERR"; bad=$((bad + 1)); continue
    fi
    if grep -q / <<<"$left"; then
      echo "FAIL: $mode: trial $trial: pinned to $target, left behind: $(grep / <<<"$left" | tr '\n' ' ')"
      bad=$((bad + 1))
    fi
    check_match "$mode: trial $trial: report" "$PID: * process*, * thread* on CPUs $target (* moved)" "$(cat "$tmp/out")"
  done
  # -v says where there were no fork events: as root there are.
  "${prefix[@]}" "$AFFIX" pin -v --tree "$target" "$PID" > /dev/null 2> "$tmp/err"
  case $mode in
    connector) check "$mode: -v: the events were had" "" "$(grep 'no fork events' "$tmp/err")" ;;
    "no connector") check "$mode: -v: says why there were none" \
      "affix: no fork events (subscribing to the process events connector needs CAP_NET_ADMIN): forks under way were waited for through /proc alone" \
      "$(grep 'no fork events' "$tmp/err")" ;;
  esac
  echo "$mode: $bad of 10 trials with a descendant off target"
  check "$mode: 10 trials of a root forking every 3 ms: exit 0, no descendant off target" 0 "$bad"
done
check "the helper still runs" 0 "$(kill -0 $PID; echo $?)"
stop $PID
finish
