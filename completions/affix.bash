# bash completion for affix                                  -*- shell-script -*-
#
# Completes commands, options, option values, locations with the machine's
# real socket, node and CPU numbers (read from /sys, or from --root DIR, or
# from $AFFIX_COMPLETION_ROOT), PIDs for pin, show, watch and top --pid/--tree, shield names
# for shield --off, and the wrapped command after WHERE (run, shield). Works with or without the bash-completion package.

_affix_commands="run pin show topo explain watch top shield apply"
_affix_levels="socket node die llc core cpu"
# Options that take a value, and the options of each command.
_affix_value_opts=" -n --count --order --exclude --cpu --slice -m --mem --weights --gpu --ranks --policy --nice --sched-slice --uclamp --root --as -i --interval -c --name --off --metrics "
_affix_shape_opts="--no-smt -n --count --order --exclude --slice -m --mem --gpu --policy --nice --sched-slice --uclamp"
_affix_run_opts="$_affix_shape_opts --weights --spread --env -v --verbose --dry-run -h --help"
_affix_explain_opts="$_affix_shape_opts --weights --spread --json --as --shield --svg --ascii --root --ranks -h --help"
_affix_pin_opts="$_affix_shape_opts --weights --spread --tid --tree -v --verbose --migrate --dry-run --check --json --irq -h --help"
_affix_show_opts="--json --tree --pinned --cpu --irq --shield --svg --root -h --help"
_affix_shield_opts="--isolated --irqs --mem --name --off --dry-run -v --verbose -h --help"
_affix_topo_opts="--json --svg --ascii --root -h --help"
_affix_apply_opts="--check --dry-run --json --follow --metrics -h --help"
_affix_watch_opts="-i --interval -c --count --threads --json --tree --svg -h --help"
_affix_top_opts="--once --json --no-events -i --interval -n --frames --pid --tree --name --root -h --help"
_affix_global_opts="-h --help -V --version"

# Prints the numbers of the GPUs under root $1 (gpuN: the PCI functions of
# class 03 of NVIDIA or AMD, or that NVIDIA's driver lists, in PCI address
# order; a BMC's VGA is a display, no GPU).
_affix_gpus()
{
    local d c v n=0
    for d in "$1"/sys/bus/pci/devices/*; do
        read -r c 2>/dev/null <"$d/class" || continue
        [[ $c == 0x03* ]] || continue
        v=
        read -r v 2>/dev/null <"$d/vendor"
        [[ $v == 0x10de || $v == 0x1002 || ( -z $v && -d $1/proc/driver/nvidia/gpus/${d##*/} ) ]] || continue
        echo $n
        n=$((n + 1))
    done
}

# Prints the numbers of a kernel cpulist ("0-3,8"), one per line.
_affix_expand_list()
{
    local part lo hi
    local IFS=,
    for part in $1; do
        [[ $part =~ ^([0-9]+)(-([0-9]+))?$ ]] || continue
        lo=${BASH_REMATCH[1]}
        hi=${BASH_REMATCH[3]:-$lo}
        for ((; lo <= hi; lo++)); do echo "$lo"; done
    done
}

