#!/usr/bin/env bash
# affix top's live screen, read through a pseudo-terminal by a terminal
# emulator (pyte, top_screen.py): the CPU rows, a busy loop pinned on CPU 1
# under CPU 1 with its TID, colours and none with NO_COLOR=1, -n N, and `q`
# leaving the terminal as it was (alternate screen left, cursor shown).
# (run_top_screen's refusal off a terminal: tests/top_screen_test.cpp.)
. "$(dirname "$0")/check_lib.bash"
here=$(cd "$(dirname "$0")" && pwd)

spin=
cleanup() { [[ -n $spin ]] && kill "$spin" 2>/dev/null; }
trap cleanup EXIT

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
