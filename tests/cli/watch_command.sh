#!/usr/bin/env bash
# affix watch -- COMMAND: the command and every process it makes are
# watched from before it runs to its end; the summary goes to stderr (its
# stdout stays the command's, byte for byte); affix exits with the command's
# status (128+N for signal N, 126/127 where it cannot be started).
# affix watch --tree PID: the descendants that appear during the watch.
. "$(dirname "$0")/check_lib.bash"
tmp=$(mktemp -d "$AFFIX_BUILD_DIR/watch_command.XXXXXX")  # not /tmp: in one run here a /tmp/tmp.* directory vanished mid-test
helper="$AFFIX_BUILD_DIR/watch_family"
bg=""
# The shell's own exit only (a background job killed before its exec would run it too).
trap '[[ $BASHPID == $$ ]] || exit; [[ -n $bg ]] && kill $bg 2>/dev/null; rm -rf "$tmp"' EXIT
py=/usr/bin/python3

# What the summary (the last JSON line) says of PID: "cpu_ms threads", or "absent".
of_pid() {  # FILE PID
  "$py" - "$1" "$2" <<'PY'
import json, sys
last = [l for l in open(sys.argv[1]) if l.startswith('{"summary"')][-1]
for p in json.loads(last)["summary"]["processes"]:
    if p["pid"] == int(sys.argv[2]):
        print(p["cpu_ms"], p["threads"]); break
else:
    print("absent")
PY
}

# The command: a parent spinning 300 ms on a thread, a child spinning 2 x 300 ms.
# Up to 60 ms of each may go uncounted: in sampled mode a thread's time after
# the last reading before its exit is its process's, which is reported
# beyond 2 clock ticks and 5 ms (affix(1), WATCH).
"$AFFIX" watch --json -i 0.2 -- "$helper" command "$tmp/pids" >"$tmp/out" 2>"$tmp/err"
check "exit status of the command" 7 "$?"
read -r parent child <"$tmp/pids"
"$helper" command "$tmp/pids2" >"$tmp/plain"
check "stdout untouched" same "$(cmp -s "$tmp/out" "$tmp/plain" && echo same || echo differs)"
read -r cpu threads <<<"$(of_pid "$tmp/err" "$parent")"
check "parent: 2 threads" 2 "$threads"
check "parent: >= 240 ms CPU" yes "$( ((cpu >= 240 && cpu < 2000)) && echo yes || echo "no ($cpu ms)")"
read -r cpu threads <<<"$(of_pid "$tmp/err" "$child")"
check "child: 3 threads" 3 "$threads"
check "child: >= 540 ms CPU" yes "$( ((cpu >= 540 && cpu < 4000)) && echo yes || echo "no ($cpu ms)")"
check "summary names the command's status" "{\"pid\": $parent, \"status\": 7}" \
  "$("$py" -c 'import json,sys; l=[x for x in open(sys.argv[1]) if x.startswith("{\"summary\"")][-1]; print(json.dumps(json.loads(l)["summary"]["command"]))' "$tmp/err")"

# Text, without -i: the summary alone, both processes listed.
"$AFFIX" watch -- "$helper" command "$tmp/pids" >/dev/null 2>"$tmp/err"
check "text: exit status" 7 "$?"
read -r parent child <"$tmp/pids"
check_match "text: the summary only" "summary of *" "$(head -1 "$tmp/err")"
check "text: parent listed" 1 "$(grep -c "^ *$parent watch_family " "$tmp/err")"
check "text: child listed" 1 "$(grep -c "^ *$child watch_family " "$tmp/err")"
check "text: the command's status" "the command (PID $parent) ended with exit status 7" "$(tail -1 "$tmp/err")"

