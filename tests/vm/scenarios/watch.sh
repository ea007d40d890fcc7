# vm-perf-events (guest/init holds one perf event from boot to poweroff)
# vm-topologies: 2s2c2t-2n 2s4c2t-4n
# `affix watch` on multi-socket machines: a thread that moves itself between
# two CPUs a known number of times is counted at the level that separates
# them (another socket: `socket`; another core of the same socket: `core`
# or `llc` as the topology says; on the 4-node machine another node of the
# same socket: `node`), exactly as root (perf events) and sampled for an
# unprivileged user at perf_event_paranoid = 3; the process's other threads
# report 0. Then remote pages: memory bound to node 0, threads on node 1,
# before and after `affix pin --migrate node:1` (remote pages are anonymous
# ones: a file's page cache is not the process's placement).
. "$VM_LIB"
per_socket=$((VM_CORES * VM_THREADS))
affix topo --json > topo.json

# all_in LIST1 LIST2: every CPU of cpulist LIST1 is in LIST2 (LIST1 not empty).
all_in() {
  [ -n "$1" ] || return 1
  for r in $(echo "$1" | tr ',' ' '); do
    in_list "${r%-*}" "$2" && in_list "${r#*-}" "$2" || return 1
  done
}

# level_of A B: the largest boundary between CPUs A and B, from topo --json.
level_of() {
  jq -r --argjson a "$1" --argjson b "$2" '.cpus[$a] as $x | .cpus[$b] as $y |
    if $x.socket != $y.socket then "socket" elif $x.node != $y.node then "node"
    elif $x.llc != $y.llc then "llc" elif $x.core != $y.core then "core" else "smt" end' topo.json
}

# hops LABEL A B MOVES INTERVAL LOW HIGH EXACT PREFIX...: hopper between A and
# B under PREFIX affix watch; the moves start right after an interval line.
hops() {
  label=$1 a=$2 b=$3 moves=$4 interval=$5 low=$6 high=$7 exact=$8; shift 8
  rm -f hop.ready hop.ready.done w.out w.err
  hopper "$a" "$b" "$moves" hop.ready > /dev/null &
  hp=$!
  wait_for hop.ready || return
  read -r _ pid tid steady < hop.ready
  "$@" affix watch --json -i "$interval" "$pid" > w.out 2> w.err &
  w=$!
  wait_for w.out || return
  kill -USR1 "$pid"
  wait_for hop.ready.done || return
  kill -TERM "$w"
  wait "$w"
  check_eq "$label: exit status" 0 "$?"
  check_eq "$label: nothing on stderr" "" "$(cat w.err)"
  OUT=$(tail -n 1 w.out)
  t() { json ".summary.processes[0].thread_list[] | select(.tid == $1) | $2"; }
  total=$(t "$tid" .migrations.total)
  check_true "$label: $total moves counted ($low-$high)" [ "$total" -ge "$low" -a "$total" -le "$high" ]
  level=$(level_of "$a" "$b")
  check_eq "$label: all at the $level level" "$total" "$(t "$tid" ".migrations.$level")"
  check_eq "$label: exact" "$exact" "$(json .summary.exact)"
  check_eq "$label: the steady thread never moved" "0" "$(t "$steady" .migrations.total)"
  kill -KILL "$hp"
  wait "$hp" 2>/dev/null
  LEVEL=$level
}

m=101
hops "exact, another socket" 0 $per_socket $m 0.5 $((m - 2)) $((m + 2)) true
check_eq "another socket is counted as socket" "socket" "$LEVEL"
hops "exact, another core" 0 "$VM_THREADS" $m 0.5 $((m - 2)) $((m + 2)) true
case $LEVEL in
  core|llc) ok "another core of the socket is counted as $LEVEL";;
  *) not_ok "another core of the socket is counted as core or llc: got $LEVEL";;
esac
if [ "$VM_NODES" -gt "$VM_SOCKETS" ]; then
  second_node=$(node_cpus 1 | cut -d- -f1)
  hops "exact, another node of the socket" 0 "$second_node" $m 0.5 $((m - 2)) $((m + 2)) true
  check_eq "another node of the socket is counted as node" "node" "$LEVEL"
