#!/usr/bin/env bash
# `affix apply FILE` on a process the test starts: a copy of the
# named_threads helper called affix-a1 (its comm, and an exe path no other
# test's process has; not affix-t1, which the follower's tests and
# benchmark, running beside this one, place machine-wide), with threads named gc and net0. A rule places it
# (every thread's Cpus_allowed_list read back), its gc thread by name, with
# nice; --check exits 1 naming it before and 0 after, and 1 again once
# taskset has moved it; --dry-run changes nothing; --json is valid; a file
# with an error is refused whole (exit 2, FILE:LINE:COL, nothing applied).
. "$(dirname "$0")/pin_lib.bash"

cp "$AFFIX_BUILD_DIR/named_threads" "$tmp/affix-a1"
HELPERS=$tmp start t1 affix-a1 affix-a1 gc net0
HELPERS="$AFFIX_BUILD_DIR"
T1=$PID
tids=($(ls /proc/$T1/task | sort -n))
GC=${tids[1]}
NET=${tids[2]}
check "the helper's threads are named" "affix-a1 gc net0" \
  "$(cat /proc/$T1/task/$T1/comm /proc/$T1/task/$GC/comm /proc/$T1/task/$NET/comm | tr '\n' ' ' | sed 's/ $//')"

cat > "$tmp/rules.toml" <<EOF
# affix-a1 of this test only: its exe is in the test's own directory.
[[rule]]
name = "t1"
comm = "affix-a1"
exe = "$tmp/affix-a1"
where = "cpu:0"
nice = 5
threads = { "gc" = "cpu:1" }

[[rule]]
name = "t1-again"
exe = "$tmp/affix-a1"
where = "cpu:1"

[[rule]]
name = "nobody"
comm = "affix-none"
exe = "$tmp/none"
where = "cpu:1"
EOF

# Each thread's list, in TID order.
lists() { for t in $T1 $GC $NET; do sed -n 's/^Cpus_allowed_list:\t//p' /proc/$T1/task/$t/status; done | tr '\n' ' ' | sed 's/ $//'; }
nices() { for t in $T1 $GC $NET; do awk '{ sub(/.*\) /, ""); print $17 }' /proc/$T1/task/$t/stat; done | tr '\n' ' ' | sed 's/ $//'; }

check "to start: every thread on 0-1" "0-1 0-1 0-1" "$(lists)"
N0=$(nices | cut -d' ' -f1)  # the nice the test runs at (ctest may run under nice)
[[ $N0 == 5 ]] && { echo "FAIL: the test runs at nice 5, the rule's"; exit 1; }

run_affix apply --check "$tmp/rules.toml"
check "--check before: exit 1" 1 "$RC"
check "--check before: one line per difference" \
"t1: $T1 (affix-a1): cpus 0-1, not within 0
t1: $T1 (affix-a1): policy other, nice $N0 (asked: nice 5)
t1: $GC (gc) of $T1 (affix-a1): cpus 0-1, not within 1
t1: $GC (gc) of $T1 (affix-a1): policy other, nice $N0 (asked: nice 5)
t1: $NET (net0) of $T1 (affix-a1): cpus 0-1, not within 0
t1: $NET (net0) of $T1 (affix-a1): policy other, nice $N0 (asked: nice 5)
t1: $T1 (affix-a1) also matches rule t1-again (the first rule wins)
rule t1-again: no process of its own (1 process it matches went to an earlier rule)
rule nobody: matched nothing
1 process checked: 6 differences" "$OUT"

run_affix apply --dry-run "$tmp/rules.toml"
check "--dry-run: exit 0" 0 "$RC"
# (A kernel with EEVDF slices shows each thread's: "other slice 1.4ms".)
check_match "--dry-run: what it would do" \
"rule t1: 1 process
  $T1: 3 threads on CPUs 0, nice 5 (3 would change)
    thread $T1 (affix-a1): 0-1 -> 0, other* -> other nice 5*
    thread $GC (gc): 0-1 -> 0, other* -> other nice 5*
    thread $NET (net0): 0-1 -> 0, other* -> other nice 5*
  $GC: 1 thread on CPUs 1 (1 would move)
    thread $GC (gc): 0-1 -> 1
  $T1 (affix-a1) also matches rule t1-again (the first rule wins)
rule t1-again: no process of its own (1 process it matches went to an earlier rule)
rule nobody: matched nothing" "$OUT"
check "--dry-run: nothing moved" "0-1 0-1 0-1" "$(lists)"
check "--dry-run: nice unchanged" "$N0 $N0 $N0" "$(nices)"

run_affix apply "$tmp/rules.toml"
check "apply: exit 0" 0 "$RC"
check "apply: what it did" \
"rule t1: 1 process
  $T1: 3 threads on CPUs 0, nice 5 (3 changed)
  $GC: 1 thread on CPUs 1 (1 moved)
  $T1 (affix-a1) also matches rule t1-again (the first rule wins)
