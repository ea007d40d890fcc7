#!/usr/bin/env bash
# tests/vm/try removes its /tmp/affix-try.* directory on every way out,
# without booting a VM: run-vm refusing (an unknown topology), run-vm's own
# exit status passed on, and try stopped by a signal while the VM runs (a
# copy of try beside a stand-in run-vm that waits; the stand-in is stopped
# too).
. "$(dirname "$0")/check_lib.bash"
src=${AFFIX_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
left() { find "$1" -maxdepth 1 -name 'affix-try.*' -printf '%f\n' | sort | tr '\n' ' '; }

# run-vm refuses: its status and message, and nothing left.
mkdir "$tmp/a"
out=$(TMPDIR=$tmp/a "$src/tests/vm/try" --affix "$AFFIX" --topology nope -- true 2>&1)
rc=$?
check "run-vm's refusal: exit 125" 125 "$rc"
check_match "run-vm's refusal: its message" "run-vm: unknown topology 'nope'*" "$out"
check "run-vm's refusal: no affix-try directory left" "" "$(left "$tmp/a")"

# try's own refusal (no command): nothing left.
mkdir "$tmp/b"
out=$(TMPDIR=$tmp/b "$src/tests/vm/try" --affix "$AFFIX" 2>&1)
check "no command: exit 125 and why" "125 try: no command given (try -- COMMAND [ARG...], or --script FILE)" \
  "$? $out"
check "no command: no affix-try directory left" "" "$(left "$tmp/b")"

# A stand-in run-vm beside a copy of try: it reads the command file, exits
# with its status, or waits to be stopped.
mkdir "$tmp/bin" "$tmp/c"
cp "$src/tests/vm/try" "$tmp/bin/try"
cat > "$tmp/bin/run-vm" <<'STUB'
#!/usr/bin/env bash
file=${!#}
echo "$$" > "$STUB_DIR/pid"
cat "$file" > "$STUB_DIR/command"
case $STUB_MODE in
  exit) exit 3;;
  wait) trap 'echo stopped > "$STUB_DIR/stopped"; exit 143' TERM
        while :; do sleep 0.05; done;;
esac
STUB
chmod +x "$tmp/bin/try" "$tmp/bin/run-vm"
STUB_DIR=$tmp STUB_MODE=exit TMPDIR=$tmp/c "$tmp/bin/try" --affix "$AFFIX" -- echo 'a b'
check "run-vm's exit status passed on" 3 "$?"
check "the command given to run-vm" "echo a\\ b " "$(cat "$tmp/command")"
check "run-vm ended: no affix-try directory left" "" "$(left "$tmp/c")"

# With job control, try's background run gets SIGINT as a terminal's ^C
# would give it (without, bash starts it with SIGINT ignored).
set -m
for sig in TERM INT HUP; do
  rm -f "$tmp/pid" "$tmp/stopped"
  STUB_DIR=$tmp STUB_MODE=wait TMPDIR=$tmp/c "$tmp/bin/try" --affix "$AFFIX" -- true &
  try_pid=$!
  for _ in $(seq 100); do [[ -s $tmp/pid ]] && break; sleep 0.05; done
  check_match "$sig: the VM runs in its directory" "affix-try.* " "$(left "$tmp/c")"
  kill -"$sig" "$try_pid"
  # Bounded: a try that does not end within 10 s fails (its process group,
  # its own under set -m, is killed).
  for _ in $(seq 200); do kill -0 "$try_pid" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$try_pid" 2>/dev/null && { echo "FAIL: $sig: try still runs 10 s after it"; fail=1; kill -KILL -- -"$try_pid"; }
  wait "$try_pid"
  rc=$?
  case $sig in TERM) want=143;; INT) want=130;; HUP) want=129;; esac
  check "$sig: try exits $want" "$want" "$rc"
  check "$sig: the VM was stopped" stopped "$(cat "$tmp/stopped" 2>/dev/null)"
  check "$sig: no affix-try directory left" "" "$(left "$tmp/c")"
done
exit $fail