# Reads the machine under root $1 into the _affix_k_* arrays: for each online
# CPU its socket, node, die, last-level cache and core key.
_affix_scan()
{
    local root=$1 sys=$1/sys/devices/system cpu dir line lvl type best key n f
    declare -gA _affix_k_socket=() _affix_k_node=() _affix_k_die=() \
        _affix_k_llc=() _affix_k_core=()
    _affix_cpus=()
    if [[ -r $sys/cpu/online ]]; then
        read -r line <"$sys/cpu/online"
        _affix_cpus=($(_affix_expand_list "$line"))
    else
        for dir in "$sys"/cpu/cpu[0-9]*; do
            [[ -d $dir/topology ]] && _affix_cpus+=("${dir##*/cpu}")
        done
    fi
    for cpu in "${_affix_cpus[@]}"; do
        dir=$sys/cpu/cpu$cpu
        line=0
        [[ -r $dir/topology/physical_package_id ]] &&
            read -r line <"$dir/topology/physical_package_id"
        _affix_k_socket[$cpu]=$line
        key=0
        [[ -r $dir/topology/die_id ]] && read -r key <"$dir/topology/die_id"
        _affix_k_die[$cpu]=$line/$key
        key=$cpu
        for f in core_cpus_list thread_siblings_list core_cpus thread_siblings; do
            if [[ -r $dir/topology/$f ]]; then
                read -r key <"$dir/topology/$f"
                break
            fi
        done
        _affix_k_core[$cpu]=$key
        best=-1
        for line in "$dir"/cache/index[0-9]*; do
            [[ -r $line/level ]] || continue
            f=$line/shared_cpu_list
            [[ -r $f ]] || f=$line/shared_cpu_map
            [[ -r $f ]] || continue
            type=
            [[ -r $line/type ]] && read -r type <"$line/type"
            [[ $type == Instruction ]] && continue
            read -r lvl <"$line/level"
            if ((lvl > best)); then
                best=$lvl
                read -r key <"$f"
            fi
        done
        ((best >= 0)) && _affix_k_llc[$cpu]=$key
        _affix_k_node[$cpu]=0
    done
    for dir in "$sys"/node/node[0-9]*; do
        [[ -r $dir/cpulist ]] || continue
        n=${dir##*/node}
        read -r line <"$dir/cpulist"
        for cpu in $(_affix_expand_list "$line"); do
            [[ -n ${_affix_k_socket[$cpu]+x} ]] && _affix_k_node[$cpu]=$n
        done
    done
}

# Prints the keys of level $1 of every online CPU (one per line); for cpu the
# CPU number itself.
_affix_keys()
{
    local cpu
    for cpu in "${_affix_cpus[@]}"; do
        case $1 in
            socket) echo "${_affix_k_socket[$cpu]}" ;;
            node) echo "${_affix_k_node[$cpu]}" ;;
            die) echo "${_affix_k_die[$cpu]}" ;;
            llc) [[ -n ${_affix_k_llc[$cpu]+x} ]] && echo "${_affix_k_llc[$cpu]}" ;;
            core) echo "${_affix_k_core[$cpu]}" ;;
            *) echo "$cpu" ;;
        esac
    done
}

# Canonical level name for $1 (aliases resolved), or nothing.
_affix_level()
{
    case $1 in
        socket | package) echo socket ;;
        node | numa) echo node ;;
        die) echo die ;;
        llc | l3) echo llc ;;
        core) echo core ;;
        cpu | thread | pu) echo cpu ;;
    esac
}

# Prints the IDs level $2 takes under root $1: kernel numbers for socket,
# node and cpu in a first step, indexes otherwise; $3 is the level of the
# step before (empty in a first step).
_affix_ids()
{
    local root=$1 level=$2 parent=$3 dir count=0 max=0 p
    _affix_scan "$root"
    if [[ -z $parent ]]; then
        case $level in
            socket) _affix_keys socket | sort -nu ;;
            node)
                local -a nodes=("$root"/sys/devices/system/node/node[0-9]*)
                if [[ -d ${nodes[0]} ]]; then
                    printf '%s\n' "${nodes[@]##*/node}" | sort -n
                else
                    echo 0
                fi
                ;;
            cpu) printf '%s\n' "${_affix_cpus[@]}" ;;
            *)
                count=$(_affix_keys "$level" | sort -u | wc -l)
                ((count > 0)) && seq 0 $((count - 1))
                ;;
        esac
        return
    fi
    # A later step: indexes up to the most units of this level that any one
    # unit of the level before holds.
    local -A seen=() per=()
    local cpu pk ck
    for cpu in "${_affix_cpus[@]}"; do
        _affix_key_of "$parent" "$cpu" || continue
        pk=$REPLY
        _affix_key_of "$level" "$cpu" || continue
        ck=$REPLY
        [[ -n ${seen["$pk|$ck"]+x} ]] && continue
        seen["$pk|$ck"]=1
        per[$pk]=$((${per[$pk]:-0} + 1))
    done
    for p in "${per[@]}"; do ((p > max)) && max=$p; done
    ((max > 0)) && seq 0 $((max - 1))
}

