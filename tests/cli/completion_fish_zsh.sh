#!/usr/bin/env bash
# zsh and fish completions: both load cleanly (zsh -n, fish -n); fish's
# `complete -C` answers real situations; zsh's location helpers read the
# machine's numbers from captured machines.
set -uo pipefail
src=${AFFIX_SOURCE_DIR:?}
corpora=${AFFIX_CORPORA_DIR:-${AFFIX_BUILD_DIR:?}/corpora}
fail=0

check() {  # check NAME GOT WANT
    if [[ $2 != "$3" ]]; then
        echo "FAIL: $1: got [$2], expected [$3]"
        fail=1
    else
        echo "ok: $1 -> [$2]"
    fi
}

zsh -n "$src/completions/_affix" || { echo "FAIL: zsh -n"; fail=1; }
fish -n "$src/completions/affix.fish" || { echo "FAIL: fish -n"; fail=1; }
# Loading them reports nothing on stderr.
err=$(fish -c "source '$src/completions/affix.fish'" 2>&1)
check "fish loads silently" "$err" ""
err=$(zsh -f -c "autoload -Uz compinit && compinit -u -D && fpath=('$src/completions' \$fpath) && autoload -Uz _affix && source '$src/completions/_affix'" 2>&1)
check "zsh loads silently" "$err" ""

# fish: the candidates (without descriptions) that `complete -C LINE` gives.
fish_complete() {
    fish -c "source '$src/completions/affix.fish'; complete -C '$1'" 2>&1 | cut -f1 | sort | tr '\n' ' '
}
check "fish commands" "$(fish_complete 'affix e')" "explain "
check "fish --order values" "$(fish_complete 'affix explain 0 --order ')" "compact scatter "
check "fish --as values" "$(fish_complete 'affix explain 0 --as ')" "docker nginx numactl systemd taskset "
check "fish --mem values" "$(fish_complete 'affix --mem ')" "bind interleave local preferred weighted "
check "fish top options" "$(fish_complete 'affix top --o')" "--once "
check "fish top --tree: PIDs" "yes" "$(fish_complete 'affix top --tree ' | tr ' ' '\n' | grep -qx "$$" && echo yes)"
check "fish --policy values" "$(fish_complete 'affix pin --policy ')" "batch deadline:2ms/10ms/10ms fifo:50 idle other rr:50 "
check "fish show options" "$(fish_complete 'affix show --')" "--cpu --help --irq --json --pinned --root --shield --svg --tree "
check "fish shield options" "$(fish_complete 'affix shield --')" "--dry-run --help --irqs --isolated --mem --name --off --verbose "
check "fish shield: the command after WHERE" "$(fish_complete 'affix shield 0 lscp')" "lscpu "
check "fish pin options" "$(fish_complete 'affix pin 0 --s')" "--sched-slice --slice --spread "
check "fish run options after WHERE" "$(fish_complete 'affix 0 --dr')" "--dry-run "
check "fish sockets of a 4-socket machine" \
    "$(AFFIX_COMPLETION_ROOT=$corpora/16em64t-4s2c2t fish_complete 'affix socket:')" \
    "socket:0 socket:1 socket:2 socket:3 socket:all "
check "fish sparse node numbers via --root" \
    "$(fish_complete "affix explain --root $corpora/48amd64-4pa2n6c-sparse node:")" \
    "node:0 node:1 node:2 node:33 node:34 node:45 node:72 node:73 node:all "
check "fish show --cpu: a WHERE" \
    "$(AFFIX_COMPLETION_ROOT=$corpora/16em64t-4s2c2t fish_complete 'affix show --cpu socket:')" \
    "socket:0 socket:1 socket:2 socket:3 socket:all "
check "fish cores of a socket" \
    "$(AFFIX_COMPLETION_ROOT=$corpora/16em64t-4s2c2t fish_complete 'affix socket:1.core:')" \
    "socket:1.core:0 socket:1.core:1 socket:1.core:all "
tiered=$(mktemp -d); trap 'rm -rf "$tiered"' EXIT
mkdir -p "$tiered"/sys/devices/system/{cpu/cpu0,node/node0,node/node2} "$tiered"/sys/devices/virtual/memory_tiering/memory_tier{4,16}
check "fish --mem nodes, tiers and kinds" "$(AFFIX_COMPLETION_ROOT=$tiered fish_complete 'affix --mem weighted:0+')" \
    "weighted:0+0 weighted:0+2 weighted:0+mem:cxl weighted:0+mem:dram weighted:0+mem:gpu weighted:0+mem:hbm weighted:0+mem:nvm weighted:0+tier:16 weighted:0+tier:4 "
check "fish --weights" "$(AFFIX_COMPLETION_ROOT=$tiered fish_complete 'affix explain 0 --weights ')" "0= 2= auto "
check "fish this machine's CPUs" "$(fish_complete 'affix cpu:')" \
    "$(printf 'cpu:%s\n' all $(seq 0 $(($(getconf _NPROCESSORS_ONLN) - 1))) | sort | tr '\n' ' ')"
sleep 300 &
sleeper=$!
got=$(fish_complete "affix pin 0 $sleeper")
[[ " $got " == *" $sleeper "* ]] || { echo "FAIL: fish pin PID: [$got] lacks $sleeper"; fail=1; }
got=$(fish_complete "affix show $sleeper")
[[ " $got " == *" $sleeper "* ]] || { echo "FAIL: fish show PID: [$got] lacks $sleeper"; fail=1; }
kill "$sleeper"; wait "$sleeper" 2>/dev/null
check "fish wrapped command" "$(fish_complete 'affix socket:0 -- lscp')" "lscpu "
check "fish watch's command" "$(fish_complete 'affix watch -- lscp')" "lscpu "
got=$(fish_complete 'affix 0 ls --colo')
[[ " $got " == *" --color "* && " $got " != *" --count "* ]] ||
    { echo "FAIL: fish wrapped command's options: [$got]"; fail=1; }

# zsh: the location helpers give the same numbers.
zsh_ids() {
    zsh -f -c "source '$src/completions/_affix'; _affix_ids '$1' '$2' '$3'" | tr '\n' ' '
}
check "zsh sockets" "$(zsh_ids "$corpora/16em64t-4s2c2t" socket '')" "0 1 2 3 "
check "zsh sparse nodes" "$(zsh_ids "$corpora/48amd64-4pa2n6c-sparse" node '')" "0 1 2 33 34 45 72 73 "
check "zsh cores per socket" "$(zsh_ids "$corpora/16em64t-4s2c2t" core socket)" "0 1 "
check "zsh cores" "$(zsh_ids "$corpora/16em64t-4s2c2t" core '')" "0 1 2 3 4 5 6 7 "
check "zsh this machine's CPUs" "$(zsh_ids / cpu '')" "$(seq 0 $(($(getconf _NPROCESSORS_ONLN) - 1)) | tr '\n' ' ')"

exit $fail
