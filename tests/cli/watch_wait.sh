#!/usr/bin/env bash
# affix watch's run-queue wait (wait_ms: schedstat's second field, the time
# a thread was ready to run but waited for a CPU) on real threads, exact
# (as root) and sampled (perf_event_open refused by seccomp).
#
# Three threads that compute without a pause on one CPU: at every moment
# at most one of them runs, so together they wait at least twice the
# interval, however busy the machine is (other load only adds to it).
# Checked at 1.3 times the interval: a wait of 0 fails, and so does one
# read from schedstat's first field (CPU time: one CPU gives the three at
# most the interval). A thread that computes all the time either runs or
# waits: its CPU time and its wait add up to about the time watched. One
# such thread alone on the CPU waits at most about the time watched (all of
# it only where the machine is that busy), less than the three.
# "About": the kernel counts a wait when it ends, so a wait under way at a
# sample goes to the next interval; on a loaded machine (pin_churn beside
# it) a thread that gets 5% of a CPU waits some 300 ms at a time. Intervals
# of 1 s and the bounds leave room for that. A watch in which the threads
# got next to no CPU (2%: a VM whose CPU the host took away) says nothing
# yet of their wait: it is run again, 3 times at most (then the checks on
# its figures are skipped).
# The text's WAIT column (ms per second) in its columns.
. "$(dirname "$0")/watch_lib.bash"

# The first CPU this test may use (its CPU list may be any).
cpu=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status | cut -d, -f1 | cut -d- -f1)

start_busy() {  # N: a process of N threads that compute on CPU $cpu; sets PID
  rm -f "$tmp/busy.out"
  taskset -c "$cpu" "$HELPERS/busy_threads" "$1" > "$tmp/busy.out" &
  PID=$!
  started+=("$PID")
  wait_file "$tmp/busy.out"
}

# within NAME VALUE LOW HIGH: LOW <= VALUE <= HIGH (integers).
within() {
  if [[ $2 =~ ^[0-9]+$ ]] && (($2 >= $3 && $2 <= $4)); then echo "ok: $1 ($2 in $3-$4)"
  else echo "FAIL: $1: $2, expected $3-$4"; fail=1; fi
}

# ran_enough: whether the watched process got 2% of a CPU in every
# interval of OUT (JSON, or text with a CPU% column last).
ran_enough() {
  if [[ $OUT == '{'* ]]; then
    head -n -1 <<<"$OUT" | jq -se 'length > 0 and all(.[]; .processes[0].cpu_ms >= .interval * 20)' > /dev/null
  else
    sed '/^summary of/q' <<<"$OUT" | awk -v pid="$PID" '$1 == pid {cpu += $NF} END {exit !(cpu >= 2)}'
  fi
}

# busy_watch ARGS...: OUT from `${prefix[@]} affix watch ARGS PID`, run
# again (3 tries) until ran_enough; sets RC, ERR, and VALID (no: never).
busy_watch() {
  local try
  VALID=no
  for try in 1 2 3; do
    OUT=$("${prefix[@]}" "$AFFIX" watch "$@" "$PID" 2> "$tmp/err")
    RC=$?
    ERR=$(cat "$tmp/err")
    if ran_enough; then VALID=yes; return; fi
  done
}

# valid NAME: true where the last busy_watch ran enough; else a failure
# (the wait was not measured: the test has proved nothing).
valid() {
  [[ $VALID == yes ]] && return 0
  echo "FAIL: $1: the threads got next to no CPU in 3 tries: their wait was not measured"
  fail=1
  return 1
}

