#!/usr/bin/env bash
# bash completion driven in a real bash: COMP_WORDS/COMP_CWORD/COMP_LINE/
# COMP_POINT set as readline sets them, _affix called, COMPREPLY checked.
set -uo pipefail
src=${AFFIX_SOURCE_DIR:?}
corpora=${AFFIX_CORPORA_DIR:-${AFFIX_BUILD_DIR:?}/corpora}
fail=0

# Completes LINE (cursor at its end) in a fresh bash with bash-completion and
# completions/affix.bash loaded; prints COMPREPLY sorted, one per line.
complete_line() {
    local line=$1
    bash --norc --noprofile -c '
        line=$1
        [[ -r /usr/share/bash-completion/bash_completion ]] &&
            . /usr/share/bash-completion/bash_completion
        . "$2/completions/affix.bash"
        compopt() { :; }  # only valid inside a completion readline started
        COMP_WORDBREAKS=$'"'"'"\x27><=;|&(:'"'"'
        # Split as readline does: blanks separate words, ":" and "=" are
        # words of their own.
        words=()
        for tok in $line; do
            while [[ -n $tok ]]; do
                if [[ $tok =~ ^([:=]+)(.*)$ || $tok =~ ^([^:=]+)(.*)$ ]]; then
                    words+=("${BASH_REMATCH[1]}")
                    tok=${BASH_REMATCH[2]}
                fi
            done
        done
        [[ $line == *" " ]] && words+=("")
        COMP_WORDS=("${words[@]}")
        COMP_CWORD=$((${#words[@]} - 1))
        COMP_LINE=$line
        COMP_POINT=${#line}
        complete -p affix >/dev/null || { echo "no completion registered"; exit 1; }
        _affix affix "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]:-}"
        printf "%s\n" "${COMPREPLY[@]}" | sort
    ' complete_line "$line" "$src"
}

# expect_exact LINE WORD...: COMPREPLY is exactly these words (any order).
expect_exact() {
    local line=$1; shift
    local got want
    got=$(complete_line "$line" | tr '\n' ' ')
    want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
    if [[ $got != "$want" ]]; then
        echo "FAIL: '$line' completed to [$got], expected [$want]"
        fail=1
    else
        echo "ok: '$line' -> [$got]"
    fi
}

# expect_has LINE WORD...: COMPREPLY contains each word.
expect_has() {
    local line=$1; shift
    local got w
    got=$'\n'$(complete_line "$line")$'\n'
    for w in "$@"; do
        if [[ $got != *$'\n'"$w"$'\n'* ]]; then
            echo "FAIL: '$line' did not offer '$w'; got: $(echo $got)"
            fail=1
            return
        fi
    done
    echo "ok: '$line' offers $*"
}

# expect_lacks LINE WORD...: COMPREPLY contains none of the words.
expect_lacks() {
    local line=$1; shift
    local got w
    got=$'\n'$(complete_line "$line")$'\n'
    for w in "$@"; do
        if [[ $got == *$'\n'"$w"$'\n'* ]]; then
            echo "FAIL: '$line' offered '$w'"
            fail=1
            return
        fi
    done
    echo "ok: '$line' does not offer $*"
}

# 1. Commands.
expect_exact "affix " run pin show topo explain watch top shield apply socket: node: die: llc: core: cpu: kind: all self
expect_exact "affix e" explain
expect_exact "affix pi" pin
expect_exact "affix apply --" --check --dry-run --json --follow --metrics --help
# 2. Options, per command.
expect_exact "affix --v" --version --verbose
expect_exact "affix show --" --json --tree --pinned --cpu --irq --shield --svg --root --help
expect_exact "affix pin 0 --s" --spread --slice --sched-slice
expect_exact "affix explain --r" --ranks --root
expect_exact "affix topo -" --json --svg --ascii --root -h --help
expect_exact "affix watch -" -i --interval -c --count --threads --json --tree --svg -h --help
expect_exact "affix top -" --once --json --no-events -i --interval -n --frames --pid --tree --name --root -h --help
# top's --tree takes a PID (pin's and show's is a flag): PIDs, not locations.
expect_has "affix top --tree " $$
expect_lacks "affix top --tree " socket:
AFFIX_COMPLETION_ROOT=$corpora/16em64t-4s2c2t expect_exact "affix top --once so" socket:
expect_exact "affix shield --" --isolated --irqs --mem --name --off --dry-run --verbose --help
expect_exact "affix sh" show shield
# shield's --mem takes its nodes attached: the next word is still WHERE.
AFFIX_COMPLETION_ROOT=$corpora/16em64t-4s2c2t expect_exact "affix shield --mem so" socket:
AFFIX_COMPLETION_ROOT=$corpora/48amd64-4pa2n6c-sparse expect_exact "affix shield 0 --mem=3" 33 34
# --off NAME: the shields there are (under AFFIX_COMPLETION_ROOT).
shields=$(mktemp -d)
mkdir -p "$shields/run/affix/shields" && touch "$shields/run/affix/shields/affix-shield-1" "$shields/run/affix/shields/db"
AFFIX_COMPLETION_ROOT=$shields expect_exact "affix shield --off " affix-shield-1 db
rm -r "$shields"
# After WHERE, the shielded command and its own options.
expect_has "affix shield socket:0 --isolated tasks" taskset
expect_has "affix shield 0 -- ls --colo" --color=
# 3. Option values.
expect_exact "affix --mem " bind preferred interleave weighted local
# After POLICY: nodes, the kernel's tiers and the memory kinds, also after '+'.
tiered=$(mktemp -d); trap 'rm -rf "$tiered"' EXIT
mkdir -p "$tiered"/sys/devices/system/{cpu/cpu0,node/node0,node/node2} "$tiered"/sys/devices/virtual/memory_tiering/memory_tier{4,16}
AFFIX_COMPLETION_ROOT=$tiered expect_exact "affix --mem weighted:" 0 2 tier:4 tier:16 mem:hbm mem:dram mem:cxl mem:nvm mem:gpu
AFFIX_COMPLETION_ROOT=$tiered expect_exact "affix --mem bind:0+t" 0+tier:4 0+tier:16
AFFIX_COMPLETION_ROOT=$tiered expect_exact "affix explain 0 --weights " auto 0= 2=
expect_exact "affix --mem i" interleave
expect_exact "affix --policy " other batch idle fifo:50 rr:50 deadline:2ms/10ms/10ms
expect_exact "affix pin --policy b" batch
expect_exact "affix explain 0 --uclamp " 0:1024 0:512 512:1024
expect_exact "affix explain 0 --order " compact scatter
expect_exact "affix explain --root $corpora/nvidiagpunumanodes --gpu " closest 0 1 2 3 4 5
expect_exact "affix explain --root $corpora/2pa-pcidomain32bits all --gpu " closest  # a Cirrus VGA: a display
expect_exact "affix explain all --gpu c" closest
expect_exact "affix run --order=s" scatter
expect_exact "affix explain 0 --as " systemd nginx docker taskset numactl
expect_exact "affix kind:" performance efficiency 0 1
expect_exact "affix socket:0.kind:e" efficiency
expect_exact "affix --slice r" rank
# 4. Locations with this machine's numbers, and with captured machines'.
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | sed 's/.*node//' | sort -n)
expect_exact "affix node:" all ${nodes:-0}
expect_exact "affix cpu:" all $(seq 0 $(($(getconf _NPROCESSORS_ONLN) - 1)))
AFFIX_COMPLETION_ROOT=$corpora/16em64t-4s2c2t expect_exact "affix socket:" all 0 1 2 3
AFFIX_COMPLETION_ROOT=$corpora/48amd64-4pa2n6c-sparse expect_exact "affix explain node:" \
    all 0 1 2 33 34 45 72 73
AFFIX_COMPLETION_ROOT=$corpora/48amd64-4pa2n6c-sparse expect_exact "affix --mem bind:0,7" 0,72 0,73
expect_exact "affix explain --root $corpora/16em64t-4s2c2t socket:0,"  0,0 0,1 0,2 0,3
# A later step takes indexes: 2 cores per socket, 2 threads per core.
expect_exact "affix explain --root $corpora/16em64t-4s2c2t socket:1.core:" all 0 1
expect_exact "affix explain --root $corpora/16em64t-4s2c2t core:3.cpu:" all 0 1
expect_exact "affix explain --root $corpora/16em64t-4s2c2t core:" all $(seq 0 7)
expect_exact "affix explain --root $corpora/16em64t-4s2c2t socket:0+so" 0+socket:
expect_exact "affix socket:0.c" 0.core: 0.cpu:
expect_exact "affix pin --exclude cpu:" all $(seq 0 $(($(getconf _NPROCESSORS_ONLN) - 1)))
# show --cpu takes a WHERE, the machine's units.
expect_exact "affix show --root $corpora/16em64t-4s2c2t --cpu socket:" all 0 1 2 3
# 5. PIDs for pin, show and watch.
sleep 300 &
sleeper=$!
expect_has "affix pin 0 $sleeper" "$sleeper"
expect_has "affix show $sleeper" "$sleeper"
expect_has "affix pin --tid 0 $sleeper" "$sleeper"
expect_has "affix show " 1 "$sleeper"
expect_has "affix watch -i 2 $sleeper" "$sleeper"
expect_exact "affix watch -i " 0.5 1 2 5 10
kill "$sleeper"
wait "$sleeper" 2>/dev/null
expect_lacks "affix show $sleeper" "$sleeper"
# 6. The wrapped command after WHERE, and its own arguments.
expect_has "affix 0 tasks" taskset
expect_has "affix socket:0 --no-smt -- lscp" lscpu
expect_has "affix run -n 1 all ls --colo" --color=
expect_lacks "affix 0 ls --colo" --count --order
# watch -- COMMAND: the command, then its own arguments.
expect_has "affix watch -- lscp" lscpu
expect_has "affix watch -i 2 -- tasks" taskset
expect_lacks "affix watch -- ls --colo" --threads --count
# Options after WHERE are still affix's until the command starts.
expect_exact "affix 0 --dry" --dry-run

exit $fail
