#!/usr/bin/env bash
# zsh completion driven in a real interactive zsh (on a pty): what Tab offers
# for commands, options, option values, locations from /sys and captured
# machines, PIDs, and the wrapped command after WHERE.
set -uo pipefail
src=${AFFIX_SOURCE_DIR:?}
corpora=${AFFIX_CORPORA_DIR:-${AFFIX_BUILD_DIR:?}/corpora}
fail=0

zsh_complete() {  # zsh_complete LINE: the candidates, sorted, on one line
    timeout 30 zsh -f "$src/tests/cli/completion_zsh_capture.zsh" "$src" "$1" | sort | tr '\n' ' '
}
check() {  # check LINE WANT...
    local line=$1; shift
    local got want
    got=$(zsh_complete "$line")
    want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
    if [[ $got != "$want" ]]; then
        echo "FAIL: zsh '$line' offered [$got], expected [$want]"
        fail=1
    else
        echo "ok: zsh '$line' -> [$got]"
    fi
}

ncpu=$(getconf _NPROCESSORS_ONLN)
check "affix " run pin show topo explain watch top shield apply all self socket: node: die: llc: core: cpu: kind:
check "affix ex" explain
check "affix apply --" --check --dry-run --json --follow --metrics --help
check "affix show --" --json --tree --pinned --cpu --irq --shield --svg --root --help
check "affix top --" --once --json --no-events --interval --frames --pid --tree --name --root --help
check "affix shield --" --isolated --irqs --mem --name --off --dry-run --verbose --help
check "affix shield 0 lscp" lscpu
check "affix pin 0 --s" --sched-slice --slice --spread
check "affix --mem " bind preferred interleave weighted local
check "affix --policy " other batch idle fifo:50 rr:50 deadline:2ms/10ms/10ms
check "affix explain 0 --order " compact scatter
check "affix explain 0 --as " systemd nginx docker taskset numactl
check "affix --order=s" --order=scatter
check "affix cpu:" cpu:all $(seq -f 'cpu:%g' 0 $((ncpu - 1)))
check "affix explain --root $corpora/48amd64-4pa2n6c-sparse node:" \
    node:all node:0 node:1 node:2 node:33 node:34 node:45 node:72 node:73
AFFIX_COMPLETION_ROOT=$corpora/16em64t-4s2c2t check "affix socket:" \
    socket:all socket:0 socket:1 socket:2 socket:3
AFFIX_COMPLETION_ROOT=$corpora/16em64t-4s2c2t check "affix socket:1.core:" \
    socket:1.core:all socket:1.core:0 socket:1.core:1
AFFIX_COMPLETION_ROOT=$corpora/16em64t-4s2c2t check "affix show --cpu socket:" \
    socket:all socket:0 socket:1 socket:2 socket:3
check "affix 0 lscp" lscpu
check "affix socket:0 -- tasks" taskset
check "affix watch -- tasks" taskset
got=$(zsh_complete "affix run -n 1 all ls --colo")
[[ " $got " == *" --color "* && " $got " != *" --count "* ]] ||
    { echo "FAIL: zsh wrapped command's options: [$got]"; fail=1; }
sleep 300 &
sleeper=$!
got=$(zsh_complete "affix pin 0 $sleeper")
[[ " $got " == *" $sleeper "* ]] || { echo "FAIL: zsh pin PID: [$got] lacks $sleeper"; fail=1; }
got=$(zsh_complete "affix show $sleeper")
[[ " $got " == *" $sleeper "* ]] || { echo "FAIL: zsh show PID: [$got] lacks $sleeper"; fail=1; }
kill "$sleeper"; wait "$sleeper" 2>/dev/null
exit $fail