fi

# Sampled: an unprivileged user where perf_event_paranoid is 3.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 3 > /proc/sys/kernel/perf_event_paranoid
low=$((m * 9 / 10)) high=$((m * 11 / 10))
hops "sampled, another socket" 0 $per_socket $m 2 $low $high false run_as 65534
check_eq "sampled: another socket is counted as socket" "socket" "$LEVEL"
hops "sampled, another core" 0 "$VM_THREADS" $m 2 $low $high false run_as 65534
capture run_as 65534 affix watch -c 1 -i 0.1 $$
check_match "sampled: the header says so, and how to get exact counts" \
  "*sampled*perf_event_paranoid = 3*run as root, with CAP_PERFMON, or with kernel.perf_event_paranoid <= 1*" \
  "$(echo "$OUT" | tr '\n' ' ')"
echo "$paranoid" > /proc/sys/kernel/perf_event_paranoid

# Remote pages: 16 MiB bound to node 0, the threads on node 1.
start_load remote affix run --mem bind:0 node:1 -- vmload --mb 16 --threads 2 --wait || { finish; exit; }
capture affix watch --json -c 1 -i 0.2 "$PID"
OUT=$(head -n 1 /tmp/vm-out)
on0=$(json '.processes[0].memory_pages["0"]')
check_true "memory on node 0 (got $on0 pages)" [ "${on0:-0}" -ge 4096 ]
ran=$(json '.processes[0].cpus_ran')
check_true "threads ran on node 1 ($ran)" all_in "$ran" "$(node_cpus 1)"
check_eq "the anonymous pages on node 0 are remote" \
  "$(json '[.processes[0].anon_pages | to_entries[] | select(.key != "1") | .value] | add')" \
  "$(json '.processes[0].remote_pages')"
check_eq "memory_pages are anon_pages and file_pages" "$(json '[.processes[0].memory_pages[]] | add')" \
  "$(json '[.processes[0].anon_pages[], .processes[0].file_pages[]] | add')"
check_run "pin --migrate node:1" 0 affix pin --migrate node:1 "$PID"
capture affix watch --json -c 1 -i 0.2 "$PID"
OUT=$(head -n 1 /tmp/vm-out)
check_eq "after the migration: no remote page" "0" "$(json '.processes[0].remote_pages')"
check_eq "after the migration: every anonymous page on node 1" "$(json '[.processes[0].anon_pages[]] | add')" \
  "$(json '.processes[0].anon_pages["1"]')"
stop_load "$PID"

# A file's page cache is not remote memory: 4 MiB written from node 0 (its
# pages are there), mapped and read by a process bound to node 1 with its
# own 8 MiB there. Its file pages stay on node 0; none of them is remote.
affix run --mem bind:0 node:0 -- dd if=/dev/zero of=cache.dat bs=1M count=4 2>/dev/null
start_load cache affix run --mem bind:1 node:1 -- vmload --mb 8 --map cache.dat --wait || { finish; exit; }
capture affix watch --json -c 1 -i 0.2 "$PID"
OUT=$(head -n 1 /tmp/vm-out)
file0=$(json '.processes[0].file_pages["0"] // 0')
check_true "the file's pages are file pages on node 0 (got $file0)" [ "$file0" -ge 1024 ]
anon1=$(json '.processes[0].anon_pages["1"] // 0')
check_true "its own pages are anonymous pages on node 1 (got $anon1)" [ "$anon1" -ge 2048 ]
check_eq "remote pages: its anonymous pages off node 1, not the file's" \
  "$(json '[.processes[0].anon_pages | to_entries[] | select(.key != "1") | .value] + [0] | add')" \
  "$(json '.processes[0].remote_pages')"
check_true "remote pages fewer than the file's pages on node 0" [ "$(json '.processes[0].remote_pages')" -lt "$file0" ]
capture affix show "$PID"
check_match "show: anon on node 1, file on node 0" "* anon *1:*; file 0:*" "$(head -n 1 /tmp/vm-out)"
stop_load "$PID"
rm -f cache.dat
finish
