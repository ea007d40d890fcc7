#!/usr/bin/env bash
# affix(1), PICTURES: topo --svg on every captured machine parses as XML and
# holds every CPU, core, node, package and device once (collapsed or not);
# explain --svg marks exactly the chosen and dropped CPUs and the memory
# nodes; show --svg a process's allowed and last CPUs; --ascii's characters
# follow the locale; the errors of the options; a hostile name is escaped.
set -u
. "$AFFIX_SOURCE_DIR/tests/cli/check_lib.bash"
corpora=${AFFIX_CORPORA_DIR:?}
checker="$AFFIX_SOURCE_DIR/tests/cli/svg_check.py"
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

# Every capture: topo --svg FILE, and --svg alone to standard output.
n=0
for dir in "$corpora"/*/; do
  name=$(basename "$dir")
  "$AFFIX" topo --root "$dir" --json > "$tmp/$name.json" 2>/dev/null
  "$AFFIX" topo --root "$dir" --svg "$tmp/$name.svg" > "$tmp/$name.txt" 2>/dev/null
  check "$name: topo --svg FILE exits 0" 0 $?
  check "$name: the text still on stdout" "$("$AFFIX" topo --root "$dir" 2>/dev/null)" "$(cat "$tmp/$name.txt")"
  out=$(python3 "$checker" machine "$tmp/$name.svg" "$tmp/$name.json" 2>&1)
  check "$name: every CPU, core, node, package, device once" "" "$out"
  "$AFFIX" topo --root "$dir" --svg > "$tmp/$name.stdout.svg" 2>/dev/null
  check "$name: topo --svg alone writes the same to stdout" "" "$(cmp "$tmp/$name.svg" "$tmp/$name.stdout.svg" 2>&1)"
  n=$((n + 1))
done
check "captures drawn" 1 "$(( n >= 20 ))"

# The checker fails where a CPU is missing or twice (it can fail).
m=64amd64-4s2n4ca2co
sed 's/id="cpu-5"/id="cpu-6"/' "$tmp/$m.svg" > "$tmp/bad.svg"
out=$(python3 "$checker" machine "$tmp/bad.svg" "$tmp/$m.json" 2>&1)
check_match "checker: a duplicated id is told" "*id cpu-6 twice*cpu-5 missing*" "$out"

# Collapsing: the 128-CPU capture collapses nodes 2-14 into one run whose
# data-cpus lists its CPUs, and says so under the picture.
c=128ia64-17n4s2c
check "$c: one collapsed run" 1 "$(grep -c 'class="collapsed"' "$tmp/$c.svg")"
check_match "$c: the run's data" '*data-count="13" data-kind="node" data-cpus="16-119"*' "$(grep 'class="collapsed"' "$tmp/$c.svg")"
check_match "$c: said in the legend" "*13 x node (node-2 to node-14): CPUs 16-119*" "$(cat "$tmp/$c.svg")"
check "$c: hidden CPUs keep their element" 1 "$(grep -c '<g id="cpu-50" class="cpu hidden">' "$tmp/$c.svg")"

# explain --svg: chosen, dropped (why in the title), memory.
e=16em64t-4s2c2t
"$AFFIX" explain --root "$corpora/$e" socket:1 --no-smt --svg="$tmp/explain.svg" > "$tmp/explain.txt"
check "explain --svg=FILE exits 0" 0 $?
check_match "explain's text still printed" "cpus *1,5 (2 CPUs)*" "$(cat "$tmp/explain.txt")"
out=$(python3 "$checker" machine "$tmp/explain.svg" "$tmp/$e.json" --chosen 1,5 --dropped 9,13 --memory 0 2>&1)
check "explain socket:1 --no-smt: chosen 1,5, dropped 9,13, memory node 0" "" "$out"
check_match "the dropped CPU's title says why" '*<g id="cpu-9" class="cpu dropped"><title>CPU 9 (core 2, LLC 1, node 0, package 1); online; dropped: --no-smt: another thread of its core is kept</title>*' "$(cat "$tmp/explain.svg")"
out=$(python3 "$checker" machine "$tmp/explain.svg" "$tmp/$e.json" --chosen 1,9 2>&1)
check_match "checker: wrong chosen CPUs are told" "*class chosen: on \\[1, 5\\], expected \\[1, 9\\]*" "$out"
# Every capture: the classes are the CPUs explain --json gives.
for dir in "$corpora"/*/; do
  name=$(basename "$dir")
  "$AFFIX" explain --root "$dir" all --no-smt --json > "$tmp/x.json" 2>/dev/null || continue
  "$AFFIX" explain --root "$dir" all --no-smt --svg > "$tmp/x.svg" 2>/dev/null
  chosen=$(jq -r .cpus "$tmp/x.json")
  dropped=$(jq -r '[.dropped[] | select(.reason=="smt") | .cpus] | join(",")' "$tmp/x.json")
  args=(--chosen "$chosen")
  [ "$(jq '[.dropped[]] | length' "$tmp/x.json")" = "$(jq '[.dropped[] | select(.reason=="smt")] | length' "$tmp/x.json")" ] &&
    args+=(--dropped "$dropped")
  out=$(python3 "$checker" machine "$tmp/x.svg" "$tmp/$name.json" "${args[@]}" 2>&1)
  check "$name: explain all --no-smt --svg marks what --json says" "" "$out"
