# vm-topologies: 2s2c2t-2n 2s4c2t-4n
# `affix pin --migrate` moves a process's threads and its pages between
# nodes; the count it reports agrees with numa_maps and move_pages.
. "$VM_LIB"
L=$((VM_NODES - 1))

start_load mig affix run node:0 -- vmload --mb 8 --threads 3 --wait --out report || { finish; exit; }
check_load "before" $PID "$(node_cpus 0)" "default" "N0=2048"
before=$(total_pages $PID)

check_run "pin --migrate node:$L" 0 affix pin --migrate node:$L $PID
echo "$OUT"
moved=$(echo "$OUT" | sed -n "s/^$PID: moved \([0-9]*\) pages.*/\1/p")
check_true "reports '$PID: moved N pages' with N >= 2048 (got '$moved')" [ "${moved:-0}" -ge 2048 ]
after=$(total_pages $PID)
# Every page that was on another node is now on node L: what moved is what
# numa_maps counted off node L before.
off_target() { echo "$1" | tr ' ' '\n' | awk -F= -v l="N$L" '$1 != l { s += $2 } END { print s + 0 }'; }
check_eq "moved = pages numa_maps had off node $L ($before -> $after)" "$(off_target "$before")" "$moved"
check_eq "nothing left off node $L" "0" "$(off_target "$after")"
# The report's per-node counts before and after are numa_maps' counts
# ("  pages per node before: 0:2101 1:3").
as_report() { echo "$1" | sed 's/N\([0-9]*\)=/\1:/g'; }
check_eq "report: pages per node before" "$(as_report "$before")" \
  "$(echo "$OUT" | sed -n 's/^  pages per node before: *//p')"
check_eq "report: pages per node after" "$(as_report "$after")" \
  "$(echo "$OUT" | sed -n 's/^  pages per node after: *//p')"

kill -USR1 $PID
wait_for report
REPORT=$(tail -n 1 report)
check_load "after" $PID "$(node_cpus $L)" "default" "N$L=2048"

# --mem NODES says where the pages go, independently of the CPUs.
check_run "pin --migrate --mem bind:0 node:$L" 0 affix pin --migrate --mem bind:0 node:$L $PID
: > report; kill -USR1 $PID; wait_for report; REPORT=$(tail -n 1 report)
check_eq "pages back on node 0 (move_pages)" "N0=2048" "$(field nodes "$REPORT")"
check_eq "pages back on node 0 (numa_maps)" "N0=2048" "$(node_pages $PID "$(field addr "$REPORT")")"
check_true "threads stay on node $L" all_threads_on $PID "$(node_cpus $L)"
stop_load $PID
finish
