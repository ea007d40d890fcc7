#!/usr/bin/env bash
# affix show --tree on a real tree the test starts: a shell with two
# children and a grandchild under the second one,
#   ROOT bash tree.sh
#     A sleep 1000
#     B sleep, its argv[0] with an escape byte and a new line
#     C bash -c ...
#       D sleep 1000
# The text is exact: each process's block indented two spaces a level under
# its parent, its command line under its header, escaped. --json nests the
# same processes in "children", with the command lines as the processes
# wrote them (valid UTF-8). And what --tree refuses.
. "$(dirname "$0")/pin_lib.bash"

evil=$'x\e[1mname\nz'
cat > "$tmp/tree.sh" <<'EOF'
sleep 1000 & echo "a $!"
(exec -a "$EVIL" sleep 1000) & echo "b $!"
bash -c 'sleep 1000 & echo "d $!"; wait' & echo "c $!"
wait
EOF
EVIL=$evil bash "$tmp/tree.sh" > "$tmp/tree.out" &
root=$!
started+=("$root")
for ((i = 0; i < 600; i++)); do
  [[ $(wc -l < "$tmp/tree.out") == 4 ]] && break
  sleep 0.05
done
declare -A pid
while read -r name p; do pid[$name]=$p; started+=("$p"); done < "$tmp/tree.out"
check "the tree started" "a b c d" "$(printf '%s\n' "${!pid[@]}" | sort | tr '\n' ' ' | sed 's/ $//')"
# Each one has exec'd (B runs sleep, not the subshell) and sleeps.
for ((i = 0; i < 600; i++)); do
  [[ $(cat /proc/${pid[b]}/comm /proc/${pid[d]}/comm 2>/dev/null | tr '\n' ' ') == "sleep sleep " ]] && break
  sleep 0.05
done
check "B's argv[0] holds the bytes" "$evil" "$(tr '\0' '\n' < /proc/${pid[b]}/cmdline | head -c ${#evil})"

