#!/usr/bin/env bash
# affix top's live screen, read through a pseudo-terminal by a terminal
# emulator (pyte, top_screen.py): the CPU rows, a busy loop pinned on CPU 1
# under CPU 1 with its TID, colours and none with NO_COLOR=1, -n N, and `q`
# leaving the terminal as it was (alternate screen left, cursor shown). Off
# a terminal the live screen is refused and points to --once.
. "$(dirname "$0")/check_lib.bash"
here=$(cd "$(dirname "$0")" && pwd)

out=$(mktemp) err=$(mktemp)
spin=
cleanup() { [[ -n $spin ]] && kill "$spin" 2>/dev/null; rm -f "$out" "$err"; }
trap cleanup EXIT

"$AFFIX" top -i 0.5 </dev/null >"$out" 2>"$err"
rc=$?
check "off a terminal: refused, exit 2, pointing to --once" \
  "2|affix: error: the live screen of 'affix top' needs a terminal: standard output is not one|affix: hint: 'affix top --once' prints one interval as text ('--once --json': JSON) for pipes and files|" \
  "$rc|$(tr '\n' '|' <"$err")$(cat "$out")"

if ! /usr/bin/python3 -c 'import pyte' 2>/dev/null; then
  echo "FAIL: /usr/bin/python3 has no pyte (scripts/setup installs python3-pyte)"
  exit 1
fi

# The busy loop on CPU 1: sh itself, so its PID is its one TID.
taskset -c 1 sh -c 'while :; do :; done' &
spin=$!
/usr/bin/python3 "$here/top_screen.py" "$AFFIX" live "$spin" "${TOP_SCREEN_CAPTURE:-}" || fail=1
/usr/bin/python3 "$here/top_screen.py" "$AFFIX" nocolor || fail=1
exit $fail