rule t1-again: no process of its own (1 process it matches went to an earlier rule)
rule nobody: matched nothing" "$OUT"
check "apply: no message" "" "$ERR"
check "apply: main and net0 on 0, gc on 1" "0 1 0" "$(lists)"
check "apply: every thread nice 5" "5 5 5" "$(nices)"

run_affix apply --check "$tmp/rules.toml"
check "--check after: exit 0" 0 "$RC"
check "--check after: says the second rule lost" \
"t1: $T1 (affix-a1) also matches rule t1-again (the first rule wins)
rule t1-again: no process of its own (1 process it matches went to an earlier rule)
rule nobody: matched nothing
1 process checked: everything where the rules say" "$OUT"

# Applying again changes nothing.
run_affix apply "$tmp/rules.toml"
check "apply again: nothing to change" "rule t1: 1 process
  $T1: 3 threads where the rule says (nothing to change)
  $T1 (affix-a1) also matches rule t1-again (the first rule wins)
rule t1-again: no process of its own (1 process it matches went to an earlier rule)
rule nobody: matched nothing" "$OUT"
check "apply again: still in place" "0 1 0" "$(lists)"
run_affix apply --json "$tmp/rules.toml"
check "apply --json: exit 0" 0 "$RC"
check "apply --json: valid, already placed" "true already 3 0 t1-again" \
  "$(echo "$OUT" | jq -r '"\(.ok) \(.rules[0].processes[0].status) \(.rules[0].processes[0].threads) \(.rules[0].processes[0].threads_changed) \(.rules[0].processes[0].also_matches[0])"')"
check "apply --json: unmatched rules" "false false" "$(echo "$OUT" | jq -r '"\(.rules[1].matched) \(.rules[2].matched)"')"

# Someone else moves it: the check sees it again.
taskset -pc 0-1 $T1 > /dev/null
run_affix apply --check "$tmp/rules.toml"
check "--check after taskset: exit 1" 1 "$RC"
check "--check after taskset: the main thread" "t1: $T1 (affix-a1): cpus 0-1, not within 0" "$(echo "$OUT" | head -1)"
check "--check after taskset: one difference" "1 process checked: 1 difference" "$(echo "$OUT" | tail -1)"
run_affix apply --check --json "$tmp/rules.toml"
check "--check --json: exit 1" 1 "$RC"
check "--check --json: the difference" "false cpus $T1 $T1 t1 t1-again" \
  "$(echo "$OUT" | jq -r '"\(.ok) \(.differences[0].kind) \(.differences[0].pid) \(.differences[0].tid) \(.differences[0].rule) \(.unmatched[0])"')"
check "--check --json: one difference, one process" "1 1 $T1" \
  "$(echo "$OUT" | jq -r '"\(.differences | length) \(.processes | length) \(.processes[0].pid)"')"

# A file with an error is refused whole: the first rule, fine, is not applied.
cat > "$tmp/bad.toml" <<EOF
[[rule]]
name = "t1"
exe = "$tmp/affix-a1"
where = "cpu:0"

[[rule]]
name = "bad"
exe = "$tmp/affix-a1"
where = "cpu:1"
threads = { "gc" = 1 }
EOF
run_affix apply "$tmp/bad.toml"
check "bad file: exit 2" 2 "$RC"
check "bad file: FILE:LINE:COL" "affix: error: $tmp/bad.toml:10:20: 'threads.gc' must be a string, not an integer" "$ERR"
check "bad file: nothing applied" "0-1 1 0" "$(lists)"
check "bad file: no output" "" "$OUT"

printf '[[rule]]\nname = "t1"\nexe = "%s"\nwhere = "cpu:0"\n\n[[rule]]\nname = "far"\nexe = "%s"\nwhere = "cpu:2"\n' \
  "$tmp/affix-a1" "$tmp/affix-a1" > "$tmp/far.toml"
run_affix apply "$tmp/far.toml"
check "a CPU this machine lacks: exit 2" 2 "$RC"
check_match "a CPU this machine lacks: FILE:LINE:COL" "affix: error: $tmp/far.toml:9:9: *cpu 2*" "$ERR"
check "a CPU this machine lacks: nothing applied" "0-1 1 0" "$(lists)"

run_affix apply "$tmp/none.toml"
check "no such file: exit 1" 1 "$RC"
check "no such file: the error" "affix: error: cannot read $tmp/none.toml: No such file or directory" "$ERR"
run_affix apply
check "no file: exit 2" 2 "$RC"
check "no file: the error" "affix: error: apply needs a rules FILE
affix: hint: usage: affix apply [--dry-run] [--json] FILE" "$ERR"
run_affix apply --check --dry-run "$tmp/rules.toml"
check "--check with --dry-run: exit 2" 2 "$RC"

exit $fail
