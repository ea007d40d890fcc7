#!/bin/bash
# affix apply --follow (affix(1), APPLY, "Following"), with processes this
# test starts, pinned within this machine's CPUs 0 and 1 only:
# - a process named affix-t1 started after the follower is placed (its
#   CPU list read back from /proc), by exec and by renaming itself;
# - its threads by name (threads = { "gc" = ... });
# - taskset moving it is undone (enforce = true), and the log says so;
# - SIGHUP with a broken file keeps the rules, with a good one takes them;
# - SIGTERM stops it (exit 0) and leaves the placement as it is;
# - without CAP_NET_ADMIN it says so and polls /proc, and still places.
source "$AFFIX_SOURCE_DIR/tests/cli/check_lib.bash"
(( $(nproc) >= 2 )) || { echo "FAIL: needs CPUs 0 and 1"; exit 1; }
tmp=$(mktemp -d /tmp/affix-follow-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
helper=$AFFIX_BUILD_DIR/named_threads

# wait_for SECONDS COMMAND...: until COMMAND succeeds (a bound, not a timed assertion).
wait_for() {
  local end=$((SECONDS + $1)); shift
  until "$@"; do ((SECONDS < end)) || return 1; sleep 0.05; done
}
cpus_of() { awk '/^Cpus_allowed_list/ {print $2}' "/proc/$1/status" 2>/dev/null; }
cpus_is() { [[ $(cpus_of "$1") == "$2" ]]; }
log_has() { grep -qF -- "$2" "$1"; }
tid_named() {  # PID NAME: the thread of PID named NAME
  local t
  for t in /proc/$1/task/*; do [[ $(cat "$t/comm" 2>/dev/null) == "$2" ]] && { echo "${t##*/}"; return; }; done
}

cat >"$tmp/rules.toml" <<'R'
[[rule]]
name = "t1"
comm = "affix-t1"
where = "cpu:1"
enforce = true
threads = { "gc" = "cpu:0" }
R
ln -s /bin/sleep "$tmp/affix-t1"

"$AFFIX" apply --follow "$tmp/rules.toml" 2>"$tmp/log" &
follower=$!
pids+=("$follower")
wait_for 20 log_has "$tmp/log" "following $tmp/rules.toml: 1 rule" || { cat "$tmp/log"; echo "FAIL: follower did not start"; exit 1; }
check "with CAP_NET_ADMIN: the kernel's events" "affix: following $tmp/rules.toml: 1 rule, new processes from the kernel's process events" "$(head -1 "$tmp/log")"

# 1. Exec'd after the follower: placed.
taskset -c 0-1 "$tmp/affix-t1" 300 &
p1=$!
pids+=("$p1")
wait_for 10 cpus_is "$p1" 1
check "exec'd affix-t1 placed on CPU 1" "1" "$(cpus_of "$p1")"
wait_for 5 log_has "$tmp/log" "rule t1: placed $p1 (affix-t1)"
check "the log names it" "rule t1: placed $p1 (affix-t1)" "$(grep -oF "rule t1: placed $p1 (affix-t1)" "$tmp/log")"

# 2. Renamed (prctl PR_SET_NAME, a COMM event) with threads named: the
# process on CPU 1, its gc thread on CPU 0 (the thread rule), worker on 1.
taskset -c 0-1 "$helper" affix-t1 gc worker >"$tmp/nt.out" &
p2=$!
pids+=("$p2")
wait_for 10 grep -q ready "$tmp/nt.out"
gc=$(tid_named "$p2" gc)
worker=$(tid_named "$p2" worker)
wait_for 10 cpus_is "$p2" 1
wait_for 10 eval '[[ $(awk "/^Cpus_allowed_list/ {print \$2}" /proc/$p2/task/$gc/status) == 0 ]]'
check "renamed process placed (main thread)" "1" "$(cpus_of "$p2")"
check "its thread gc by the thread rule" "0" "$(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$p2/task/$gc/status")"
check "its thread worker with the process" "1" "$(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$p2/task/$worker/status")"

