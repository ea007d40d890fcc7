#!/usr/bin/env bash
# affix top's live screen, read through a pseudo-terminal by a terminal
# emulator (pyte, top_screen.py): the CPU rows, a busy loop pinned on CPU 1
# under CPU 1 with its TID, colours and none with NO_COLOR=1, -n N, and `q`
# leaving the terminal as it was (alternate screen left, cursor shown), as
# SIGTERM, SIGHUP and SIGINT do before affix ends of them.
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
/usr/bin/python3 "$here/top_screen.py" "$AFFIX" signals || fail=1

# The man page's picture of the screen is the README's (one capture of a
# real run: TOP_SCREEN_SIZE=22x80 TOP_SCREEN_CAPTURE=FILE this script).
src=${AFFIX_SOURCE_DIR:-$here/../..}
man_pic=$(sed -n '/^\.\\" top-screen:begin/,/^\.\\" top-screen:end/p' "$src/man/affix.1" | sed '1d;$d' |
  sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/^\\&//')
readme_pic=$(sed -n '/^<!-- top-screen:begin -->/,/^<!-- top-screen:end -->/p' "$src/README.md" | sed '1,2d;$d' | sed '$d')
check "the man page's picture is the README's" "$readme_pic" "$man_pic"
check_match "the picture has CPU 1's row with the busy loop" "*
 CPU 1 *  [0-9]*/[0-9]* sh *" "$man_pic"
exit $fail