done

# --ascii: box-drawing characters in a UTF-8 locale, + - | otherwise; the
# chosen CPUs' sign on their top border.
out=$(LC_ALL=C.UTF-8 "$AFFIX" explain --root "$corpora/2arm-2c" --ascii 1)
check_match "--ascii in UTF-8: box-drawing" "*┌─*│CPU 1│*" "$out"
check_match "--ascii: the chosen CPU's sign" "*┌*─*─*┐ ┌*───┐*" "$out"
check_match "--ascii: the signs told" "*Signs on a box's top border: * chosen  m memory*" "$out"
out=$(LC_ALL=C LANG= "$AFFIX" topo --root "$corpora/2arm-2c" --ascii)
check "--ascii in the C locale" "+-----------------------------------+
|Machine (2 CPUs, 1 node, 274.3 MiB)|
| +-----------------------------+   |
| |Package 3                    |   |
| | +-------------------------+ |   |
| | |Node 0                   | |   |
| | |274.3 MiB, 244.6 MiB free| |   |
| | | +---------+ +---------+ | |   |
| | | |Core 0   | |Core 1   | | |   |
| | | | +-----+ | | +-----+ | | |   |
| | | | |CPU 0| | | |CPU 1| | | |   |
| | | | +-----+ | | +-----+ | | |   |
| | | +---------+ +---------+ | |   |
| | +-------------------------+ |   |
| +-----------------------------+   |
+-----------------------------------+" "$out"
out=$(LC_ALL=C "$AFFIX" explain --root "$corpora/2arm-2c" --ascii 1 | grep 'CPU 0\|CPU 1' | head -1)
check "--ascii: only CPU 1 marked" "| | | | |CPU 0| | | |CPU 1| | | |   |" "$out"
out=$(LC_ALL=C "$AFFIX" explain --root "$corpora/2arm-2c" --ascii 1 | grep -B1 'CPU 0' | head -1)
check "--ascii: CPU 1's top border holds *" "| | | | +-----+ | | +*----+ | | |   |" "$out"

# show --svg: a process of ours on CPU 0: allowed 0, ran 0, and the nodes
# of its pages; a hostile name escaped.
ln -s "$(command -v sleep)" "$tmp/a<b&\"c'd"
"$AFFIX" 0 "$tmp/a<b&\"c'd" 30 &
pid=$!
pids+=("$pid")
for _ in $(seq 100); do  # until affix has exec'd it
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "a<b&\"c'd" ] && break
  sleep 0.1
