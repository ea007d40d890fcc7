#!/usr/bin/env bash
# affix topo for people: compact (a 256-CPU machine fits on a screen), with
# memory, distances, the allowed set and its source, isolated CPUs, kinds.
set -u
fail=0
check() {  # check NAME TEXT PATTERN: the text holds a line equal to PATTERN
  if ! grep -qxF -- "$3" <<<"$2"; then echo "FAIL: $1: no line '$3'"; echo "$2"; fail=1; fi
}
out=$("$AFFIX" topo --root "$AFFIX_CORPORA_DIR/256ia64-64n2s2c") || { echo "FAIL: exit $?"; fail=1; }
lines=$(wc -l <<<"$out")
[ "$lines" -le 40 ] || { echo "FAIL: 256ia64 takes $lines lines"; fail=1; }
check 256ia64 "$out" "machine    256 CPUs (256 online), 128 sockets, 64 nodes, 256 cores, SMT 1"
check 256ia64 "$out" "allowed    cpus 0-255, nodes 0-63 (from all-online)"
check 256ia64 "$out" "node 1 .. node 63            cpus 4-255  (63 more like node 0)"
check 256ia64 "$out" "  socket 3                   cpus 2-3  cores 2-3"

out=$("$AFFIX" topo --root "$AFFIX_SOURCE_DIR/tests/data/roots/hybrid")
check hybrid "$out" "kinds      performance 0-1, efficiency 2-3"
check hybrid "$out" "isolated   3"
check hybrid "$out" "allowed    cpus 0-2, nodes 0 (from status:/proc/self/status)"
check hybrid "$out" "socket 0 / node 0            cpus 0-3  cores 0-3  mem 2.0 GiB (1.0 GiB free)"
json=$("$AFFIX" topo --json --root "$AFFIX_SOURCE_DIR/tests/data/roots/hybrid")
case "$json" in *'"cpu": 1, "online": true, "allowed": true, "socket": 0, "die": null, "node": 0, "llc": null, "core": 1, "thread": 0, "siblings": "1", "kind": "performance"'*) ;;
  *) echo "FAIL: hybrid json: $json"; fail=1 ;; esac
case "$json" in *'"cpu": 3, "online": true, "allowed": false,'*'"kind": "efficiency"'*) ;; *) echo "FAIL: hybrid json cpu3"; fail=1 ;; esac
case "$json" in *'"allowed": {"cpus": "0-2", "nodes": "0", "source": "status:/proc/self/status"}, "online": "0-3", "isolated": "3", "smt": 1'*) ;;
  *) echo "FAIL: hybrid json tail: $json"; fail=1 ;; esac

out=$("$AFFIX" topo --root "$AFFIX_CORPORA_DIR/16em64t-4s2c2t-offlines")
check offlines "$out" "offline    2,5,13-14"
check offlines "$out" "  socket 1 / llc 1           cpus 1,9  cores 2 x2"
out=$("$AFFIX" topo --root "$AFFIX_CORPORA_DIR/64amd64-4s2n4ca2co")
check distances "$out" "distances    0    1    2    3    4    5    6    7"
check distances "$out" "  node 5     22   22   16   16   16   10   22   16"
out=$("$AFFIX" topo --root "$AFFIX_CORPORA_DIR/fakeheterocpunuma")
check cpuless "$out" "node 2                       no CPUs  mem 1.0 GiB"

# This machine: text and JSON both succeed; JSON names the allowed source.
"$AFFIX" topo >/dev/null || { echo "FAIL: topo on this machine"; fail=1; }
json=$("$AFFIX" topo --json) || { echo "FAIL: topo --json on this machine"; fail=1; }
case "$json" in *'"source": "'*) ;; *) echo "FAIL: no allowed source"; fail=1 ;; esac
exit $fail