# 3. taskset moves it: put back, and the log says what it saw.
taskset -pc 0 "$p1" >/dev/null
wait_for 10 log_has "$tmp/log" "rule t1: $p1 (affix-t1) put back (enforce)"
wait_for 5 cpus_is "$p1" 1
check "moved by taskset, put back" "1" "$(cpus_of "$p1")"
check "the drift logged" \
    "affix: drift: t1: $p1 (affix-t1): cpus 0, not within 1; moved by a process the kernel does not name (no process event reports a change of CPUs, policy or memory policy)" \
    "$(grep -F "drift: t1: $p1 " "$tmp/log" | head -1)"

# 4. SIGHUP: a broken file is refused, the rules in force kept; a good one taken.
cp "$tmp/rules.toml" "$tmp/good.toml"
printf '[[rule]]\nname = "t1"\ncomm = "affix-t1"\nwhere = \n' >"$tmp/rules.toml"
kill -HUP "$follower"
wait_for 10 log_has "$tmp/log" "rules not read again, those in force are kept: $tmp/rules.toml:4:"
check "broken file on SIGHUP: kept" "1" "$(grep -c "rules not read again, those in force are kept: $tmp/rules.toml:4:" "$tmp/log")"
kill -0 "$follower" 2>/dev/null; check "still running" "0" "$?"
sed 's/where = "cpu:1"/where = "cpu:0"/' "$tmp/good.toml" >"$tmp/rules.toml"
kill -HUP "$follower"
wait_for 10 log_has "$tmp/log" "rules read again: 1 rule"
wait_for 10 cpus_is "$p1" 0
check "good file on SIGHUP: the new place" "0" "$(cpus_of "$p1")"

# 5. SIGTERM: exits 0, placements stay.
kill -TERM "$follower"
wait "$follower"
check "SIGTERM: exit status 0" "0" "$?"
check "the last line" "affix: stopped by SIGTERM: placements left as they are" "$(tail -1 "$tmp/log")"
check "placement left as it is" "0" "$(cpus_of "$p1")"
check "thread placement left as it is" "0" "$(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$p2/task/$gc/status")"

# 6. Without CAP_NET_ADMIN: said once, /proc polled, still placed.
cp "$tmp/good.toml" "$tmp/rules.toml"
setpriv --inh-caps=-net_admin --bounding-set=-net_admin "$AFFIX" apply --follow "$tmp/rules.toml" 2>"$tmp/log2" &
poller=$!
pids+=("$poller")
wait_for 20 log_has "$tmp/log2" "following $tmp/rules.toml"
check_match "without CAP_NET_ADMIN: says so and polls" \
    "affix: following $tmp/rules.toml: 1 rule; no process events (*CAP_NET_ADMIN*): scanning /proc every 1000 ms instead" \
    "$(head -1 "$tmp/log2")"
taskset -c 0 "$tmp/affix-t1" 300 &
p3=$!
pids+=("$p3")
wait_for 15 cpus_is "$p3" 1
check "polling: placed" "1" "$(cpus_of "$p3")"
kill -INT "$poller"
wait "$poller"
check "SIGINT: exit status 0" "0" "$?"
check "SIGINT: said" "affix: stopped by SIGINT: placements left as they are" "$(tail -1 "$tmp/log2")"

# 7. Usage errors.
out=$("$AFFIX" apply --follow --check "$tmp/rules.toml" 2>&1); rc=$?
check "--follow --check: exit 2" "2" "$rc"
check "--follow --check: message" "affix: error: --follow cannot be used with --check" "$(head -1 <<<"$out")"
out=$("$AFFIX" apply --metrics 127.0.0.1:1 "$tmp/rules.toml" 2>&1); rc=$?
check "--metrics alone: exit 2" "2" "$rc"
check "--metrics alone: message" "affix: error: --metrics needs --follow (ADDR:PORT) or --check (FILE)" "$(head -1 <<<"$out")"
out=$("$AFFIX" apply --follow --metrics localhost:80 "$tmp/rules.toml" 2>&1); rc=$?
check "--metrics not ADDR:PORT: exit 2" "2" "$rc"
check "--metrics not ADDR:PORT: message" "affix: error: --metrics: 'localhost:80' is not ADDR:PORT (not an IPv4 address)" "$(head -1 <<<"$out")"
exit $fail
