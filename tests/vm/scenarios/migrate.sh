# vm-topologies: 2s2c2t-2n 2s4c2t-4n
# `affix pin --migrate` moves a process's threads and its pages between
# nodes; the count it reports agrees with numa_maps and move_pages. With
# --mem interleave the pages end up evenly over the nodes (each within 5% of
# an even share, from numa_maps), with preferred over several nodes on
# those nodes; a target whose own policy binds it elsewhere is warned
# about; nodes outside affix's own cpuset are refused, naming them.
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

# --dry-run --migrate: the pages that would move, nothing moved.
check_run "pin --dry-run --migrate node:$L" 0 affix pin --dry-run --migrate node:$L $PID
check_match "dry run: would move the buffer's pages and more" "*$PID: would move * pages to node $L*" "$OUT"
check_eq "dry run: pages still on node 0" "N0=2048" "$(node_pages $PID "$(field addr "$REPORT")")"
check_true "dry run: threads still on node $L" all_threads_on $PID "$(node_cpus $L)"
stop_load $PID

# interleave over every node: 4096 pages, all on node 0, spread page by page.
start_load inter affix run node:0 -- vmload --mb 16 --threads 2 --wait --out report || { finish; exit; }
addr=$(field addr "$REPORT")
check_eq "interleave: before, all on node 0" "N0=4096" "$(node_pages $PID "$addr")"
check_run "pin --migrate --mem interleave:0-$L all" 0 affix pin --migrate --mem interleave:0-$L all $PID
echo "$OUT"
pages=$(node_pages $PID "$addr")
even=$((4096 / VM_NODES))
n=0
while [ $n -le $L ]; do
  got=$(echo "$pages" | tr ' ' '\n' | sed -n "s/^N$n=//p")
  check_true "interleave: node $n has ${got:-0} of the buffer's 4096 pages, within 5% of $even ($pages)" \
    [ "${got:-0}" -ge $((even * 95 / 100)) -a "${got:-0}" -le $((even * 105 / 100)) ]
  n=$((n + 1))
done
check_match "interleave: the report gives the pages moved to each node" "*  pages moved to each node: 1:*" "$OUT"
: > report; kill -USR1 $PID; wait_for report; REPORT=$(tail -n 1 report)
check_eq "interleave: move_pages agrees with numa_maps" "$pages" "$(field nodes "$REPORT" | tr ',' ' ')"
stop_load $PID

# preferred over several nodes: MPOL_PREFERRED_MANY for run; --migrate puts
# the pages on those nodes.
if [ "$VM_NODES" = 4 ]; then pref=1-2; pref_re='^N[12]='; else pref=0-1; pref_re='^N[01]='; fi
start_load many affix run --mem preferred:$pref node:$L -- vmload --mb 8 --wait --out report || { finish; exit; }
addr=$(field addr "$REPORT")
check_eq "run --mem preferred:$pref: the kernel's policy" "prefer (many):$pref" \
  "$(awk -v a="$addr" '$1 == a { sub(/^[^ ]* /, ""); sub(/ (anon|dirty|N[0-9]+|mapped|active|file|kernelpagesize_kB)=.*/, ""); print }' /proc/$PID/numa_maps)"
pages=$(node_pages $PID "$addr")
check_eq "run --mem preferred:$pref: every page on those nodes ($pages)" "" "$(echo "$pages" | tr ' ' '\n' | grep -v "$pref_re")"
check_run "explain --mem preferred:$pref says what the kernel is asked" 0 affix explain --mem preferred:$pref node:0
check_match "explain: MPOL_PREFERRED_MANY" "*memory*preferred on nodes $pref (MPOL_PREFERRED_MANY*" "$OUT"
check_run "pin --migrate --mem preferred:0 node:0 (the pages leave)" 0 affix pin --migrate --mem preferred:0 node:0 $PID
check_eq "pages on node 0" "N0=2048" "$(node_pages $PID "$addr")"
check_run "pin --migrate --mem preferred:$pref node:0" 0 affix pin --migrate --mem preferred:$pref node:0 $PID
pages=$(node_pages $PID "$addr")
check_eq "pin --migrate --mem preferred:$pref: every page on those nodes ($pages)" "" \
  "$(echo "$pages" | tr ' ' '\n' | grep -v "$pref_re")"
stop_load $PID

# A target bound by its own policy: its pages move, but new memory keeps
# going to its node, and affix says so.
own=$((L - 1))
start_load bound affix run --mem bind:$own node:$own -- vmload --mb 8 --wait --out report || { finish; exit; }
addr=$(field addr "$REPORT")
check_run "pin --migrate node:$L of a process bound to node $own" 0 affix pin --migrate node:$L $PID
check_eq "the warning" "affix: warning: $PID's own memory policy (bind:$own) still sends new allocations to node $own; only the process itself can change it" "$ERR"
check_eq "its pages moved all the same" "N$L=2048" "$(node_pages $PID "$addr")"
check_run "pin --migrate --mem bind:$own: no warning" 0 affix pin --migrate --mem bind:$own node:$L $PID
check_eq "no warning where its policy and the nodes agree" "" "$ERR"

# Nodes outside affix's own cpuset (cpuset.mems all but node L): the kernel
# would drop them without a word; affix refuses, naming them.
if [ $L = 1 ]; then mine=0; else mine=0-$((L - 1)); fi
cg=/sys/fs/cgroup/affix-migrate
echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
mkdir $cg && echo 0-$((VM_CPUS - 1)) > $cg/cpuset.cpus && echo $mine > $cg/cpuset.mems
printf '#!/bin/sh\necho $$ > %s/cgroup.procs && exec "$@"\n' $cg > inside
chmod +x inside
check_run "pin --migrate --mem bind:$L from inside" 2 ./inside affix pin --migrate --mem bind:$L node:0 $PID
check_eq "the error names the node" \
"affix: error: cannot move pages to node $L: outside the memory nodes affix itself may use ($mine)
affix: hint: the kernel moves pages only to nodes its caller may use; run affix in a cpuset that has them" "$ERR"
check_eq "nothing moved" "N$own=2048" "$(node_pages $PID "$addr")"
check_true "threads not moved" all_threads_on $PID "$(node_cpus $L)"
rmdir $cg
stop_load $PID
finish
