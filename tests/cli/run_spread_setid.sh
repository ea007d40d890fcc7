#!/usr/bin/env bash
# `affix --spread` and a set-user-ID, set-group-ID or file-capability
# program: under ptrace the kernel runs it without what it gives unless the
# tracer holds CAP_SYS_PTRACE. A user (nobody) is refused before anything
# (exit 125, the message, the program never ran); the same program runs
# with its privileges without --spread; root, whose tracer holds
# CAP_SYS_PTRACE, runs a set-user-ID program under --spread with its
# effective user changed (the kernel keeps it: no refusal).
. "$(dirname "$0")/check_lib.bash"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d)
chmod 755 "$tmp"
A=$(anyone_affix)
trap 'rm -rf "$tmp"; [[ $A == "$AFFIX" ]] || rm -rf "$(dirname "$A")"' EXIT
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
id_bin=$(command -v id)
hint="affix: hint: run it without --spread, or spread its threads once it runs: 'affix pin --spread WHERE PID'"
refusal() {  # FILE WHAT
  printf '%s\n%s' "affix: error: cannot run '$1' with --spread: the kernel would run it without its $2, as it does for a traced program (--spread follows its threads with ptrace); the command was not started" "$hint"
}

# Set-user-ID root.
cp "$id_bin" "$tmp/suid"
chown 0:0 "$tmp/suid"
chmod 4755 "$tmp/suid"
check "set-user-ID root without --spread: euid 0" 0 "$(as_nobody "$tmp/suid" -u)"
out=$(as_nobody "$A" --spread all -- "$tmp/suid" -u 2>"$tmp/err")
check "set-user-ID root, --spread as nobody: exit 125" 125 "$?"
check "set-user-ID root, --spread: nothing ran" "" "$out"
check "set-user-ID root, --spread: why and what to do" "$(refusal "$tmp/suid" "set-user-ID root")" "$(cat "$tmp/err")"
# Found on PATH: the message names the file exec would run.
out=$(PATH=$tmp:$PATH as_nobody "$A" --spread all -- suid -u 2>"$tmp/err")
check "on PATH: exit 125" 125 "$?"
check "on PATH: the file named" "$(refusal "$tmp/suid" "set-user-ID root")" "$(cat "$tmp/err")"
check "a dry run refuses too" 125 "$(as_nobody "$A" --dry-run --spread all -- "$tmp/suid" >/dev/null 2>&1; echo $?)"
# Root's tracer holds CAP_SYS_PTRACE: a program set-user-ID nobody runs as nobody.
cp "$id_bin" "$tmp/suid_nobody"
chown 65534 "$tmp/suid_nobody"
chmod 4755 "$tmp/suid_nobody"
check "root, --spread, set-user-ID nobody: runs with euid 65534" 65534 "$("$AFFIX" --spread all -- "$tmp/suid_nobody" -u 2>&1)"
# Set-user-ID to the user itself gives nothing: runs.
check "nobody, --spread, set-user-ID nobody: runs" 65534 "$(as_nobody "$A" --spread all -- "$tmp/suid_nobody" -u 2>&1)"
# An ordinary program: runs.
check "nobody, --spread, plain id: runs" 65534 "$(as_nobody "$A" --spread all -- "$id_bin" -u 2>&1)"

# A program the command execs later loses them too: the follower warns.
out=$(as_nobody "$A" --spread all -- sh -c "exec $tmp/suid -u" 2>"$tmp/err")
check "a later exec: runs without them (euid 65534)" 65534 "$out"
check_match "a later exec: the warning" \
  "affix: warning: '$tmp/suid' (process [0-9]*) runs without its set-user-ID root: the kernel ignores it in a program followed by --spread (ptrace)" \
  "$(cat "$tmp/err")"

# Set-group-ID root.
cp "$id_bin" "$tmp/sgid"
chown 0:0 "$tmp/sgid"
chmod 2755 "$tmp/sgid"
check "set-group-ID root without --spread: egid 0" 0 "$(as_nobody "$tmp/sgid" -g)"
out=$(as_nobody "$A" --spread all -- "$tmp/sgid" -g 2>"$tmp/err")
check "set-group-ID root, --spread: exit 125" 125 "$?"
check "set-group-ID root, --spread: nothing ran, the message" "$(refusal "$tmp/sgid" "set-group-ID root")" \
  "$out$(cat "$tmp/err")"

# File capabilities (setcap, from libcap2-bin).
if command -v setcap >/dev/null; then
  cp "$id_bin" "$tmp/caps"
  setcap cap_net_bind_service,cap_net_raw+ep "$tmp/caps"
  out=$(as_nobody "$A" --spread all -- "$tmp/caps" -u 2>"$tmp/err")
  check "file capabilities, --spread: exit 125" 125 "$?"
  check "file capabilities, --spread: nothing ran, the message" \
    "$(refusal "$tmp/caps" "file capabilities cap_net_bind_service,cap_net_raw")" "$out$(cat "$tmp/err")"
  check "file capabilities without --spread: runs" 65534 "$(as_nobody "$tmp/caps" -u)"
else
  echo "note: no setcap here (libcap2-bin): file capabilities are checked by the unit tests"
fi
exit $fail
