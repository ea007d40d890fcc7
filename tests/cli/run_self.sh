#!/usr/bin/env bash
# `self` and selection rule 5 under a launcher that narrowed affix
# (taskset -c 1): self keeps to CPU 1; all widens to 0-1 and warns once, on
# stderr, with the man page's text; explain lists the same warning; nothing
# narrowed, no warning.
. "$(dirname "$0")/check_lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
warning="affix: warning: CPUs 0 are outside the CPUs affix was started on (1); 'self' keeps to those"

# self: what taskset gave.
out=$(taskset -c 1 "$AFFIX" self sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2' 2>"$tmp/err")
check "self under taskset -c 1" 1 "$out"
check "self: no warning" "" "$(cat "$tmp/err")"
out=$(taskset -c 1 "$AFFIX" self.core:0 sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2' 2>/dev/null)
check "self.core:0 under taskset -c 1" 1 "$out"
out=$(OMPI_COMM_WORLD_LOCAL_RANK=0 OMPI_COMM_WORLD_LOCAL_SIZE=1 taskset -c 1 "$AFFIX" --slice rank self \
      sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2' 2>/dev/null)
check "--slice rank self under taskset -c 1" 1 "$out"
out=$(taskset -c 0-1 "$AFFIX" self sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2' 2>/dev/null)
check "self under taskset -c 0-1" 0-1 "$out"
check "self.core:1 beyond what taskset gave" \
  "affix: error: no core 1 in self (cores: 0)" "$(taskset -c 1 "$AFFIX" self.core:1 true 2>&1)"

# all: does what was asked, warns once on stderr.
out=$(taskset -c 1 "$AFFIX" all sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2' 2>"$tmp/err")
check "all under taskset -c 1 widens" 0-1 "$out"
check "all under taskset -c 1 warns once" "$warning" "$(cat "$tmp/err")"
out=$(taskset -c 1 "$AFFIX" 0 true 2>&1)
check "cpu 0 under taskset -c 1 warns" "$warning" "$out"
check "-v: the warning once, then the placement" "$warning
affix: bind to CPUs 0-1 (2 CPUs; socket 0; node 0)
affix: exec: true" "$(taskset -c 1 "$AFFIX" -v all true 2>&1)"
check "--dry-run: the warning once on stderr" "$warning" "$(taskset -c 1 "$AFFIX" --dry-run all true 2>&1 >/dev/null)"
check "--dry-run: not on stdout" "affix: would bind to CPUs 0-1 (2 CPUs; socket 0; node 0)
affix: would exec: true" "$(taskset -c 1 "$AFFIX" --dry-run all true 2>/dev/null)"

# No warning where nothing narrowed affix, or the placement stays inside.
check "all, not narrowed: no warning" "" "$(taskset -c 0-1 "$AFFIX" all true 2>&1)"
check "all, no taskset: no warning" "" "$("$AFFIX" all true 2>&1)"
check "1 under taskset -c 1: no warning" "" "$(taskset -c 1 "$AFFIX" 1 true 2>&1)"

# explain lists it, in text and JSON.
out=$(taskset -c 1 "$AFFIX" explain all 2>&1)
check_match "explain text: self line" "*
self      CPUs 1 (affix was started on these)
*" "$out"
check_match "explain text: warning line" "*
warning   CPUs 0 are outside the CPUs affix was started on (1); 'self' keeps to those" "$out"
out=$(taskset -c 1 "$AFFIX" explain all --json 2>&1)
check_match "explain json: self" '*"self": "1", "mem": null*' "$out"
check_match "explain json: warning" "*\"warnings\": \\[\"CPUs 0 are outside the CPUs affix was started on (1); 'self' keeps to those\"\\]}" "$out"
check_match "explain json, not narrowed: no warning" '*"self": "0-1"*"warnings": []}' "$("$AFFIX" explain all --json)"

# pin: self is affix's own, whoever the target is; pin prints no such warning.
sleep 60 &
sleeper=$!
taskset -p -c 0-1 "$sleeper" >/dev/null
check "pin self under taskset -c 1" "$sleeper: 1 thread on CPUs 1 (1 moved)" "$(taskset -c 1 "$AFFIX" pin self "$sleeper" 2>&1)"
check "the target is on self" 1 "$(grep Cpus_allowed_list /proc/$sleeper/status | cut -f2)"
check "pin all under taskset -c 1: no warning" "$sleeper: 1 thread on CPUs 0-1 (1 moved)" "$(taskset -c 1 "$AFFIX" pin all "$sleeper" 2>&1)"
check "the target is on all" 0-1 "$(grep Cpus_allowed_list /proc/$sleeper/status | cut -f2)"
kill "$sleeper"
wait "$sleeper" 2>/dev/null
exit $fail
