#!/usr/bin/env bash
# Nested --env: `affix --env all -- affix --env cpu:1 -- prog` hands prog
# variables that agree with AFFIX_CPUS=1; what the user set is kept and
# listed by -v and explain.
. "$(dirname "$0")/check_lib.bash"
vars='AFFIX_CPUS OMP_NUM_THREADS GOMAXPROCS OMP_PLACES OMP_PROC_BIND AFFIX_ENV'
show="for v in $vars; do eval \"echo \\\$v=\\\${\$v-unset}\"; done"
unset $vars AFFIX_NODES

check "nested: the inner placement replaces the outer exports" "AFFIX_CPUS=1
OMP_NUM_THREADS=1
GOMAXPROCS=1
OMP_PLACES={1}
OMP_PROC_BIND=close
AFFIX_ENV=OMP_NUM_THREADS,GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND" \
  "$("$AFFIX" --env all -- "$AFFIX" --env cpu:1 -- sh -c "$show")"

check "nested: the user's values survive both" "AFFIX_CPUS=1
OMP_NUM_THREADS=7
GOMAXPROCS=1
OMP_PLACES=cores
OMP_PROC_BIND=close
AFFIX_ENV=GOMAXPROCS,OMP_PROC_BIND" \
  "$(OMP_NUM_THREADS=7 OMP_PLACES=cores "$AFFIX" --env all -- "$AFFIX" --env cpu:1 -- sh -c "$show")"

# A job script that changes one export between the two: that one is the user's.
check "changed between: kept" "AFFIX_CPUS=1
OMP_NUM_THREADS=4
GOMAXPROCS=1
OMP_PLACES={1}
OMP_PROC_BIND=close
AFFIX_ENV=GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND" \
  "$("$AFFIX" --env all -- sh -c 'OMP_NUM_THREADS=4 exec "$0" --env cpu:1 -- sh -c "$1"' "$AFFIX" "$show")"

# -v lists what it keeps, after what it sets.
check "-v lists kept variables" "affix: bind to CPUs 1 (1 CPU; socket 0; node 0)
affix: set AFFIX_CPUS=1
affix: set AFFIX_NODES=0
affix: set GOMAXPROCS=1
affix: set OMP_PLACES='{1}'
affix: set OMP_PROC_BIND=close
affix: set AFFIX_ENV=GOMAXPROCS,OMP_PLACES,OMP_PROC_BIND
affix: keep OMP_NUM_THREADS=7 (set by the user)
affix: exec: true" "$(OMP_NUM_THREADS=7 "$AFFIX" -v --env 1 true 2>&1)"

# explain lists them too, in text and JSON; an inner explain sees the outer exports as affix's.
check_match "explain text: kept" "*
kept      OMP_NUM_THREADS=7 (set by the user)" "$(OMP_NUM_THREADS=7 "$AFFIX" explain 1)"
check_match "explain json: env_kept" '*"env_kept": {"OMP_NUM_THREADS": "7"}*' "$(OMP_NUM_THREADS=7 "$AFFIX" explain 1 --json)"
check_match "explain under an affix --env: nothing kept" '*"OMP_NUM_THREADS": "1"*"env_kept": {}*' \
  "$("$AFFIX" --env all -- "$AFFIX" explain 1 --json)"
exit $fail
