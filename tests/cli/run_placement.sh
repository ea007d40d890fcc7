#!/usr/bin/env bash
# affix run end to end on this machine (CPUs 0-1, node 0): the child reads
# its own /proc/self/status and /proc/self/numa_maps.
. "$(dirname "$0")/check_lib.bash"
probe="$AFFIX_BUILD_DIR/probe_placement"
field() { grep "^$1: " | sed "s/^$1: //"; }

# CPU lists
check "cpu 0" "0" "$("$AFFIX" 0 "$probe" | field Cpus_allowed_list)"
check "cpu 1" "1" "$("$AFFIX" cpu:1 "$probe" | field Cpus_allowed_list)"
check "0-1" "0-1" "$("$AFFIX" 0-1 "$probe" | field Cpus_allowed_list)"
check "all" "0-1" "$("$AFFIX" all "$probe" | field Cpus_allowed_list)"
check "union" "0-1" "$("$AFFIX" cpu:1+cpu:0 "$probe" | field Cpus_allowed_list)"
check "run spelled out" "1" "$("$AFFIX" run 1 "$probe" | field Cpus_allowed_list)"
check "socket:0" "0-1" "$("$AFFIX" socket:0 "$probe" | field Cpus_allowed_list)"
check "node:0.core:1" "1" "$("$AFFIX" node:0.core:1 "$probe" | field Cpus_allowed_list)"
check "--no-smt all" "0-1" "$("$AFFIX" --no-smt all "$probe" | field Cpus_allowed_list)"
check "-n 1" "0" "$("$AFFIX" -n 1 all "$probe" | field Cpus_allowed_list)"
check "--exclude" "1" "$("$AFFIX" all --exclude 0 "$probe" | field Cpus_allowed_list)"
check "--slice 1/2" "1" "$("$AFFIX" --slice 1/2 all "$probe" | field Cpus_allowed_list)"
check "--slice 0/2" "0" "$("$AFFIX" --slice 0/2 all "$probe" | field Cpus_allowed_list)"
# Starting from a narrower affinity: affix widens to what the cpuset allows.
check "from taskset -c 0" "0-1" "$(taskset -c 0 "$AFFIX" all "$probe" | field Cpus_allowed_list)"

# Memory: nodes and policies, as numa_maps shows them for a touched allocation.
out=$("$AFFIX" -m bind 0 "$probe")
check "bind mems" "0" "$(field Mems_allowed_list <<<"$out")"
check "bind policy" "bind:0" "$(field policy <<<"$out")"
check "bind:0 policy" "bind:0" "$("$AFFIX" --mem bind:0 all "$probe" | field policy)"
check "preferred policy" "prefer:0" "$("$AFFIX" --mem=preferred 1 "$probe" | field policy)"
check "interleave policy" "interleave:0" "$("$AFFIX" -m interleave:0 all "$probe" | field policy)"
check "local policy" "local" "$("$AFFIX" -mlocal all "$probe" | field policy)"
check "no --mem leaves the policy" "default" "$("$AFFIX" all "$probe" | field policy)"
check "no --mem, inherited" "interleave:0" \
  "$(numactl --interleave=0 "$AFFIX" all "$probe" | field policy)"

# -v: the placement on stderr, the command's output untouched on stdout.
err=$("$AFFIX" -v -m bind 1 "$probe" 2>&1 >/dev/null)
check "-v stderr" "affix: set memory policy bind on node 0
affix: bind to CPUs 1 (1 CPU; socket 0; node 0)
affix: exec: $probe" "$err"
check "-v stdout" "1" "$("$AFFIX" -v 1 "$probe" 2>/dev/null | field Cpus_allowed_list)"

# exec, no fork: the command has affix's PID.
check "exec keeps the pid" "yes" "$(bash -c 'pid=$$; exec "$0" 0 sh -c "[ \$PPID = \$(cut -d\" \" -f4 /proc/\$\$/stat) ] && [ \$\$ = $pid ] && echo yes"' "$AFFIX")"

exit $fail