# Sets REPLY to the key of level $1 of CPU $2; fails where it has none.
_affix_key_of()
{
    case $1 in
        socket) REPLY=${_affix_k_socket[$2]} ;;
        node) REPLY=${_affix_k_node[$2]} ;;
        die) REPLY=${_affix_k_die[$2]} ;;
        llc)
            [[ -n ${_affix_k_llc[$2]+x} ]] || return 1
            REPLY=${_affix_k_llc[$2]}
            ;;
        core) REPLY=${_affix_k_core[$2]} ;;
        *) REPLY=$2 ;;
    esac
}

# Sets COMPREPLY to the completions of the location $1 under root $2.
_affix_where()
{
    local cur=$1 root=$2 term step before level ids idprefix parent prev_step l
    local -a cands=()
    term=${cur##*+}
    step=${term##*.}
    before=${cur%"$step"}
    if [[ $step == kind:* ]]; then
        cands=("${before}kind:performance" "${before}kind:efficiency" "${before}kind:0" "${before}kind:1")
        COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur"))
        return
    fi
    if [[ $step == *:* ]]; then
        level=$(_affix_level "${step%%:*}")
        [[ -n $level ]] || return
        ids=${step#*:}
        idprefix=
        [[ $ids == *,* ]] && idprefix=${ids%,*},
        [[ ${ids##*,} == *-* ]] && idprefix+=${ids##*,} && idprefix=${idprefix%-*}-
        parent=
        if [[ $term == *.* ]]; then
            prev_step=${term%.*}
            prev_step=${prev_step##*.}
            parent=$(_affix_level "${prev_step%%:*}")
        fi
        [[ -z $idprefix ]] && cands+=("$before${step%%:*}:all")
        for l in $(_affix_ids "$root" "$level" "$parent"); do
            cands+=("$before${step%%:*}:$idprefix$l")
        done
        COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur"))
        return
    fi
    for l in $_affix_levels kind; do cands+=("$before$l:"); done
    if [[ $term != *.* ]]; then
        cands+=("${before}all" "${before}self")
        if [[ $step == [0-9]* ]]; then
            _affix_scan "$root"
            idprefix=
            [[ $step == *,* ]] && idprefix=${step%,*},
            for l in "${_affix_cpus[@]}"; do cands+=("$before$idprefix$l"); done
        fi
    fi
    COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur"))
    [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
}

# Removes from COMPREPLY what readline keeps before a word break in $1
# (':' and '=' split words when they are in COMP_WORDBREAKS).
_affix_trim()
{
    local i c pre=
    for ((i = ${#1} - 1; i >= 0; i--)); do
        c=${1:i:1}
        if [[ ($c == ":" || $c == "=") && $COMP_WORDBREAKS == *"$c"* ]]; then
            pre=${1:0:i+1}
            break
        fi
    done
    [[ -n $pre ]] && COMPREPLY=("${COMPREPLY[@]#"$pre"}")
    return 0
}

_affix_pids()
{
    local -a p
    if [[ $1 == tid ]]; then p=(/proc/[0-9]*/task/[0-9]*); else p=(/proc/[0-9]*); fi
    printf '%s\n' "${p[@]##*/}"
}

# Sets COMPREPLY to the values of option $1 starting with $2.
_affix_value()
{
    local opt=$1 cur=$2 root=$3 n
    local -a cands=()
    case $opt in
        --order) COMPREPLY=($(compgen -W "compact scatter" -- "$cur")) ;;
        --svg) COMPREPLY=($(compgen -f -- "$cur")) ;;
        --as) COMPREPLY=($(compgen -W "systemd nginx docker taskset numactl" -- "$cur")) ;;
        --slice) COMPREPLY=($(compgen -W "rank 0/2 1/2" -- "$cur")) ;;
        --gpu) COMPREPLY=($(compgen -W "closest $(_affix_gpus "$root")" -- "$cur")) ;;
        --ranks) COMPREPLY=($(compgen -W "2 4 8" -- "$cur")) ;;
        --policy) COMPREPLY=($(compgen -W "other batch idle fifo:50 rr:50 deadline:2ms/10ms/10ms" -- "$cur")) ;;
        --nice) COMPREPLY=($(compgen -W "-5 0 5 10 19" -- "$cur")) ;;
        --sched-slice) COMPREPLY=($(compgen -W "0.5 1 3 10" -- "$cur")) ;;
        --uclamp) COMPREPLY=($(compgen -W "0:1024 0:512 512:1024" -- "$cur")) ;;
        -i | --interval) COMPREPLY=($(compgen -W "0.5 1 2 5 10" -- "$cur")) ;;
        --pid | --tree) COMPREPLY=($(compgen -W "$(_affix_pids)" -- "$cur")) ;;
        --frames) COMPREPLY=($(compgen -W "1 10 60" -- "$cur")) ;;
        -m | --mem)
            if [[ $cur == *:* ]]; then
                # After POLICY: node numbers, the kernel's tiers, memory kinds;
                # after a '+', another term.
                local pol=${cur%%:*} rest=${cur#*:} terms= term list= t
                if [[ $rest == *+* ]]; then terms=${rest%+*}+ term=${rest##*+}; else term=$rest; fi
                [[ $term == *,* && $term != *:* ]] && list=${term%,*},
                for n in $(_affix_ids "$root" node ""); do cands+=("$pol:$terms$list$n"); done
                for t in "$root"/sys/devices/virtual/memory_tiering/memory_tier[0-9]*; do
                    [[ -d $t ]] && cands+=("$pol:${terms}tier:${t##*memory_tier}")
                done
                for t in hbm dram cxl nvm gpu; do cands+=("$pol:${terms}mem:$t"); done
                COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "bind preferred interleave weighted local" -- "$cur"))
            fi
            ;;
        --weights)
            for n in $(_affix_ids "$root" node ""); do cands+=("$n="); done
            COMPREPLY=($(compgen -W "auto ${cands[*]}" -- "$cur"))
            compopt -o nospace 2>/dev/null
            ;;
        --exclude|--cpu) _affix_where "$cur" "$root" ;;
        --root)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -d -- "$cur"))
            ;;
        --off) COMPREPLY=($(compgen -W "$(ls "$root/run/affix/shields" 2>/dev/null)" -- "$cur")) ;;
        --metrics)  # apply: ADDR:PORT (--follow) or a FILE (--check)
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
            ;;
        --shield-mem)  # shield --mem=NODES
            local pre=
            [[ $cur == *,* ]] && pre=${cur%,*},
            for n in $(_affix_ids "$root" node ""); do cands+=("$pre$n"); done
            COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur"))
            ;;
        *) COMPREPLY=() ;;
    esac
}

