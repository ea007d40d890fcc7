#!/usr/bin/env bash
# Every exit status of `affix run`: the command's own (signals included),
# 125 when affix fails before the command starts, 126 found but cannot be
# executed, 127 not found.
. "$(dirname "$0")/check_lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status() { "$@" >/dev/null 2>&1; echo $?; }

check "success" 0 "$(status "$AFFIX" 0 true)"
check "failure" 1 "$(status "$AFFIX" 0 false)"
check "own status 3" 3 "$(status "$AFFIX" all sh -c 'exit 3')"
check "own status 125" 125 "$(status "$AFFIX" all sh -c 'exit 125')"
check "own status 255" 255 "$(status "$AFFIX" all sh -c 'exit 255')"
check "killed by SIGTERM" 143 "$(status "$AFFIX" 0 sh -c 'kill -TERM $$')"
check "killed by SIGKILL" 137 "$(status "$AFFIX" 0 sh -c 'kill -KILL $$')"

check "affix alone" 125 "$(status "$AFFIX")"
check "no command" 125 "$(status "$AFFIX" 0)"
check "run, no command" 125 "$(status "$AFFIX" run all)"
check "bad spec" 125 "$(status "$AFFIX" socket: true)"
check "unknown unit" 125 "$(status "$AFFIX" socket:7 true)"
check "bad option" 125 "$(status "$AFFIX" --bogus 0 true)"

printf 'not a program\n' > "$tmp/noexec"
chmod -x "$tmp/noexec"
check "not executable" 126 "$(status "$AFFIX" 0 "$tmp/noexec")"
check "not executable msg" "affix: error: cannot execute '$tmp/noexec': Permission denied" \
  "$("$AFFIX" 0 "$tmp/noexec" 2>&1)"
mkdir "$tmp/dir"
check "a directory" 126 "$(status "$AFFIX" 0 "$tmp/dir")"
printf '#!/no/such/interpreter\n' > "$tmp/badinterp"
chmod +x "$tmp/badinterp"
check "missing interpreter" 127 "$(status "$AFFIX" 0 "$tmp/badinterp")"

check "not found" 127 "$(status "$AFFIX" 0 no-such-command-affix)"
check "not found msg" "affix: error: command not found: 'no-such-command-affix'" \
  "$("$AFFIX" 0 no-such-command-affix 2>&1)"
check "no such path" 127 "$(status "$AFFIX" 0 "$tmp/missing")"
check "no such path msg" "affix: error: cannot execute '$tmp/missing': No such file or directory" \
  "$("$AFFIX" 0 "$tmp/missing" 2>&1)"
check "option-like command" "affix: error: command not found: '--no-smtt'
affix: hint: '--no-smtt' is not an affix option: the command starts at the first word after WHERE that is not one (did you mean '--no-smt'?)" \
  "$("$AFFIX" 0 --no-smtt true 2>&1)"

check "run --help" 0 "$(status "$AFFIX" run --help)"
check "run --help text" "Usage: affix [run] [OPTIONS] WHERE [--] COMMAND [ARG...]" \
  "$("$AFFIX" run --help | head -1)"
check "explain --help" 0 "$(status "$AFFIX" explain --help)"

exit $fail
