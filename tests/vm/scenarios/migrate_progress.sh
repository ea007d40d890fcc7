# vm-topologies: 2s2c2t-2n
# `affix pin --migrate` of a large buffer (256 MiB on node 0 to node 1; a
# node has 384 MiB here) shows its progress on a terminal: read through a
# pseudo-terminal (on_pty: stderr on a pty, raw), after a second one line
# "affix: moving the pages of process PID: N of TOTAL (P%; from node 0: N),
# S s", rewritten with \r, cleared with spaces at the end; the report on
# stdout unchanged. With stderr not a terminal, nothing on stderr.
. "$VM_LIB"
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts 2>/dev/null

start_load big affix run node:0 -- vmload --mb 256 --threads 1 --wait --out report || { finish; exit; }
addr=$(field addr "$REPORT")
check_eq "before: the buffer on node 0" "N0=65536" "$(node_pages $PID "$addr")"
t0=$(date +%s)
RC=0
on_pty pty.out affix pin --migrate node:1 $PID > out.txt || RC=$?
t1=$(date +%s)
echo "pin --migrate of 256 MiB took about $((t1 - t0)) s"
check_eq "pin --migrate node:1 on a terminal: exit 0" 0 "$RC"
check_match "the report on stdout as without a terminal" "$PID: moved * pages*" "$(grep "^$PID: moved" out.txt)"
echo "the terminal got:"; tr '\r' '\n' < pty.out | sed 's/ *$//; /^$/d; s/^/  /'
check_eq "after: the buffer on node 1" "N1=65536" "$(node_pages $PID "$addr")"
# The terminal's bytes: each line starts with \r; the last write clears.
lines=$(tr '\r' '\n' < pty.out | grep -c "^affix: moving the pages of process $PID: [0-9]* of [0-9]* ([0-9]*%; from node 0: [0-9]*), [0-9]* s *$")
check_true "at least one progress line (got $lines)" [ "$lines" -ge 1 ]
total=$(tr '\r' '\n' < pty.out | sed -n "s/^affix: moving the pages of process $PID: [0-9]* of \([0-9]*\) .*/\1/p" | head -n 1)
check_true "the total counts the buffer's pages (got '$total')" [ "${total:-0}" -ge 65536 ]
check_eq "the last bytes clear the line (spaces between two \\r)" "" \
  "$(tr '\r' '\n' < pty.out | tail -n 1 | tr -d ' ')"
check_eq "the terminal ends on \\r" "0d" "$(tail -c 1 pty.out | od -An -tx1 | tr -d ' ')"
check_eq "nothing else on the terminal" "" "$(tr '\r' '\n' < pty.out | grep -v '^affix: moving the pages' | tr -d ' \n')"

# Not a terminal: nothing on stderr.
check_run "pin --migrate node:0, stderr to a file" 0 affix pin --migrate node:0 $PID
check_eq "no progress in a file" "" "$ERR"
check_eq "back on node 0" "N0=65536" "$(node_pages $PID "$addr")"
stop_load $PID
finish