# Splits the command line into words that keep ':' and '=' together
# (bash splits them apart); sets words, starts (the COMP_WORDS index each
# word begins at), cword.
_affix_split()
{
    local line=$COMP_LINE i w trimmed
    words=() starts=() cword=0
    [[ -n ${COMP_POINT-} ]] && line=${line:0:COMP_POINT}
    for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        trimmed=${line#"${line%%[![:blank:]]*}"}
        if ((i == 0)) || [[ ${#trimmed} -ne ${#line} ]] || ((${#words[@]} == 0)); then
            words+=("$w")
            starts+=("$i")
        else
            words[${#words[@]} - 1]+=$w
        fi
        line=${trimmed#"$w"}
    done
    cword=$((${#words[@]} - 1))
}

_affix()
{
    local -a words starts
    local cword cur cmd=run first=1 k w where=-1 cmdidx=-1 endopts=0 root opts
    _affix_split
    cur=${words[cword]}
    root=${AFFIX_COMPLETION_ROOT:-}
    COMPREPLY=()

    if ((cword >= 1)) && [[ " $_affix_commands " == *" ${words[1]} "* ]] && ((cword > 1)); then
        cmd=${words[1]}
        first=2
    fi
    opts=_affix_${cmd}_opts
    opts=${!opts}

    # Walk the words before the cursor: options, their values, WHERE, and
    # for run the start of the wrapped command.
    for ((k = first; k < cword; k++)); do
        w=${words[k]}
        if ((endopts == 0)) && [[ $w == -- ]]; then
            endopts=1
            [[ $cmd == watch ]] && where=$k  # watch -- COMMAND: the command follows
        elif ((endopts == 0)) && [[ $cmd == shield && $w == --mem ]]; then
            :  # shield's --mem takes its nodes attached (--mem=NODES) or none
        elif ((endopts == 0)) && [[ $_affix_value_opts == *" $w "* ||
            ( $cmd == top && " --pid --tree --frames " == *" $w "* ) ||
            ( ( $cmd == watch || $cmd == topo ) && $w == --svg ) ]]; then  # their --svg FILE (explain's, show's: --svg=FILE)
            if ((k + 1 == cword)); then
                _affix_value "$w" "$cur" "$root"
                _affix_trim "$cur"
                return 0
            fi
            ((k++))
            [[ $w == --root ]] && root=${words[k]}
        elif ((endopts == 0)) && [[ $w == -* && ( $where -lt 0 || " $opts " == *" ${w%%=*} "* ) ]]; then
            [[ $w == --root=* ]] && root=${w#--root=}
        elif [[ $cmd == run || $cmd == pin || $cmd == explain || $cmd == shield ]] && ((where < 0)); then
            where=$k
        elif [[ $cmd == run || $cmd == shield ]]; then
            cmdidx=$k
            break
        elif [[ $cmd == watch ]] && ((where >= 0)); then
            break
        fi
    done

    # After WHERE in the run form (and shield's), after watch's "--": the
    # wrapped command and its arguments.
    if [[ $cmd == watch ]] && ((where >= 0)); then
        cmdidx=$((where + 1))
        ((cmdidx > cword)) && cmdidx=$cword
    fi
    if [[ $cmd == run || $cmd == shield ]] && ((cmdidx < 0 && where >= 0)) &&
        [[ $endopts == 1 || $cur != -* ]]; then
        cmdidx=$cword
    fi
    if ((cmdidx >= 0)); then
        if declare -F _command_offset >/dev/null; then
            _command_offset "${starts[cmdidx]}"
        elif ((cmdidx == cword)); then
            COMPREPLY=($(compgen -c -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return 0
    fi

    if [[ $cur == --*=* ]]; then
        if [[ $cmd == shield && ${cur%%=*} == --mem ]]; then
            _affix_value --shield-mem "${cur#*=}" "$root"
        else
            _affix_value "${cur%%=*}" "${cur#*=}" "$root"
        fi
        COMPREPLY=("${COMPREPLY[@]/#/${cur%%=*}=}")
        _affix_trim "$cur"
        return 0
    fi
    if [[ $cur == -* ]]; then
        ((cword == 1)) && opts="$opts $_affix_global_opts"
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return 0
    fi
    case $cmd in
        run | explain | pin | shield)
            if ((where < 0)); then
                _affix_where "$cur" "$root"
                ((cword == 1)) && COMPREPLY+=($(compgen -W "$_affix_commands" -- "$cur"))
                _affix_trim "$cur"
            elif [[ $cmd == pin ]]; then
                local tid=
                [[ " ${words[*]:first:cword-first} " == *" --tid "* ]] && tid=tid
                COMPREPLY=($(compgen -W "$(_affix_pids $tid)" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "$opts" -- "$cur"))
            fi
            ;;
        show | watch)
            COMPREPLY=($(compgen -W "$(_affix_pids)" -- "$cur"))
            ;;
        topo)
            COMPREPLY=($(compgen -W "$opts" -- "$cur"))
            ;;
        top)
            _affix_where "$cur" "$root"
            _affix_trim "$cur"
            ;;
        apply)  # the rules file
            COMPREPLY=($(compgen -f -- "$cur"))
            ;;
    esac
    return 0
}

complete -F _affix affix