check_wait() {  # MODE PREFIX...: both helpers watched under PREFIX
  local mode=$1 exact=true
  shift
  prefix=("$@")
  [[ $# -gt 0 ]] && exact=false
  start_busy 3
  busy_watch --json -i 1 -c 2 --threads
  check "$mode, 3 threads: exit status, nothing on stderr" "0 " "$RC $ERR"
  check "$mode, 3 threads: exact" "$exact" "$(tail -n 1 <<<"$OUT" | jq -r .summary.exact)"
  check "$mode, 3 threads: wait_ms a number and not partial, per process and thread" "number false" \
    "$(jq -r '(.summary // .) | .processes[0] | ., .thread_list[] | "\(.wait_ms | type) \(.wait_partial)"' <<<"$OUT" |
       sort -u | tr '\n' ' ' | sed 's/ $//')"
  local i line wait interval sum summary seconds t three=0
  for i in 1 2; do
    line=$(sed -n "${i}p" <<<"$OUT")
    wait=$(jq '.processes[0].wait_ms' <<<"$line")
    sum=$(jq '[.processes[0].thread_list[].wait_ms] | add' <<<"$line")
    [[ $sum =~ ^[0-9]+$ ]] || sum=0
    within "$mode, 3 threads, interval $i: the process's wait is its threads' (rounded each)" "$wait" $((sum - 2)) $((sum + 2))
    # The process's wait (ms) against the interval.
    interval=$(jq '.interval * 1000 | round' <<<"$line")
    [[ $interval =~ ^[0-9]+$ ]] || interval=0
    valid "$mode, 3 threads, interval $i" &&
      within "$mode, 3 threads, interval $i: the process waited (ms) at least 1.3 times the interval" \
        "$wait" $((interval * 13 / 10)) $((interval * 6))
  done
  summary=$(tail -n 1 <<<"$OUT" | jq -c '.summary.processes[0]')
  three=$(jq '.wait_ms' <<<"$summary")
  [[ $three =~ ^[0-9]+$ ]] || three=0
  sum=$(head -n -1 <<<"$OUT" | jq -s '[.[].processes[0].wait_ms] | add')
  [[ $sum =~ ^[0-9]+$ ]] || sum=0
  within "$mode, 3 threads: the summary's wait is the intervals'" "$three" $((sum - 2)) $((sum + 2))
  # Over the run, each thread: CPU time + wait = the time watched (+-).
  seconds=$(jq '.seconds * 1000 | round' <<<"$summary")
  [[ $seconds =~ ^[0-9]+$ ]] || seconds=0
  if valid "$mode, 3 threads: CPU + wait"; then
    for t in $(jq -r '.thread_list[].tid' <<<"$summary"); do
      within "$mode, 3 threads: thread $t ran or waited all the time (CPU + wait, ms)" \
        "$(jq ".thread_list[] | select(.tid == $t) | .cpu_ms + .wait_ms" <<<"$summary")" \
        $((seconds / 2)) $((seconds * 3 / 2))
    done
  fi
  local valid_three=$VALID

  # The text: a WAIT column before CPU%, every row in the title's columns;
  # each thread waits about 667 ms per second (at least 300 checked), the
  # process about 2000 (at least 1300).
  busy_watch -i 1 -c 1 --threads
  local title rows row
  title=$(grep -m 1 '^    PID     TID COMM' <<<"$OUT")
  check "$mode, text: the title" "    PID     TID COMM       CPU  MIG SOCK NODE  LLC CORE  SMT VCSW ICSW WAIT CPU%" "$title"
  rows=$(sed '/^summary of/q' <<<"$OUT" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/')
  check "$mode, text: three thread rows, each in the title's columns" "3 ${#title}" \
    "$(wc -l <<<"$rows") $(awk '{print length}' <<<"$rows" | sort -u | tr '\n' ' ' | sed 's/ $//')"
  valid "$mode, text: each thread's WAIT" &&
    check "$mode, text: each thread's WAIT (ms/s) at least 300" "yes yes yes" \
      "$(awk '{print ($13 + 0 >= 300 ? "yes" : "no " $13)}' <<<"$rows" | tr '\n' ' ' | sed 's/ $//')"
  busy_watch -i 1 -c 1
  title=$(grep -m 1 '^    PID COMM' <<<"$OUT")
  row=$(grep -m 1 "^ *$PID " <<<"$OUT")
  check "$mode, text: the process's row in the title's columns" "${#title}" "${#row}"
  valid "$mode, text: the process's WAIT" &&
    check "$mode, text: the process's WAIT (ms/s) at least 1300" "yes" \
      "$(awk '{print ($11 + 0 >= 1300 ? "yes" : "no " $11)}' <<<"$row")"
  stop "$PID"

  start_busy 1
  busy_watch --json -i 1 -c 2
  summary=$(tail -n 1 <<<"$OUT" | jq -c '.summary.processes[0]')
  seconds=$(jq '.seconds * 1000 | round' <<<"$summary")
  [[ $seconds =~ ^[0-9]+$ ]] || seconds=0
  if valid "$mode, 1 thread alone" && [[ $valid_three == yes ]]; then
    within "$mode, 1 thread alone: it waited (ms) about the time watched at most, less than the three" \
      "$(jq '.wait_ms' <<<"$summary")" 0 $(( (seconds * 5 / 4) < three - 1 ? seconds * 5 / 4 : three - 1 ))
    within "$mode, 1 thread alone: it ran or waited all the time (CPU + wait, ms)" \
      "$(jq '.cpu_ms + .wait_ms' <<<"$summary")" $((seconds / 2)) $((seconds * 3 / 2))
  fi
  stop "$PID"
}

if [[ $(id -u) == 0 ]]; then check_wait root; fi
check_wait "sampled (seccomp)" "$HELPERS/seccomp_run" perf_event_open EACCES
finish
