#!/usr/bin/env bash
# `affix pin --check`: the step of a deployment pipeline that fails when a
# placement is off. On real processes: exit 0 after a pin, exit 1 naming the
# thread after taskset moved it, nothing changed by the check itself; with
# --spread, --tree, --mem/--migrate and --json; usage errors; and a real
# nginx whose workers were spread, then one moved by taskset.
. "$(dirname "$0")/pin_lib.bash"
. "$(dirname "$0")/nginx_lib.bash"

# --- Threads --------------------------------------------------------------
start threads threads_helper 3
run_affix pin 0 $PID
check "pin 0 first" 0 "$RC"
run_affix pin --check 0 $PID
check "check after the pin: exit 0" 0 "$RC"
check "check after the pin: the line" "$PID: 3 threads within CPUs 0" "$OUT"
check "check after the pin: nothing on stderr" "" "$ERR"
tid=$(ls /proc/$PID/task | sort -n | tail -1)
taskset -pc 1 $tid > /dev/null
before=$(tid_lists $PID)
run_affix pin --check 0 $PID
check "check after taskset moved a thread: exit 1" 1 "$RC"
check "check after taskset moved a thread: the thread named" \
  "$PID: 3 threads, 1 not within CPUs 0
  $tid (threads_helper): cpus 1, not within 0" "$OUT"
check "the check changed nothing" "$before" "$(tid_lists $PID)"
run_affix pin --check all $PID
check "within a wider selection: exit 0" "0 $PID: 3 threads within CPUs 0-1" "$RC $OUT"

run_affix pin --check --json 0 $PID
check "--json: exit 1" 1 "$RC"
check "--json: ok, the thread, its list and the selection" \
  "false $tid 1 0 threads_helper" \
  "$(jq -r '[.ok, .targets[0].outside[0].tid, .targets[0].outside[0].cpus, .targets[0].outside[0].want, .targets[0].outside[0].comm] | join(" ")' <<< "$OUT")"
run_affix pin --check -v 0 $PID
check "-v: a line per thread" 3 "$(grep -c "): cpus" <<< "$OUT")"

# --spread: each thread on the CPU the spread gives it, in TID order.
run_affix pin --spread all $PID
run_affix pin --check --spread all $PID
check "--spread after pin --spread: exit 0" "0 $PID: 3 threads within the CPU --spread gives each, of CPUs 0-1" "$RC $OUT"
taskset -pc 0-1 $tid > /dev/null
run_affix pin --check --spread all $PID
check "--spread: a thread on both CPUs fails" 1 "$RC"
check_match "--spread: the thread and its one CPU" "*$tid (threads_helper): cpus 0-1, not within 0" "$OUT"
stop $PID

# --- A tree ---------------------------------------------------------------
start forks fork_helper 50
run_affix pin --tree 0 $PID
check "pin --tree first" 0 "$RC"
run_affix pin --check --tree 0 $PID
check "--tree after pin --tree: exit 0" 0 "$RC"
check_match "--tree: processes and threads" "$PID: * processes, * threads within CPUs 0" "$OUT"
child=$(ps -o pid= --ppid $PID | head -1 | tr -d ' ')
taskset -apc 1 $child > /dev/null
run_affix pin --check --tree 0 $PID
check "--tree: a child moved by taskset fails" 1 "$RC"
check_match "--tree: its threads named" "*  $child (fork_helper): cpus 1, not within 0*" "$OUT"
run_affix pin --check 0 $PID
check "without --tree the child is not a target" 0 "$RC"
stop $PID

# --- Memory ---------------------------------------------------------------
head -c 65536 /dev/zero > "$tmp/file"
"$AFFIX" --mem bind all "$HELPERS/mem_helper" 200 "$tmp/file" > "$tmp/mem.out" &
PID=$!; started+=("$PID")
for _ in $(seq 1 100); do grep -q ready "$tmp/mem.out" && break; sleep 0.05; done
nodes=$(cat /sys/fs/cgroup/cpuset/cpuset.mems 2>/dev/null || echo 0)
run_affix pin --check --mem bind all $PID
check "--mem bind of a process started bound: exit 0" 0 "$RC"
check "--mem bind: the policy" "$PID: 1 thread within CPUs 0-1
  $PID: memory policy bind:$nodes, as asked (bind:$nodes)" "$OUT"