# Without -i, as nobody (where kernel.perf_event_paranoid >= 2: sampled,
# one unprinted sample at each look for descendants): the same figures.
nobody=$(mktemp -d /tmp/affix-watch-XXXXXX)
chmod 777 "$nobody"
cp "$helper" "$nobody/watch_family"
cp "$AFFIX" "$nobody/affix"
chmod 755 "$nobody/watch_family" "$nobody/affix"
as=()
[[ $(id -u) == 0 ]] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
(cd "$nobody" && "${as[@]}" ./affix watch --json -- ./watch_family command "$nobody/pids" >/dev/null 2>"$nobody/err")
check "as nobody: exit status" 7 "$?"
read -r parent child <"$nobody/pids"
read -r cpu threads <<<"$(of_pid "$nobody/err" "$parent")"
check "as nobody: parent >= 240 ms CPU" yes "$( ((cpu >= 240 && cpu < 2000)) && echo yes || echo "no ($cpu ms)")"
read -r cpu threads <<<"$(of_pid "$nobody/err" "$child")"
check "as nobody: child >= 540 ms CPU" yes "$( ((cpu >= 540 && cpu < 4000)) && echo yes || echo "no ($cpu ms)")"
rm -rf "$nobody"

# Statuses as `run` gives them.
"$AFFIX" watch -- no-such-command-affix >/dev/null 2>"$tmp/err"
check "not found" 127 "$?"
check "not found msg" "affix: error: command not found: 'no-such-command-affix'" "$(cat "$tmp/err")"
printf 'not a program\n' >"$tmp/noexec"
"$AFFIX" watch -- "$tmp/noexec" >/dev/null 2>"$tmp/err"
check "not executable" 126 "$?"
check "not executable msg" "affix: error: cannot execute '$tmp/noexec': Permission denied" "$(cat "$tmp/err")"
"$AFFIX" watch -- sh -c 'kill -TERM $$' >/dev/null 2>"$tmp/err"
check "killed by SIGTERM" 143 "$?"
check "SIGTERM: summary" "the command (PID *) ended with exit status 143" "$(tail -1 "$tmp/err" | sed 's/PID [0-9]*/PID */')"

# SIGINT and SIGTERM sent to affix go on to the command; the summary
# follows its end. (A background job starts with SIGINT ignored: the
# command takes it back to its default.)
for sig in INT TERM; do
  rm -f "$tmp/up"  # the last one's "up" is no sign that this one is up
  "$AFFIX" watch -- "$py" -c 'import signal, time; signal.signal(signal.SIGINT, signal.SIG_DFL); print("up", flush=True); time.sleep(30)' >"$tmp/up" 2>"$tmp/err" &
  watcher=$!
  for _ in $(seq 200); do [[ -s $tmp/up ]] && break; sleep 0.05; done
  kill -"$sig" "$watcher"
  wait "$watcher"
  status=$?
  want=$((128 + $(kill -l "$sig")))
  check "SIG$sig passed on: the command died of it" "$want" "$status"
  check "SIG$sig: summary" "the command (PID *) ended with exit status $want" "$(tail -1 "$tmp/err" | sed 's/PID [0-9]*/PID */')"
done

# Usage.
"$AFFIX" watch 1 -- true >/dev/null 2>"$tmp/err"
check "PIDs and a command" 2 "$?"
check "PIDs and a command msg" "affix: error: PIDs and a command cannot be watched together" "$(head -1 "$tmp/err")"
"$AFFIX" watch -- >/dev/null 2>"$tmp/err"
check "no command" 2 "$?"
check "no command msg" "affix: error: no command given after '--'" "$(head -1 "$tmp/err")"
"$AFFIX" watch --tree >/dev/null 2>"$tmp/err"
check "--tree without a PID" 2 "$?"

# --tree PID: a child forked 0.5 s into the watch is in the report.
"$helper" tree "$tmp/tree" &
bg=$!
for _ in $(seq 100); do [[ -s $tmp/tree ]] && break; sleep 0.05; done
"$AFFIX" watch --tree --json -i 0.2 -c 15 "$bg" >"$tmp/tree_out" 2>"$tmp/tree_err"
check "tree: exit 0" 0 "$?"
read -r parent child <"$tmp/tree"
check "tree: the helper's PID" "$bg" "$parent"
check "tree: a child was forked" yes "$([[ -n ${child:-} ]] && echo yes || echo no)"
read -r cpu threads <<<"$(of_pid "$tmp/tree_out" "${child:-0}")"
check "tree: child listed with 3 threads" 3 "$threads"
check "tree: child >= 540 ms CPU" yes "$( ((cpu >= 540 && cpu < 4000)) && echo yes || echo "no ($cpu ms)")"
kill "$bg"
bg=""
exit $fail
