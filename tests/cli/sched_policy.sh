#!/usr/bin/env bash
# Scheduling policies on this machine (affix(1), SCHEDULING), with only the
# harmless ones on processes the test starts itself (batch, idle, a higher
# nice value: never a real-time or deadline policy, nor a lower nice, on a
# machine others share; those run in the VM, tests/vm/scenarios/sched_*.sh):
# usage errors; explain, its JSON and --as systemd; --dry-run; a real
# `run --policy batch --nice 5` and `pin --policy idle` of a 3-thread
# process, read back in /proc/PID/task/*/stat and sched; show; pin --check;
# a refusal that changes nothing; what this kernel lacks.
. "$(dirname "$0")/pin_lib.bash"

# Every thread's "policy nice" from its stat (fields 41 and 19), and its
# sched file's "policy prio", counted: "3 3:5 3:125".
stat_policies() {  # PID
  for t in /proc/$1/task/*; do
    local s; s=$(cat "$t/stat" 2>/dev/null) || continue
    s=${s##*) }; set -- $s
    echo "${39}:${17} $(awk '$1 == "policy" {p = $3} $1 == "prio" {q = $3} END {print p ":" q}' "$t/sched")"
  done | sort | uniq -c | awk '{print $1, $2, $3}'
}

# --- Usage errors: nothing read, nothing started --------------------------
run_affix --policy fifo 0 true
check "run --policy fifo: 125 and the words" \
  "125 affix: error: invalid --policy 'fifo': fifo takes a priority from 1 to 99 (fifo:50)" "$RC $(head -1 <<< "$ERR")"
run_affix --policy deadline:1000000/2000000/2000000 0 true
check "deadline without units" \
  "affix: error: invalid --policy 'deadline:1000000/2000000/2000000': bad time '1000000': expected a number and its unit (ns, us, ms or s)" \
  "$(head -1 <<< "$ERR")"
run_affix pin --nice 20 0 1
check "pin --nice 20: 2" "2 affix: error: invalid --nice '20': expected a whole number from -20 to 19" "$RC $(head -1 <<< "$ERR")"
# What was typed is data: an escape byte in it is shown escaped, not sent to the terminal.
run_affix explain --policy $'fifo:\e[31m' 0
check "an escape byte in --policy, escaped" "2 affix: error: invalid --policy 'fifo:\\e[31m': fifo takes a priority from 1 to 99 (fifo:50)" "$RC $(head -1 <<< "$ERR")"
run_affix explain --policy rr:5 --nice 1 0
check "explain --policy rr --nice: 2" "2 affix: error: --nice applies to the other and batch policies, not rr" \
  "$RC $(head -1 <<< "$ERR")"
run_affix --sched-slice 200 0 true
check "--sched-slice out of range" \
  "125 affix: error: invalid --sched-slice '200': expected milliseconds from 0.1 to 100 (3, 0.5, 500us)" \
  "$RC $(head -1 <<< "$ERR")"
run_affix --spread --policy deadline:1ms/10ms 0 true
check "--spread with deadline" \
  "125 affix: error: --spread places the threads the command creates, and a SCHED_DEADLINE thread cannot create any" \
  "$RC $(head -1 <<< "$ERR")"
run_affix pin --irq --policy batch 0 1
check "pin --irq --policy" "2 affix: error: --irq moves interrupts; it does not go with --policy" "$RC $(head -1 <<< "$ERR")"

# --- explain ----------------------------------------------------------------
run_affix explain 0 --policy batch --nice 5
check "explain: the sched line" "0 sched     policy batch, nice 5" "$RC $(grep '^sched' <<< "$OUT")"
run_affix explain 0 --policy fifo:50 --json
check "explain --json: sched" "fifo 50 null false" "$(jq -r '.sched | [.policy, .priority, .nice, .cpus_first] | map(tostring) | join(" ")' <<< "$OUT")"
run_affix explain 0 --policy rr:20 --nice 3 --as systemd
check "explain --policy rr --nice: usage error" 2 "$RC"
run_affix explain 0 --policy rr:20 --as systemd
check "--as systemd: rr" "0 CPUAffinity=0
CPUSchedulingPolicy=rr
CPUSchedulingPriority=20" "$RC $OUT"
run_affix explain 0 --policy deadline:2ms/10ms/10ms --as systemd
check "--as systemd: deadline left out, said on stderr" "0 CPUAffinity=0" "$RC $OUT"
check "--as systemd: the warning" \
  "affix: warning: systemd has no CPUSchedulingPolicy=deadline: these lines leave out policy deadline:2ms/10ms/10ms; start the service under 'affix --policy deadline:... WHERE COMMAND' (ExecStart=)" \
  "$ERR"
run_affix explain 0 --policy batch --nice 5 --as taskset
check "--as taskset: the policy left out" "0 taskset -c 0" "$RC $OUT"
check_match "--as taskset: said so" "affix: warning: taskset cannot set a scheduling policy: these lines leave out policy batch, nice 5;*" "$ERR"

# --- run --dry-run, then for real -------------------------------------------
run_affix --dry-run --policy batch --nice 5 0 -- true
check "run --dry-run: the policy, then the CPUs" "0 affix: would set policy batch, nice 5
affix: would bind to CPUs 0 (1 CPU; socket 0; node 0)
affix: would exec: true" "$RC $OUT"
"$AFFIX" --policy batch --nice 5 0 -- "$HELPERS/threads_helper" 3 > "$tmp/batch.out" &
PID=$!; started+=("$PID")
for ((i = 0; i < 600; i++)); do grep -q ready "$tmp/batch.out" 2>/dev/null && break; sleep 0.05; done
check "run --policy batch --nice 5: every thread batch (3) at nice 5, prio 125" "3 3:5 3:125" "$(stat_policies $PID)"
check "...on CPU 0" "3 0" "$(thread_lists $PID)"
run_affix show $PID
check_match "show: the POLICY column" "*NODES  POLICY *COMM" "$(sed -n 3p <<< "$OUT")"
check_match "show: the three threads, batch nice 5" "  0  *3  *$PID* *batch nice 5*threads_helper" \
  "$(sed -n 4p <<< "$OUT")"
run_affix show --json $PID
check "show --json: every thread's policy" "batch 5 batch 5 batch 5" \
  "$(jq -r '[.[0].threads[].sched | "\(.policy) \(.nice)"] | join(" ")' <<< "$OUT")"
stop $PID

# --- pin --policy idle of a process the test started -------------------------
start idle threads_helper 3
before=$(tid_lists $PID)
run_affix pin --dry-run --policy idle 0 $PID
check "pin --dry-run: what each thread would get" "0 3" "$RC $(grep -c ' -> 0, other.* -> idle$' <<< "$OUT")"
check "pin --dry-run changed nothing" "3 0:0 0:120" "$(stat_policies $PID)"
run_affix pin --check --policy idle all $PID
check "pin --check before: exit 1, every thread named" "1 3" "$RC $(grep -c '(asked: policy idle)$' <<< "$OUT")"
run_affix pin -v --policy idle 0 $PID
check "pin --policy idle: exit 0, its line" "0 $PID: 3 threads on CPUs 0, policy idle (3 changed)" "$RC $(head -1 <<< "$OUT")"
check "every thread idle (5), prio 120" "3 5:0 5:120" "$(stat_policies $PID)"
check "...and on CPU 0" "3 0" "$(thread_lists $PID)"
run_affix pin --check --policy idle 0 $PID
check "pin --check after: exit 0" "0 $PID: 3 threads within CPUs 0, with policy idle" "$RC $OUT"
run_affix pin --check --policy batch 0 $PID
check "pin --check of another policy: exit 1" "1 $PID: 3 threads within CPUs 0, 3 not with policy batch" "$RC $(head -1 <<< "$OUT")"
# A refusal changes nothing: --nice on idle threads.
run_affix pin --nice 3 1 $PID
check "--nice on idle threads: exit 1, the reason" \
  "1 affix: error: cannot set nice 3 on thread $PID (threads_helper) of process $PID: it runs under idle, which has no nice value; --nice and --sched-slice apply to the other and batch policies; nothing was changed" \
  "$RC $(head -1 <<< "$ERR")"
check "...and nothing changed" "3 5:0 5:120" "$(stat_policies $PID)"
check "...not the CPUs either" "3 0" "$(thread_lists $PID)"
stop $PID

# --- What this kernel lacks is refused before anything is set --------------
if [[ -e /proc/sys/kernel/sched_util_clamp_min ]]; then
  run_affix --uclamp 0:512 0 -- awk '$1 == "uclamp.max" {print $3}' /proc/self/sched
  check "--uclamp on a kernel with clamps" "0 512" "$RC $OUT"
else
  run_affix --uclamp 0:512 0 -- true
  check "--uclamp without CONFIG_UCLAMP_TASK: 125" \
    "125 affix: error: --uclamp needs utilization clamping: this kernel was built without CONFIG_UCLAMP_TASK" \
    "$RC $(head -1 <<< "$ERR")"
fi
release=$(uname -r)
if [[ $(printf '%s\n' 6.12 "${release%%[-+]*}" | sort -V | head -1) == 6.12 ]]; then
  run_affix --sched-slice 0.5 0 -- awk '$1 == "policy" || $1 == "se.slice" {print $3}' /proc/self/sched
  check "--sched-slice 0.5 on $release: other, 500000 ns" "0 0 500000" "$RC $(tr '\n' ' ' <<< "$OUT" | sed 's/ $//')"
else
  run_affix --sched-slice 0.5 0 -- true
  check "--sched-slice before 6.12: 125" \
    "125 affix: error: --sched-slice needs Linux 6.12 or later: this kernel ($release) keeps no EEVDF slice of a thread's own" \
    "$RC $(head -1 <<< "$ERR")"
fi
finish