# The node of a CPU, as /sys has it ("-" where none).
node_of() {
  local d
  for d in /sys/devices/system/node/node[0-9]*; do
    [[ -e $d/cpu$1 ]] && { echo "${d##*node}"; return; }
  done
  echo -
}
# The block show prints for PID at DEPTH with command line CMD (its pages
# as PAGES): sleeping processes, so their last CPU stays where it is read.
block() {  # PID DEPTH CMD
  local p=$1 ind cpus mems comm last w cw policy pw
  ind=$(printf '%*s' $((2 * $2)) '')
  policy=$(policy_cell "$p" "$p")
  pw=$((${#policy} > 6 ? ${#policy} : 6))
  cpus=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/$p/status)
  mems=$(awk '/^Mems_allowed_list:/ {print $2}' /proc/$p/status)
  comm=$(cat /proc/$p/comm)
  last=$(sed 's/.*) //' /proc/$p/task/$p/stat | awk '{print $37}')
  w=$((${#p} > 4 ? ${#p} : 4))
  cw=$((${#cpus} > 4 ? ${#cpus} : 4))
  echo "$ind$p $comm  cpus $cpus  cpuset nodes $mems  mem policy default  PAGES"
  echo "$ind  cmd $3"
  printf "%s  %-${cw}s  %-7s  %-${w}s  %-9s  %-5s  %-${pw}s  %s\n" "$ind" CPUS THREADS TIDS 'LAST CPUS' NODES POLICY COMM
  printf "%s  %-${cw}s  %-7s  %-${w}s  %-9s  %-5s  %-${pw}s  %s\n" "$ind" "$cpus" 1 "$p" "$last" "$(node_of "$last")" \
    "$policy" "$comm"
}
pages() { sed -E '/  cpuset nodes /s/  anon [^;]*; file .*$/  PAGES/' "$@"; }
no_controls() {  # NAME FILE: no control byte but the line ends
  if tr -d '\n' < "$2" | LC_ALL=C grep -q '[[:cntrl:]]'; then
    echo "FAIL: $1: a control byte in the output"; fail=1
  else
    echo "ok: $1: no control byte"
  fi
}

# Children in ascending PID order, each followed by its own.
declare -A cmd=([a]="sleep 1000" [b]='x\e[1mname\nz 1000' [c]='bash -c sleep 1000 & echo "d $!"; wait')
expected=$(
  block "$root" 0 "bash $tmp/tree.sh"
  for name in $(for n in a b c; do echo "${pid[$n]} $n"; done | sort -n | cut -d' ' -f2); do
    block "${pid[$name]}" 1 "${cmd[$name]}"
    [[ $name == c ]] && block "${pid[d]}" 2 "sleep 1000"
  done
)
run_affix show --tree "$root"
check "show --tree: status" 0 "$RC"
no_controls "show --tree" "$tmp/out"
check "show --tree: every process under its parent, exactly" "$expected" "$(pages "$tmp/out")"
# --root: the same tree read through a root directory.
run_affix show --tree --root / "$root"
check "show --tree --root /: the same" "0 $expected" "$RC $(pages "$tmp/out")"
# Without --tree: the root alone, its command line under its header.
run_affix show "$root"
check "show: the root alone" "$(block "$root" 0 "bash $tmp/tree.sh")" "$(pages "$tmp/out")"

run_affix show --tree --json "$root"
check "show --tree --json: status" 0 "$RC"
no_controls "show --tree --json" "$tmp/out"
kids=$(for n in a b c; do echo "${pid[$n]}"; done | sort -n | tr '\n' ',' | sed 's/,$//')
check "show --tree --json: one process named, its children, their children" \
  "[$root] [$kids] [${pid[d]}] [] []" \
  "$(jq -c '[.[].pid], [.[0].children[].pid], [.[0].children[] | select(.children != []) | .children[].pid],
            [.[0].children[] | select(.pid != '"${pid[c]}"') | .children[]],
            .[0].children[].children[].children' "$tmp/out" | tr '\n' ' ' | sed 's/ $//')"
check "show --tree --json: parents" "$root $root $root ${pid[c]}" \
  "$(jq -r '[.[0].children[].ppid, .[0].children[].children[].ppid] | map(tostring) | join(" ")' "$tmp/out")"
check "show --tree --json: the command lines as written (valid UTF-8)" \
  "$(python3 -c 'import sys; print(ascii(["bash " + sys.argv[1], sys.argv[2] + " 1000", "sleep 1000"]))' "$tmp/tree.sh" "$evil")" \
  "$(python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))[0]
b = [c for c in p["children"] if c["pid"] == int(sys.argv[2])][0]
d = [c for c in p["children"] if c["children"]][0]["children"][0]
print(ascii([p["cmdline"], b["cmdline"], d["cmdline"]]))' "$tmp/out" "${pid[b]}" 2>&1)"
run_affix show --json "$root"
check "show --json: a command line, no children" "bash $tmp/tree.sh null" \
  "$(jq -r '.[0] | "\(.cmdline) \(.children)"' "$tmp/out")"

# Two named: each with its tree, the second one shown again inside the first.
run_affix show --tree --json "$root" "${pid[c]}"
check "show --tree with two PIDs" "0 [$root,${pid[c]}] [${pid[d]}]" \
  "$RC $(jq -c '[.[].pid], [.[1].children[].pid]' "$tmp/out" | tr '\n' ' ' | sed 's/ $//')"
run_affix show --tree "$root" 4194304
check "show --tree with a missing PID" "1 affix: error: no such process: 4194304 $root" \
  "$RC $ERR $(head -n 1 "$tmp/out" | cut -d' ' -f1)"

run_affix show --tree
check "show --tree without a PID" \
  "2 affix: error: --tree needs a PID: the process whose tree to show|affix: hint: 'affix show --tree 1' shows every process under PID 1|" \
  "$RC $(tr '\n' '|' <<<"$ERR")$OUT"
run_affix show --tree --pinned
check "show --tree --pinned" "2 affix: error: --tree and --pinned cannot be used together" "$RC $(head -n 1 <<<"$ERR")"
finish
