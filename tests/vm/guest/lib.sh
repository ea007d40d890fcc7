# shellcheck shell=sh
# Assertions for the VM scenarios (busybox sh). A scenario sources this file,
# checks, and ends with `finish`. Every check prints "ok WHAT" or
# "not ok WHAT: ..."; the harness reports the first "not ok" as the reason.
. "$VM_ENV"
vm_fails=0 vm_checks=0

ok()     { vm_checks=$((vm_checks + 1)); echo "ok $1"; }
not_ok() { vm_checks=$((vm_checks + 1)); vm_fails=$((vm_fails + 1)); echo "not ok $1"; }

# check_eq WHAT EXPECTED ACTUAL
check_eq() {
  if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected '$2', got '$3'"; fi
}
# check_match WHAT PATTERN ACTUAL  (shell pattern, e.g. "*needle*")
check_match() {
  case $3 in $2) ok "$1";; *) not_ok "$1: '$3' does not match '$2'";; esac
}
# check_true WHAT COMMAND...
check_true() {
  what=$1; shift
  if "$@"; then ok "$what"; else not_ok "$what: '$*' failed"; fi
}

# capture CMD...: runs CMD, sets OUT (stdout), ERR (stderr), RC.
capture() {
  RC=0
  "$@" > /tmp/vm-out 2> /tmp/vm-err || RC=$?
  OUT=$(cat /tmp/vm-out); ERR=$(cat /tmp/vm-err)
}
# check_run WHAT RC CMD...: runs CMD, checks its exit status (prints its stderr on a mismatch).
check_run() {
  what=$1 want=$2; shift 2
  capture "$@"
  if [ "$RC" = "$want" ]; then ok "$what"
  else not_ok "$what: '$*' exited $RC, expected $want; stderr: $(echo "$ERR" | head -n 3 | tr '\n' '|')"
  fi
}

# json FILTER: jq -r FILTER on $OUT.
json() { printf "%s" "$OUT" | jq -M -r "$1" 2>&1; }

# status_of PID FIELD: a field of /proc/PID/status ("Cpus_allowed_list").
status_of() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"; }

# node_pages PID ADDR: "N0=12 N1=4" from the numa_maps line of the mapping at ADDR.
node_pages() {
  awk -v a="$2" '$1 == a { s = ""; for (i = 2; i <= NF; i++) if ($i ~ /^N[0-9]+=/) s = s (s == "" ? "" : " ") $i; print s }' \
    "/proc/$1/numa_maps"
}
# map_policy PID ADDR: the policy field of that numa_maps line ("bind:1"),
# with the two modes the kernel spells in two words ("weighted
# interleave:0,2", "prefer (many):0-1").
map_policy() {
  awk -v a="$2" '$1 == a { p = $2; if ($2 == "weighted" || ($2 == "prefer" && $3 ~ /^\(many\)/)) p = p " " $3; print p }' \
    "/proc/$1/numa_maps"
}
# total_pages PID: pages per node over all of numa_maps, "N0=.. N1=.." (nodes with pages).
total_pages() {
  awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split(substr($i, 2), kv, "="); t[kv[1]] += kv[2] } }
       END { for (n = 0; n < 64; n++) if (n in t) { s = s (s == "" ? "" : " ") "N" n "=" t[n] }; print s }' \
    "/proc/$1/numa_maps"
}

# wait_for FILE: until FILE is non-empty (bounded: 60 s, then a failed check).
wait_for() {
  i=0
  while [ ! -s "$1" ]; do
    i=$((i + 1))
    if [ $i -gt 600 ]; then not_ok "waiting for $1"; return 1; fi
    sleep 0.1
  done
}

# field KEY LINE: the value of KEY=VALUE in a helper's report line.
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

finish() {
  echo "$vm_checks checks, $vm_fails failed"
  [ "$vm_fails" = 0 ]
}

# in_list N LIST: is N in the cpulist LIST ("0-3,8")?
in_list() {
  echo "$2" | tr ',' '\n' | awk -v n="$1" -F- '
    NF == 1 && $1 != "" && n == $1 { f = 1 } NF == 2 && n >= $1 && n <= $2 { f = 1 } END { exit !f }'
}
# node_of_cpu N: the configured node of CPU N.
node_of_cpu() {
  i=0
  while [ $i -lt "$VM_NODES" ]; do
    eval "l=\$VM_NODE${i}_CPUS"
    if in_list "$1" "$l"; then echo $i; return; fi
    i=$((i + 1))
  done
  echo null
}
# node_cpus N / node_mem N / node_dist N: the configured cpus, MiB and distance row of node N.
node_cpus() { eval "echo \"\$VM_NODE$1_CPUS\""; }
node_mem()  { eval "echo \"\$VM_NODE$1_MEM\""; }
node_dist() { eval "echo \"\$VM_NODE$1_DIST\""; }
# socket_cpus S: the CPUs of socket S ("4-7").
socket_cpus() {
  per=$((VM_CORES * VM_THREADS))
  if [ $per = 1 ]; then echo "$1"; else echo "$(($1 * per))-$(($1 * per + per - 1))"; fi
}
# thread_cpus PID: "TID=CPULIST ..." for every thread of PID, in TID order.
thread_cpus() {
  for t in $(ls "/proc/$1/task" | sort -n); do
    printf '%s=%s ' "$t" "$(status_of "$1/task/$t" Cpus_allowed_list)"
  done | sed 's/ $//'
}
# all_threads_on PID CPULIST: every thread of PID may run on exactly CPULIST.
all_threads_on() {
  for t in $(ls "/proc/$1/task"); do
    [ "$(status_of "$1/task/$t" Cpus_allowed_list)" = "$2" ] || return 1
  done
}

