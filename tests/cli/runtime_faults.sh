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

# pin: the kernel refusing sched_setaffinity leaves every thread where it was.
"$AFFIX_BUILD_DIR/threads_helper" 3 >"$tmp/helper.out" &
helper=$!
trap 'kill $helper 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 500); do grep -q ready "$tmp/helper.out" && break; sleep 0.02; done
grep -q ready "$tmp/helper.out" || fail "threads_helper did not start"
lists() { cat /proc/$helper/task/*/status | grep Cpus_allowed_list | sort | uniq -c | tr -s ' \t' ' '; }
before=$(lists)
expect_pin_refused() {
  local errno=$1 want=$2
  set +e
  "$SECCOMP" sched_setaffinity "$errno" "$AFFIX" pin 0 "$helper" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  set -e
  [ "$rc" -eq 1 ] || fail "pin $errno: exit $rc, want 1 ($(cat "$tmp/err"))"
  [ ! -s "$tmp/out" ] || fail "pin $errno: unexpected stdout: $(cat "$tmp/out")"
  diff -u <(printf '%s' "$want") "$tmp/err" || fail "pin $errno: stderr differs"
  [ "$(lists)" = "$before" ] || fail "pin $errno: the threads were moved: $(lists)"
}
# As root, affix holds CAP_SYS_NICE: the refusal is the filter's, and the
# hint says so (pin_rollback.sh has the hint for an unprivileged affix).
if [ "$(id -u)" = 0 ]; then
  eperm_hint="affix has CAP_SYS_NICE, so a security policy refused it: a seccomp filter or a security module (as in a container)"
else
  eperm_hint="moving another user's process needs CAP_SYS_NICE"
fi
expect_pin_refused EPERM \
"affix: error: cannot move thread $helper (threads_helper) of process $helper: permission denied; nothing was changed
affix: hint: $eperm_hint
"
expect_pin_refused EINVAL \
"affix: error: cannot move thread $helper (threads_helper) of process $helper: the kernel refused CPUs 0: Invalid argument; nothing was changed
affix: hint: the CPUs must be in the target's own cpuset
"
# ESRCH for threads that still exist: they look gone, then reappear in every
# listing; affix gives up after a few such returns instead of spinning.
expect_pin_refused ESRCH \
"affix: error: cannot move thread $helper (threads_helper) of process $helper: the kernel answers \"No such process\" for it, yet /proc still lists it; nothing was changed
affix: hint: a seccomp filter or a security module may refuse sched_setaffinity that way
"
# The same pin without the filter moves them (the helper is movable).
"$AFFIX" pin 0 "$helper" >/dev/null
[ "$(lists)" = " 3 Cpus_allowed_list: 0" ] || fail "pin without a filter: $(lists)"

# Without the refused call affix runs the command (the filter itself is harmless).
"$SECCOMP" set_mempolicy EPERM "$AFFIX" 0 -- /usr/bin/touch "$tmp/marker"
[ -e "$tmp/marker" ] || fail "the command did not run without --mem"
echo ok