done
"$AFFIX" topo --json > "$tmp/here.json"
"$AFFIX" show --svg="$tmp/show.svg" "$pid" > /dev/null
check "show --svg=FILE PID exits 0" 0 $?
nodes=$(grep -o 'N[0-9]*=' "/proc/$pid/numa_maps" | tr -d N= | sort -un | paste -sd,)
out=$(python3 "$checker" machine "$tmp/show.svg" "$tmp/here.json" --allowed 0 --ran 0 --memory "$nodes" 2>&1)
check "show --svg: allowed 0, ran 0, memory on the nodes of numa_maps" "" "$out"
title=$(python3 -c 'import sys, xml.etree.ElementTree as E
t = E.parse(sys.argv[1]).getroot().find(".//{http://www.w3.org/2000/svg}g[@id=\"cpu-0\"]/{http://www.w3.org/2000/svg}title").text
print(t)' "$tmp/show.svg")
check_match "the comm escaped, read back as it is" "*ran: $pid (a<b&\"c'd) thread $pid (a<b&\"c'd)*" "$title"
"$AFFIX" show --svg --irq > "$tmp/irq.svg"
out=$(python3 "$checker" machine "$tmp/irq.svg" "$tmp/here.json" --irq 2>&1)
check "show --svg --irq: every CPU's data-count" "" "$out"
"$AFFIX" show --svg --shield --root "$corpora/$e" > "$tmp/shield.svg"
out=$(python3 "$checker" machine "$tmp/shield.svg" "$tmp/$e.json" --shield "" 2>&1)
check "show --svg --shield with no shield: none marked" "" "$out"

# watch --svg FILE -- COMMAND: the timeline written when the command ends,
# a row for its thread with a slot per interval (1 s each, and the last).
"$AFFIX" watch --svg "$tmp/watch.svg" -- sh -c "echo \$\$ > $tmp/watch.pid; sleep 2.3" 2>/dev/null
check "watch --svg FILE -- COMMAND: the command's status" 0 $?
tid=$(cat "$tmp/watch.pid")
out=$(python3 "$checker" timeline "$tmp/watch.svg" --tids "$tid" 2>&1)
check "watch --svg: the command's thread has its row" "" "$out"
slots=$(python3 -c 'import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
g = E.parse(sys.argv[1]).getroot().find(".//%sg[@id=\"thread-%s\"]" % (ns, sys.argv[2]))
print(len(g.findall("%srect[@class=\"slot\"]" % ns)))' "$tmp/watch.svg" "$tid")
check "watch --svg: a slot per interval (at least 2 of 1 s, and the last)" 1 "$(( slots >= 3 ))"
"$AFFIX" watch --svg "$tmp/none/t.svg" -- touch "$tmp/ran" 2>/dev/null
check "watch --svg to an unwritable FILE: exit 1" 1 $?
check "... before the command starts" "" "$(ls "$tmp/ran" 2>/dev/null)"

# The README's picture is what scripts/pictures makes.
"$AFFIX" explain --root "$corpora/64amd64-4s2n4ca2co" node:2+node:3 --count 12 --svg="$tmp/readme.svg" > /dev/null
check "docs/pictures/explain.svg is up to date (scripts/pictures)" "" \
  "$(cmp "$tmp/readme.svg" "$AFFIX_SOURCE_DIR/docs/pictures/explain.svg" 2>&1)"

# The errors (docs/errors.md), and nothing half-written.
err() { "$AFFIX" "$@" 2>&1 >/dev/null | head -1; }
check "--svg twice" "affix: error: option '--svg' given twice" "$(err topo --svg a.svg --svg=b.svg)"
check "--svg to stdout with --json" \
  "affix: error: --svg without a FILE writes the picture to standard output: it does not go with --json or --ascii" \
  "$(err topo --svg --json)"
check "--ascii with --json" "affix: error: --ascii and --json cannot be used together" "$(err explain all --ascii --json)"
check "explain --svg --as" "affix: error: --svg and --ascii draw one placement: they do not go with --as, --ranks or --shield" \
  "$(err explain all --svg=x.svg --as taskset)"
check "show --svg --cpu" "affix: error: --svg does not go with --cpu" "$(err show --svg --cpu 0)"
check "watch --svg -" "affix: error: watch --svg needs a FILE: the watch's own text goes to standard output" "$(err watch --svg -)"
check "watch --svg without a FILE" "affix: error: option '--svg' needs a value" "$(err watch --svg)"
"$AFFIX" topo --svg "$tmp/none/x.svg" >/dev/null 2>&1
check "unwritable: exit 1" 1 $?
check "unwritable: the message" "affix: error: cannot write the picture to $tmp/none/x.svg: No such file or directory" \
  "$(err topo --svg "$tmp/none/x.svg")"
mkdir "$tmp/dir.svg"
check "a directory: the message" "affix: error: cannot write the picture to $tmp/dir.svg: Is a directory" \
  "$(err topo --svg "$tmp/dir.svg")"
check "nothing left beside it" "dir.svg" "$(cd "$tmp" && ls -d dir.svg*)"
echo "old" > "$tmp/keep.svg"
chattr +i "$tmp/keep.svg" 2>/dev/null && {
  "$AFFIX" topo --svg "$tmp/keep.svg" >/dev/null 2>&1
  check "an immutable FILE is left as it was" "old" "$(cat "$tmp/keep.svg")"
  chattr -i "$tmp/keep.svg"
}
exit $fail