# start_load TAG CMD...: start CMD (which ends in a `vmload ... --wait`) in
# the background with --ready TAG.ready; waits for its report. Sets PID and
# REPORT ("" when it never got ready). affix execs, so PID is vmload's.
start_load() {
  tag=$1; shift
  rm -f "$tag.ready"
  "$@" --ready "$tag.ready" > "$tag.log" 2>&1 &
  PID=$!
  REPORT=""
  i=0
  while [ ! -s "$tag.ready" ]; do
    if ! alive $PID || [ $i -gt 600 ]; then
      not_ok "$tag: '$*' did not start: $(head -n 3 "$tag.log" | tr '\n' '|')"
      return 1
    fi
    i=$((i + 1)); sleep 0.1
  done
  REPORT=$(cat "$tag.ready")
}
# alive PID: PID exists and is not a zombie.
alive() {
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
  [ -n "$state" ] && [ "$state" != Z ]
}
# stop_load PID: end a vmload started by start_load.
stop_load() { kill -TERM "$1" 2>/dev/null; wait "$1" 2>/dev/null; return 0; }

# check_load WHAT PID CPUS POLICY NODES: the kernel's view of a vmload:
# every thread's Cpus_allowed_list, the buffer's numa_maps policy and pages
# per node ("N1=2048"), and the same pages as move_pages found them.
check_load() {
  check_true "$1: every thread on $3 (threads: $(thread_cpus "$2"))" all_threads_on "$2" "$3"
  addr=$(field addr "$REPORT")
  check_eq "$1: numa_maps policy" "$4" "$(map_policy "$2" "$addr")"
  check_eq "$1: numa_maps pages per node" "$5" "$(node_pages "$2" "$addr")"
  check_eq "$1: move_pages pages per node" "$5" "$(field nodes "$REPORT" | tr ',' ' ')"
}

# Scheduling (scenarios sched_*): a thread's "policy prio" from its
# /proc/PID/task/TID/sched; every thread's, counted ("4 1 79": four
# threads of policy 1 (fifo) at prio 79, that is priority 20).
sched_of() { awk '$1 == "policy" {p = $3} $1 == "prio" {q = $3} END {print p, q}' "/proc/$1/task/$2/sched"; }
all_sched() {
  for t in $(ls "/proc/$1/task"); do sched_of "$1" "$t"; done | sort | uniq -c | awk '{print $1, $2, $3}'
}
# chrt_of TID: util-linux chrt's words for it, "SCHED_FIFO 20", "SCHED_DEADLINE
# 0 2000000/10000000/10000000".
chrt_of() {
  chrt -p "$1" | sed -n 's/.*scheduling policy: //p; s/.*scheduling priority: //p; s/.*parameters: //p' |
    tr '\n' ' ' | sed 's/ $//'
}
# all_chrt PID: chrt_of every thread, counted ("4 SCHED_RR 5").
all_chrt() { for t in $(ls "/proc/$1/task"); do echo "$(chrt_of "$t")"; done | sort | uniq -c | sed 's/^ *//'; }
# snapshot PID: every thread's CPU list and scheduling, one line each (a
# refusal must leave this as it was).
snapshot() {
  for t in $(ls "/proc/$1/task" | sort -n); do
    printf '%s %s %s|' "$t" "$(status_of "$1/task/$t" Cpus_allowed_list)" "$(chrt_of "$t")"
  done
}
# shield_files: the files affix shield changes (affix(1), SHIELD), "PATH:
# CONTENT" one a line, to compare before and after a shield (the CPU lists
# the kernel derives from them too: the root's effective and isolated CPUs,
# the unbound workqueues' cpumask).
shield_files() {
  for f in /sys/fs/cgroup/cgroup.subtree_control /sys/fs/cgroup/cpuset.cpus.isolated \
           /sys/fs/cgroup/cpuset.cpus.effective /sys/devices/virtual/workqueue/cpumask \
           /proc/irq/default_smp_affinity /proc/irq/*/smp_affinity_list; do
    [ -e "$f" ] && printf '%s: %s\n' "$f" "$(cat "$f")"
  done
}
# user_cpus: "PID=LIST" for every process that is no kernel thread (it has a
# command line), but those of the scenario's own shell pipeline ($1 words).
user_cpus() {
  for p in /proc/[0-9]*; do
    [ -s "$p/cmdline" ] || continue
    pid=${p#/proc/}
    case " $1 " in *" $pid "*) continue;; esac
    printf '%s=%s ' "$pid" "$(status_of "$pid" Cpus_allowed_list 2>/dev/null)"
  done | sed 's/ $//'
}
# cpus_of PID...: "PID=LIST" for each.
cpus_of() {
  for pid in "$@"; do printf '%s=%s ' "$pid" "$(status_of "$pid" Cpus_allowed_list)"; done | sed 's/ $//'
}
# wait_until WHAT COMMAND...: until COMMAND succeeds (bounded: 60 s, then a failed check).
wait_until() {
  what=$1; shift
  i=0
  while ! "$@"; do
    i=$((i + 1))
    if [ $i -gt 600 ]; then not_ok "waiting for $what"; return 1; fi
    sleep 0.1
  done
}
