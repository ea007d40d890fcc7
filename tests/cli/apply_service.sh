#!/bin/bash
# affix-apply.service (scripts/systemd/, installed to lib/systemd/system):
# systemd-analyze verify finds nothing to say of it (with ExecStart on the
# build's affix, which is not installed here; the man page is checked by
# the manpage tests, not installed either: --man=no), its hardening score,
# and Type=notify's side: affix tells $NOTIFY_SOCKET READY=1 after its
# first scan, RELOADING=1/READY=1 around a SIGHUP, STOPPING=1 on SIGTERM.
source "$AFFIX_SOURCE_DIR/tests/cli/check_lib.bash"
unit=$AFFIX_SOURCE_DIR/scripts/systemd/affix-apply.service
tmp=$(mktemp -d /tmp/affix-service-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
wait_for() {
  local end=$((SECONDS + $1)); shift
  until "$@"; do ((SECONDS < end)) || return 1; sleep 0.05; done
}

sed "s|/usr/bin/affix|$AFFIX|" "$unit" >"$tmp/affix-apply.service"
out=$(cd "$tmp" && systemd-analyze verify --man=no "$tmp/affix-apply.service" 2>&1); rc=$?
check "systemd-analyze verify: exit 0" "0" "$rc"
check "systemd-analyze verify: nothing to say" "" "$out"
check "installed where systemd looks" "1" "$(grep -c 'DESTINATION lib/systemd/system' "$AFFIX_SOURCE_DIR/CMakeLists.txt")"
check "Type=notify" "Type=notify" "$(grep '^Type=' "$unit")"
check "ExecReload: SIGHUP" 'ExecReload=/bin/kill -HUP $MAINPID' "$(grep '^ExecReload=' "$unit")"
check "capabilities: what its calls need" "CapabilityBoundingSet=CAP_SYS_NICE CAP_NET_ADMIN CAP_SYS_PTRACE" "$(grep '^CapabilityBoundingSet=' "$unit")"
check "address families" "RestrictAddressFamilies=AF_NETLINK AF_INET AF_INET6 AF_UNIX" "$(grep '^RestrictAddressFamilies=' "$unit")"
for d in ProtectSystem=strict ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes; do
  check "$d" "$d" "$(grep "^${d%%=*}=" "$unit")"
done
score=$(systemd-analyze security --offline=yes "$tmp/affix-apply.service" 2>&1 | sed -n 's/.*Overall exposure level for affix-apply.service: \([0-9.]*\).*/\1/p')
echo "exposure: $score"
check "exposure level below 4 (systemd's OK)" "1" "$(awk -v s="$score" 'BEGIN {print (s != "" && s < 4) ? 1 : 0}')"

# sd_notify, as systemd would receive it.
cat >"$tmp/rules.toml" <<'R'
[[rule]]
name = "none"
comm = "affix-no-such-process"
where = "cpu:0"
R
python3 - "$tmp/notify.sock" >"$tmp/notify.out" <<'P' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    msg = s.recv(4096).decode()
    print(msg, flush=True)
    if msg == "STOPPING=1":
        break
P
listener=$!
pids+=("$listener")
wait_for 10 test -S "$tmp/notify.sock"
NOTIFY_SOCKET=$tmp/notify.sock "$AFFIX" apply --follow "$tmp/rules.toml" 2>"$tmp/log" &
follower=$!
pids+=("$follower")
wait_for 20 grep -qx READY=1 "$tmp/notify.out"
kill -HUP "$follower"
wait_for 10 eval '[[ $(grep -c . "$tmp/notify.out") -ge 3 ]]'
kill -TERM "$follower"
wait "$follower"
check "SIGTERM: exit 0" "0" "$?"
wait_for 10 eval '! kill -0 $listener 2>/dev/null'
check "notify: ready, reloading, ready, stopping" "READY=1 RELOADING=1 READY=1 STOPPING=1" "$(tr '\n' ' ' <"$tmp/notify.out" | sed 's/ $//')"
exit $fail
