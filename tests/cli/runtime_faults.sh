#!/usr/bin/env bash
# Runtime faults for real: the kernel refuses affix's placement calls through
# a seccomp filter (tests/helpers/seccomp_run), as a container runtime's
# profile does. affix must exit 125 before the command starts, with a message
# that says why.
set -euo pipefail
: "${AFFIX:?}" "${AFFIX_BUILD_DIR:?}"
SECCOMP="$AFFIX_BUILD_DIR/seccomp_run"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_refused SYSCALL ERRNO STDERR AFFIX-ARGS...: runs affix ARGS -- touch MARKER
expect_refused() {
  local call=$1 errno=$2 want=$3
  shift 3
  rm -f "$tmp/marker"
  set +e
  "$SECCOMP" "$call" "$errno" "$AFFIX" "$@" -- /usr/bin/touch "$tmp/marker" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  set -e
  [ "$rc" -eq 125 ] || fail "$call $errno: exit $rc, want 125 ($(cat "$tmp/err"))"
  [ ! -e "$tmp/marker" ] || fail "$call $errno: the command ran"
  [ ! -s "$tmp/out" ] || fail "$call $errno: unexpected stdout: $(cat "$tmp/out")"
  diff -u <(printf '%s' "$want") "$tmp/err" || fail "$call $errno: stderr differs"
}

expect_refused set_mempolicy EPERM \
"affix: error: cannot set memory policy bind on node 0: Operation not permitted: set_mempolicy is refused by a seccomp filter (container policy)
affix: hint: allow set_mempolicy in the container's seccomp profile (or grant CAP_SYS_NICE), or leave out --mem
" -m bind 0

expect_refused set_mempolicy EINVAL \
"affix: error: cannot set memory policy interleave on node 0: Invalid argument
" --mem interleave:0 0-1

expect_refused sched_setaffinity EINVAL \
"affix: error: cannot bind to CPUs 1: Invalid argument
affix: hint: the CPUs may have gone offline or out of affix's cpuset
" 1

expect_refused sched_setaffinity EPERM \
"affix: error: cannot bind to CPUs 0-1: Operation not permitted
affix: hint: sched_setaffinity is refused by a seccomp filter or security policy (container policy)
" 0-1

expect_refused sched_setaffinity ESRCH \
"affix: error: cannot bind to CPUs 0: No such process
" 0

# Without the refused call affix runs the command (the filter itself is harmless).
"$SECCOMP" set_mempolicy EPERM "$AFFIX" 0 -- /usr/bin/touch "$tmp/marker"
[ -e "$tmp/marker" ] || fail "the command did not run without --mem"
echo ok
