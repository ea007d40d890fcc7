#!/usr/bin/env bash
# Names are data: a real process names its main thread with a screen clear,
# a terminal title and a new line (ESC [2J ESC ]0;pwn BEL \n), and its second
# thread with a byte that is not UTF-8 (\xff), and passes both as its
# arguments (its command line). show, show --pinned and show --json print
# them escaped: no control byte reaches the terminal, each
# name stays one cell of one line, and the JSON is valid UTF-8.
. "$(dirname "$0")/pin_lib.bash"

evil=$'\e[2J\e]0;pwn\a\n'
start named name_helper "$evil" $'\xff'
pid=$PID
tids=($(ls /proc/$pid/task | sort -n))
tid=${tids[1]}
check "the helper named itself" "$evil"$'\n'x "$(cat /proc/$pid/comm; echo x)"
check "the helper has two threads" 2 "${#tids[@]}"

# No byte of the output is a control character other than the line ends.
no_controls() {  # NAME FILE
  if tr -d '\n' < "$2" | LC_ALL=C grep -q '[[:cntrl:]]'; then
    echo "FAIL: $1: a control byte in the output"; fail=1
  else
    echo "ok: $1: no control byte"
  fi
}

# The CPU the main thread last ran on (field 39 of its stat; its comm holds a
# new line, so the fields are on the stat file's last line).
last=$(sed 's/.*) //' /proc/$pid/task/$pid/stat | tail -1 | awk '{print $37}')
w=4
for t in $pid $tid; do [[ ${#t} -gt $w ]] && w=${#t}; done
policy=$(policy_cell $pid $pid)
pw=$((${#policy} > 6 ? ${#policy} : 6))
row() { printf "  %-4s  %-7s  %-${w}s  %-9s  %-5s  %-${pw}s  %s\n" "$@"; }
# Its command line holds the same bytes (its arguments): escaped too, and
# cut after 80 columns (after a whole escape) where the build's path is long.
cmd=$(python3 -c 'import re, sys
text = sys.argv[1]
if len(text) > 80:  # printable_cell: the longest run of whole pieces in 79 columns, then "+"
    kept = ""
    for piece in re.findall(r"\\x[0-9a-f]{2}|\\.|.", text):
        if len(kept) + len(piece) > 79:
            break
        kept += piece
    text = kept + "+"
print(text)' "$HELPERS/name_helper \\e[2J\\e]0;pwn\\x07\\n \\xff")
run_affix show $pid
check "show: status" 0 "$RC"
no_controls "show" "$tmp/out"
check "show: the names escaped, exactly" \
  "$pid \\e[2J\\e]0;pwn\\x07\\n  cpus 0-1 (mixed)  cpuset nodes 0  mem policy default  anon 0:N; file 0:N
  cmd $cmd
$(row CPUS THREADS TIDS 'LAST CPUS' NODES POLICY COMM)
$(row 0-1 1 $pid $last 0 "$policy" '\e[2J\e]0;pwn\x07\n')
$(row 0 1 $tid 0 0 "$(policy_cell $pid $tid)" '\xff')" \
  "$(sed 's/anon 0:[0-9]*; file 0:[0-9]*$/anon 0:N; file 0:N/' "$tmp/out")"

run_affix show --pinned
check "show --pinned: status" 0 "$RC"
no_controls "show --pinned" "$tmp/out"
check "show --pinned: the name and the command line escaped" "$pid \\e[2J\\e]0;pwn\\x07\\n 0-1 0: $tid $cmd" \
  "$(awk -v p=$pid '$1 == p' "$tmp/out" | tr -s ' ')"

run_affix show --json $pid
check "show --json: status" 0 "$RC"
no_controls "show --json" "$tmp/out"
check "show --json: the bytes of the names" \
  "\"comm\": \"\\u001b[2J\\u001b]0;pwn\\u0007\\n\"|\"comm\": \"$(printf '\xef\xbf\xbd')\"" \
  "$(grep -o '"comm": "[^"]*"' "$tmp/out" | sort -u | tr '\n' '|' | sed 's/|$//')"
check "show --json: valid JSON, the names as the process chose them (U+FFFD for \\xff)" \
  "'\\x1b[2J\\x1b]0;pwn\\x07\\n' ['\\x1b[2J\\x1b]0;pwn\\x07\\n', '\\ufffd']" \
  "$(python3 -c 'import json, sys
p = json.loads(sys.stdin.buffer.read())[0]
print(ascii(p["comm"]), ascii([t["comm"] for t in p["threads"]]))' < "$tmp/out" 2>&1)"
check "show --json: the command line as the process gave it (U+FFFD for \\xff)" \
  "'$HELPERS/name_helper \\x1b[2J\\x1b]0;pwn\\x07\\n \\ufffd'" \
  "$(python3 -c 'import json, sys
print(ascii(json.loads(sys.stdin.buffer.read())[0]["cmdline"]))' < "$tmp/out" 2>&1)"

run_affix show --pinned --json
check "show --pinned --json: valid JSON with the names" \
  "'\\x1b[2J\\x1b]0;pwn\\x07\\n' ['\\x1b[2J\\x1b]0;pwn\\x07\\n', '\\ufffd']" \
  "$(python3 -c 'import json, sys
p = [p for p in json.loads(sys.stdin.buffer.read()) if p["pid"] == '$pid'][0]
print(ascii(p["comm"]), ascii([t["comm"] for t in p["threads"]]))' < "$tmp/out" 2>&1)"
finish
