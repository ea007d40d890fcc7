#!/usr/bin/env bash
# affix run --env exports the placement; --dry-run prints and runs nothing.
. "$(dirname "$0")/check_lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vars='AFFIX_CPUS AFFIX_NODES OMP_NUM_THREADS GOMAXPROCS OMP_PLACES OMP_PROC_BIND AFFIX_ENV'
# A shell script that prints each variable, or "unset".
show="for v in $vars; do eval \"echo \\\$v=\\\${\$v-unset}\"; done"
unset $vars

check "--env all" "AFFIX_CPUS=0-1
AFFIX_NODES=0
OMP_NUM_THREADS=2
GOMAXPROCS=2
OMP_PLACES={0},{1}
OMP_PROC_BIND=close
AFFIX_ENV=OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND" "$("$AFFIX" --env all sh -c "$show")"

check "--env one CPU" "AFFIX_CPUS=1
AFFIX_NODES=0
OMP_NUM_THREADS=1
GOMAXPROCS=1
OMP_PLACES={1}
OMP_PROC_BIND=close
AFFIX_ENV=OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND" "$("$AFFIX" 1 --env sh -c "$show")"

check "--env keeps what is set" "AFFIX_CPUS=0-1
AFFIX_NODES=0
OMP_NUM_THREADS=7
GOMAXPROCS=2
OMP_PLACES=cores
OMP_PROC_BIND=spread
AFFIX_ENV=GOMAXPROCS" "$(OMP_NUM_THREADS=7 OMP_PLACES=cores OMP_PROC_BIND=spread "$AFFIX" --env all sh -c "$show")"

check "no --env, nothing exported" "AFFIX_CPUS=unset
AFFIX_NODES=unset
OMP_NUM_THREADS=unset
GOMAXPROCS=unset
OMP_PLACES=unset
OMP_PROC_BIND=unset
AFFIX_ENV=unset" "$("$AFFIX" all sh -c "$show")"

# --dry-run: exit 0, the plan on stdout, the command not run.
out=$("$AFFIX" --dry-run -m bind 1 touch "$tmp/marker" "a b")
rc=$?
check "dry-run status" 0 "$rc"
check "dry-run ran nothing" "absent" "$([[ -e "$tmp/marker" ]] && echo present || echo absent)"
check "dry-run output" "affix: would set memory policy bind on node 0
affix: would bind to CPUs 1 (1 CPU; socket 0; node 0)
affix: would exec: touch $tmp/marker 'a b'" "$out"
out=$("$AFFIX" all --dry-run --env touch "$tmp/marker")
check "dry-run --env ran nothing" "absent" "$([[ -e "$tmp/marker" ]] && echo present || echo absent)"
check "dry-run --env output" "affix: would bind to CPUs 0-1 (2 CPUs; socket 0; node 0)
affix: would set AFFIX_CPUS=0-1
affix: would set AFFIX_NODES=0
affix: would set OMP_NUM_THREADS=2
affix: would set GOMAXPROCS=2
affix: would set OMP_PLACES='{0},{1}'
affix: would set OMP_PROC_BIND=close
affix: would set AFFIX_ENV=OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND
affix: would exec: touch $tmp/marker" "$out"
# A dry run exits as the real run would: 127 not found, 126 not executable.
err=$("$AFFIX" --dry-run 0 no-such-command-affix 2>&1 >/dev/null)
check "dry-run of a missing command" 127 "$?"
check "dry-run of a missing command: error" "affix: error: command not found: 'no-such-command-affix'" "$err"
"$AFFIX" 0 no-such-command-affix 2>/dev/null
check "real run of a missing command" 127 "$?"
printf 'x\n' >"$tmp/data"
chmod 644 "$tmp/data"
err=$("$AFFIX" --dry-run 0 "$tmp/data" 2>&1 >/dev/null)
check "dry-run of a file that is not executable" 126 "$?"
check "dry-run of a file that is not executable: error" "affix: error: cannot execute '$tmp/data': Permission denied" "$err"
"$AFFIX" 0 "$tmp/data" 2>/dev/null
check "real run of a file that is not executable" 126 "$?"
"$AFFIX" --dry-run 0 "$tmp" 2>/dev/null >/dev/null
check "dry-run of a directory" 126 "$?"
(cd "$tmp" && chmod 755 data && PATH="$tmp" "$AFFIX" --dry-run 0 data >/dev/null)
check "dry-run finds the command in PATH" 0 "$?"
PATH="/nonexistent" "$AFFIX" --dry-run 0 data >/dev/null 2>&1
check "dry-run searches PATH only" 127 "$?"
# --dry-run after the command belongs to the command.
"$AFFIX" 0 sh -c 'touch "$0"' "$tmp/marker" --dry-run
check "--dry-run after the command is the command's" "present" "$([[ -e "$tmp/marker" ]] && echo present || echo absent)"

exit $fail