run_affix pin --check --mem interleave all $PID
check "--mem interleave of a bound process: exit 1" 1 "$RC"
check_match "--mem interleave: the policy it has" "*$PID: memory policy bind:$nodes, not interleave:$nodes" "$OUT"
run_affix pin --check --migrate all $PID
check "--migrate: every anonymous page on the nodes: exit 0" 0 "$RC"
check_match "--migrate: the pages" "*$PID: * anonymous pages, all on node* $nodes" "$OUT"
run_affix pin --check --json --mem bind --migrate all $PID
check "--json with --mem --migrate: the pages, no policy asked (pin --migrate sets none)" "true bind:$nodes  0" \
  "$(jq -r '[.ok, .targets[0].memory[0].policy, .targets[0].memory[0].want_policy, .targets[0].memory[0].anon_outside] | join(" ")' <<< "$OUT")"
stop $PID
start plain threads_helper 1
run_affix pin --check --mem bind all $PID
check "--mem bind of a process with the default policy: exit 1" 1 "$RC"
check "--mem bind: default named, and the target's line says it is the policy" "$PID: 1 thread within CPUs 0-1, memory policy not bind:$nodes
  $PID: memory policy default, not bind:$nodes" "$OUT"
# pin --mem bind --migrate moves the pages and leaves the process's own policy
# (default) as it is: --check with the same words checks what pin did.
run_affix pin all --mem bind --migrate $PID
check "pin --mem bind --migrate of a default-policy process: exit 0" 0 "$RC"
run_affix pin --check all --mem bind --migrate $PID
check "--check with pin's words after it: exit 0" 0 "$RC"
check_match "--check with pin's words: the CPUs and the pages" "$PID: 1 thread within CPUs 0-1
  $PID: * anonymous page*, all on node $nodes" "$OUT"
run_affix pin --check --json all --mem bind --migrate $PID
check "--check --json with pin's words: ok, no policy asked, the pages ok" "true  true true" \
  "$(jq -r '[.ok, .targets[0].memory[0].want_policy, .targets[0].memory[0].policy_ok, .targets[0].memory[0].pages_ok] | join(" ")' <<< "$OUT")"

# --- Usage ----------------------------------------------------------------
run_affix pin --check --dry-run 0 $PID
check "--check --dry-run: usage error" "2 affix: error: --check and --dry-run cannot be used together" "$RC $(head -1 <<< "$ERR")"
run_affix pin --json 0 $PID
check "--json without --check: usage error" "2 affix: error: --json goes with --check" "$RC $(head -1 <<< "$ERR")"
run_affix pin --check 0 4194303
check "--check of no such process: exit 1" "1 affix: error: no such process: 4194303" "$RC $ERR"
stop $PID

# --- nginx: one worker per CPU, then one moved -----------------------------
nginx_start 2
workers=$(nginx_workers | tr '\n' ' ')
run_affix pin --spread all $workers
check "pin --spread over nginx's workers" 0 "$RC"
check "each worker on its own CPU" "0 1" "$(nginx_worker_cpus | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//')"
run_affix pin --check --spread all $workers
check "--check --spread of the workers: exit 0" 0 "$RC"
second=$(nginx_workers | tail -1)
taskset -apc 0-1 $second > /dev/null
run_affix pin --check --spread all $workers
check "--check after taskset moved a worker: exit 1" 1 "$RC"
check_match "--check names the worker" "*$second (nginx): cpus 0-1, not within 1*" "$OUT"
# The whole tree: the master keeps the selection, the workers spread.
run_affix pin --tree --spread all $NGINX_MASTER
run_affix pin --check --tree --spread all $NGINX_MASTER
check "--check --tree --spread after pin --tree --spread: exit 0" 0 "$RC"
check "the master keeps both CPUs" "0-1" "$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/$NGINX_MASTER/status)"
nginx_stop
finish
