#!/usr/bin/env bash
# affix run passes the command's argv untouched: spaces, quotes, words that
# start with '-', affix's own option names, empty words, globs, newlines.
. "$(dirname "$0")/check_lib.bash"
probe="$AFFIX_BUILD_DIR/probe_placement"
# The argument lines of the probe's output, arg 1 on (a word may hold a newline).
args() { sed -n '/^arg 1: /,/^Cpus_allowed_list: /p' | sed '$d'; }

check "words after the command belong to it" "arg 1: [-l]
arg 2: [--no-smt]
arg 3: [-n]
arg 4: [2]
arg 5: [--]
arg 6: [--help]" "$("$AFFIX" 0 "$probe" -l --no-smt -n 2 -- --help | args)"

check "spaces, quotes, empty, glob, newline" "arg 1: [a b]
arg 2: [it's]
arg 3: [\"q\"]
arg 4: []
arg 5: [*]
arg 6: [\$HOME]
arg 7: [x
y]
arg 8: [  lead]
arg 9: [ünï]" "$("$AFFIX" all -- "$probe" "a b" "it's" '"q"' "" '*' '$HOME' $'x\ny' "  lead" "ünï" | args)"

check "options after WHERE, then the command" "arg 1: [-v]" \
  "$("$AFFIX" all --no-smt -n 1 "$probe" -v 2>/dev/null | args)"
check "-- ends affix's options" "arg 1: [x]" "$("$AFFIX" -- 0 "$probe" x | args)"
check "argv[0] as given" "arg 0: [$probe]" "$("$AFFIX" 0 "$probe" | grep '^arg 0:')"
check "PATH search" "hello world" "$("$AFFIX" 0 echo hello world)"
check "-n in the command" "-n x" "$("$AFFIX" 0 -- printf '%s' '-n x')"

exit $fail
