# Shared by tests/cli/pin_*.sh and show_*.sh (not a test itself: not *.sh).
# Helpers are started by the tests themselves and killed on exit; only they
# are ever moved.
. "$(dirname "$0")/check_lib.bash"
HELPERS="$AFFIX_BUILD_DIR"
tmp=$(mktemp -d)
chmod 755 "$tmp"
started=()
# is_ours PID: PID is a descendant of this test's shell. Only those are
# killed: a helper that is gone may have its PID handed to another test's
# process already (tests run in parallel; pin_churn creates tens of
# thousands of threads a second, and pid_max may be 32768).
is_ours() {
  local p=$1 i stat
  for ((i = 0; i < 64 && p > 1; i++)); do
    stat=$(cat "/proc/$p/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    set -- $stat
    p=$2
    [[ $p == "$$" ]] && return 0
  done
  return 1
}
cleanup() {
  local p ours=()
  for p in "${started[@]}"; do is_ours "$p" && ours+=("$p"); done  # all before any is killed
  for p in "${ours[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for p in "${started[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT


# start NAME HELPER ARGS...: runs a helper in the background, waits for its
# "ready" line, sets PID. Where START_CGROUP names a cgroup directory, the
# helper starts inside it (it joins before its exec, so every thread is there).
start() {
  local name=$1; shift
  if [[ -n ${START_CGROUP:-} ]]; then
    sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$START_CGROUP" "$HELPERS/$1" "${@:2}" > "$tmp/$name.out" &
  else
    "$HELPERS/$1" "${@:2}" > "$tmp/$name.out" &
  fi
  PID=$!
  started+=("$PID")
  local i=0
  until grep -q ready "$tmp/$name.out" 2>/dev/null; do
    sleep 0.05; i=$((i + 1))
    if [[ $i -gt 600 ]]; then echo "FAIL: $name never got ready"; exit 1; fi
  done
}
stop() { if is_ours "$1"; then kill -KILL "$1" 2>/dev/null; fi; wait "$1" 2>/dev/null; }

# own_cpuset: makes a cpuset cgroup of the test's own, with the CPUs and
# memory nodes the test may use, and sets START_CGROUP to it (removed on
# exit). cgroup v1's cpuset hierarchy, else cgroup v2 where the cpuset
# controller is already enabled for the test's cgroup's children; nothing
# (START_CGROUP empty) where neither is there.
own_cpuset() {
  local parent cg
  START_CGROUP=
  if [[ -d /sys/fs/cgroup/cpuset ]]; then
    parent=/sys/fs/cgroup/cpuset$(awk -F: '$2 ~ /(^|,)cpuset(,|$)/ {print $3}' /proc/self/cgroup)
    cg=$parent/affix-test-$$
    mkdir "$cg" || return
    cat "$parent/cpuset.cpus" > "$cg/cpuset.cpus" && cat "$parent/cpuset.mems" > "$cg/cpuset.mems" || return
  else
    parent=/sys/fs/cgroup$(awk -F: '$1 == 0 {print $3}' /proc/self/cgroup)
    grep -qw cpuset "$parent/cgroup.subtree_control" 2>/dev/null || return
    cg=$parent/affix-test-$$
    mkdir "$cg" || return
  fi
  START_CGROUP=$cg
  trap 'cleanup; rmdir "$START_CGROUP" 2>/dev/null' EXIT
}

# Each thread's CPU list, counted, by list: "1 1 1999 0-1".
thread_lists() {  # PID
  cat /proc/$1/task/*/status 2>/dev/null | awk '/^Cpus_allowed_list:/ {print $2}' | sort | uniq -c |
    awk '{print $1, $2}' | sort -k2 | tr '\n' ' ' | sed 's/ $//'
}
# "TID LIST" per thread, ascending TID.
# Through cat: a thread that exits between the glob and the read is skipped
# there, where awk (mawk) would stop at it.
tid_lists() {  # PID
  cat /proc/$1/task/*/status 2>/dev/null | awk '/^Pid:/ {tid = $2} /^Cpus_allowed_list:/ {print tid, $2}' |
    sort -n
}

# The POLICY cell show prints for thread TID of PID, from its own
# /proc/PID/task/TID/sched: the policy of a test's process (other, batch or
# idle; nice where not 0) and, where the kernel reports it, the EEVDF slice
# in show's words (1400000 -> "1.4ms").
policy_cell() {  # PID TID
  awk '$1 == "policy" {p = $3} $1 == "prio" {q = $3} $1 == "se.slice" {s = $3}
    END {
      name = p == 0 ? "other" : p == 3 ? "batch" : p == 5 ? "idle" : "?"
      out = name
      if (p != 5 && q != 120) out = out " nice " (q - 120)
      if (s != "" && p != 5) {
        if (s % 1000000 == 0) u = sprintf("%dms", s / 1000000)
        else if (s >= 1000000) { u = sprintf("%.3f", s / 1000000); sub(/0+$/, "", u); u = u "ms" }
        else if (s % 1000 == 0) u = sprintf("%dus", s / 1000)
        else u = s "ns"
        out = out " slice " u
      }
      print out
    }' "/proc/$1/task/$2/sched"
}

# run_affix ARGS...: sets OUT, ERR, RC.
run_affix() {
  "$AFFIX" "$@" > "$tmp/out" 2> "$tmp/err"
  RC=$?
  OUT=$(cat "$tmp/out")
  ERR=$(cat "$tmp/err")
}

finish() {
  [[ $fail -eq 0 ]] && echo "PASS" || echo "FAILED"
  exit $fail
}
