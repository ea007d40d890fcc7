#!/usr/bin/env bash
# `topo --json` of every captured machine, byte for byte: the SHA-256 of
# each document is in tests/data/topo_json.sha256. A change to what topo
# reads or prints shows here as the names of the machines whose document
# changed; one that is meant updates the file (the command is below).
#   for d in build-test/corpora/*/; do n=$(basename "$d");
#     echo "$(build-test/affix topo --json --root "$d" | sha256sum | cut -d' ' -f1)  $n"; done \
#     > tests/data/topo_json.sha256
set -u
fail=0 seen=0
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
expected="$AFFIX_SOURCE_DIR/tests/data/topo_json.sha256"
while read -r hash name; do
  seen=$((seen + 1))
  dir="$AFFIX_CORPORA_DIR/$name"
  if [ ! -d "$dir" ]; then echo "FAIL: $name: no capture at $dir"; fail=1; continue; fi
  "$AFFIX" topo --json --root "$dir" > "$tmp" || { echo "FAIL: $name: topo --json exit $?"; fail=1; }
  got=$(sha256sum < "$tmp" | cut -d' ' -f1)
  [ "$got" = "$hash" ] || { echo "FAIL: $name: topo --json changed ($got, expected $hash)"; fail=1; }
done < "$expected"
captures=$(find "$AFFIX_CORPORA_DIR" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$seen" = "$captures" ] || { echo "FAIL: $seen documents listed for $captures captures"; fail=1; }
[ "$seen" -ge 26 ] || { echo "FAIL: only $seen captures"; fail=1; }
[ $fail = 0 ] && echo "PASS: topo --json of $seen captures unchanged"
exit $fail
