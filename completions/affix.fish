# fish completion for affix
#
# Commands, options, option values, locations with the machine's real socket,
# node and CPU numbers (read from /sys, from --root DIR, or from
# $AFFIX_COMPLETION_ROOT), PIDs for pin, show, watch and top, shield names for
# shield --off, and the wrapped command after WHERE (run, shield).

set -g __affix_commands run pin show topo explain watch top shield apply
set -g __affix_value_opts -n --count --order --exclude --cpu --slice -m --mem --weights --gpu --ranks --policy --nice --sched-slice --uclamp --root --as -i --interval -c --name --off --metrics
set -g __affix_shape_opts --no-smt -n --count --order --exclude --slice -m --mem --gpu --policy --nice --sched-slice --uclamp
set -g __affix_opts_run $__affix_shape_opts --weights --spread --env -v --verbose --dry-run -h --help
set -g __affix_opts_explain $__affix_shape_opts --weights --spread --json --as --shield --svg --ascii --root --ranks -h --help
set -g __affix_opts_pin $__affix_shape_opts --weights --spread --tid --tree -v --verbose --migrate --dry-run --check --json --irq -h --help
set -g __affix_opts_show --json --tree --pinned --cpu --irq --shield --svg --root -h --help
set -g __affix_opts_shield --isolated --irqs --mem --name --off --dry-run -v --verbose -h --help
set -g __affix_opts_topo --json --svg --ascii --root -h --help
set -g __affix_opts_apply --check --dry-run --json --follow --metrics -h --help
set -g __affix_opts_watch -i --interval -c --count --threads --json --tree --svg -h --help
set -g __affix_opts_top --once --json --no-events -i --interval -n --frames --pid --tree --name --root -h --help

# Prints the state of the command line before the cursor, one word each line:
# the command (run for the bare form), then what comes next: "first" (the
# word after affix), "where", "options", "pids", "tids", or "wrapped" followed
# by the wrapped command's words; last, the root to read the machine from.
function __affix_state
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -e tokens[1]
    set -l root $AFFIX_COMPLETION_ROOT
    if not set -q tokens[1]
        printf '%s\n' run first "$root"
        return
    end
    set -l cmd run
    if contains -- $tokens[1] $__affix_commands
        set cmd $tokens[1]
        set -e tokens[1]
    end
    set -l opts __affix_opts_$cmd
    set opts $$opts
    set -l where 0
    set -l endopts 0
    set -l tid 0
    set -l n (count $tokens)
    set -l i 1
    while test $i -le $n
        set -l w $tokens[$i]
        if test $endopts = 0; and test "x$w" = x--
            set endopts 1
        else if test $endopts = 0; and test $cmd = shield; and test "x$w" = x--mem
            # shield's --mem takes its nodes attached (--mem=NODES) or none
        else if test $endopts = 0; and begin
                contains -- $w $__affix_value_opts; or begin
                    test $cmd = top; and contains -- $w --pid --tree --frames
                end; or begin  # their --svg FILE (explain's, show's: --svg=FILE)
                    contains -- $cmd watch topo; and test "x$w" = x--svg
                end
            end
            set i (math $i + 1)
            if test "$w" = --root; and test $i -le $n
                set root $tokens[$i]
            end
        else if test $endopts = 0; and string match -q -- '-*' $w; and begin
                test $where = 0; or contains -- (string split -m1 = -- $w)[1] $opts
            end
            test "$w" = --tid; and set tid 1
            string match -q -- '--root=*' $w; and set root (string replace -- --root= '' $w)
        else if contains -- $cmd run pin explain shield top; and test $where = 0
            set where $i
        else if contains -- $cmd run shield; or test $cmd = watch -a $endopts = 1
            printf '%s\n' $cmd wrapped $tokens[$i..-1] "$cur"
            return
        end
        set i (math $i + 1)
    end
    set -l next options
    if contains -- $cmd run pin explain shield top; and test $where = 0
        set next where
    else if contains -- $cmd run shield; and begin
            test $endopts = 1; or not string match -q -- '-*' $cur
        end
        set next wrapped
    else if test $cmd = watch -a $endopts = 1
        set next wrapped
    else if test $cmd = pin -a $tid = 1
        set next tids
    else if test $cmd = pin -o $cmd = show -o $cmd = watch
        set next pids
    end
    if test $next = wrapped
        printf '%s\n' $cmd wrapped "$cur"
        return
    end
    printf '%s\n' $cmd $next "$root"
end

# True when the command is one of $argv and the cursor is not in the wrapped
# command.
function __affix_for
    set -l s (__affix_state)
    contains -- $s[1] $argv; and test $s[2] != wrapped
end

function __affix_next
    set -l s (__affix_state)
    contains -- $s[2] $argv
end

function __affix_root
    set -l s (__affix_state)
    echo $s[-1]
end

# Prints the numbers of a kernel cpulist.
function __affix_expand
    for part in (string split , -- $argv[1])
        set -l r (string split - -- $part)
        if set -q r[2]
            seq $r[1] $r[2]
        else if test -n "$r[1]"
            echo $r[1]
        end
    end
end

function __affix_cpus --argument-names root
    set -l sys $root/sys/devices/system/cpu
    if test -r $sys/online
        read -l line <$sys/online
        __affix_expand $line
    else
        for d in (string match -r -- '.*/cpu[0-9]+$' $sys/cpu*)
            test -d $d/topology; and string replace -r '.*/cpu' '' -- $d
        end | sort -n
    end
end

function __affix_node_dirs --argument-names root
    string match -r -- '.*/node[0-9]+$' $root/sys/devices/system/node/node*
end

# Prints the key of level $2 for CPU $3 under root $1.
function __affix_key --argument-names root level cpu
    set -l d $root/sys/devices/system/cpu/cpu$cpu
    set -l v 0
    switch $level
        case socket
            test -r $d/topology/physical_package_id; and read v <$d/topology/physical_package_id
            echo $v
        case die
            set -l p 0
            test -r $d/topology/physical_package_id; and read p <$d/topology/physical_package_id
            test -r $d/topology/die_id; and read v <$d/topology/die_id
            echo $p/$v
        case core
            for f in core_cpus_list thread_siblings_list core_cpus thread_siblings
                if test -r $d/topology/$f
                    read v <$d/topology/$f
                    echo $v
                    return
                end
            end
            echo $cpu
        case llc
            set -l best -1
            set -l key
            for c in (string match -r -- '.*/index[0-9]+$' $d/cache/index*)
                test -r $c/level; or continue
                set -l f $c/shared_cpu_list
                test -r $f; or set f $c/shared_cpu_map
                test -r $f; or continue
                if test -r $c/type
                    read -l t <$c/type
                    test "$t" = Instruction; and continue
                end
                read -l l <$c/level
                if test $l -gt $best
                    set best $l
                    read key <$f
                end
            end
            test $best -ge 0; and echo $key
        case node
            for n in (__affix_node_dirs "$root")
                test -r $n/cpulist; or continue
                read -l line <$n/cpulist
                if contains -- $cpu (__affix_expand $line)
                    string replace -r '.*/node' '' -- $n
                    return
                end
            end
            echo 0
        case '*'
            echo $cpu
    end
end

function __affix_level
    switch $argv[1]
        case socket package
            echo socket
        case node numa
            echo node
        case die
            echo die
        case llc l3
            echo llc
        case core
            echo core
        case cpu thread pu
            echo cpu
    end
end

# Prints the IDs level $2 takes under root $1; $3 is the level of the step
# before (empty in a first step).
function __affix_ids --argument-names root level parent
    set -l cpus (__affix_cpus "$root")
    if test -z "$parent"
        switch $level
            case socket
                for c in $cpus
                    __affix_key "$root" socket $c
                end | sort -nu
            case node
                set -l nodes (__affix_node_dirs "$root")
                if set -q nodes[1]
                    string replace -r '.*/node' '' -- $nodes | sort -n
                else
                    echo 0
                end
            case cpu
                printf '%s\n' $cpus
            case '*'
                set -l count (for c in $cpus; __affix_key "$root" $level $c; end | sort -u | count)
                test $count -gt 0; and seq 0 (math $count - 1)
        end
        return
    end
    set -l max (for c in $cpus
            set -l p (__affix_key "$root" $parent $c)
            set -l k (__affix_key "$root" $level $c)
            test -n "$p" -a -n "$k"; and echo "$p|$k"
        end | sort -u | cut -d'|' -f1 | uniq -c | sort -n | tail -n1 | string trim | string split ' ')[1]
    test -n "$max"; and test $max -gt 0; and seq 0 (math $max - 1)
end

# Prints the completions of the location being typed.
function __affix_where
    set -l cur (commandline -ct)
    set -l root (__affix_root)
    set -l term (string split + -- $cur)[-1]
    set -l step (string split . -- $term)[-1]
    set -l before (string sub -l (math (string length -- "$cur") - (string length -- "$step")) -- "$cur")
    if string match -q -- 'kind:*' $step
        printf '%s\n' {$before}kind:performance {$before}kind:efficiency {$before}kind:0 {$before}kind:1
        return
    end
    if string match -q -- '*:*' $step
        set -l name (string split -m1 : -- $step)[1]
        set -l level (__affix_level $name)
        test -n "$level"; or return
        set -l ids (string split -m1 : -- $step)[2]
        set -l idprefix ''
        if string match -q -- '*,*' $ids
            set idprefix (string replace -r ',[^,]*$' ',' -- $ids)
        end
        set -l parent
        if string match -q -- '*.*' $term
            set -l prev (string split . -- $term)[-2]
            set parent (__affix_level (string split -m1 : -- $prev)[1])
        end
        test -z "$idprefix"; and echo $before$name:all
        for l in (__affix_ids "$root" $level "$parent")
            echo $before$name:$idprefix$l
        end
        return
    end
    for l in socket node die llc core cpu kind
        echo $before$l:
    end
    if not string match -q -- '*.*' $term
        echo {$before}all
        echo {$before}self
        if string match -qr -- '^[0-9]' $step
            set -l idprefix ''
            string match -q -- '*,*' $step; and set idprefix (string replace -r ',[^,]*$' ',' -- $step)
            for c in (__affix_cpus "$root")
                echo $before$idprefix$c
            end
        end
    end
end

# The numbers of the GPUs (gpuN: PCI functions of class 03 of NVIDIA or AMD,
# or that NVIDIA's driver lists, PCI address order; a BMC's VGA is no GPU).
function __affix_gpus
    set -l n 0
    set -l root (__affix_root)
    for d in $root/sys/bus/pci/devices/*
        string match -q -- '0x03*' (cat $d/class 2>/dev/null); or continue
        set -l v (cat $d/vendor 2>/dev/null)
        if not contains -- "$v" 0x10de 0x1002
            test -z "$v"; and test -d $root/proc/driver/nvidia/gpus/(basename $d); or continue
        end
        echo $n
        set n (math $n + 1)
    end
end

function __affix_mem
    set -l cur (commandline -ct)
    string match -q -- '--*=*' $cur; and set cur (string split -m1 = -- $cur)[2]
    if string match -q -- '*:*' $cur
        # After POLICY: node numbers, the kernel's tiers, memory kinds;
        # after a '+', another term.
        set -l pol (string split -m1 : -- $cur)[1]
        set -l ids (string split -m1 : -- $cur)[2]
        set -l terms ''
        set -l term $ids
        if string match -q -- '*+*' $ids
            set terms (string replace -r '[^+]*$' '' -- $ids)
            set term (string replace -r '.*\+' '' -- $ids)
        end
        set -l list ''
        string match -q -- '*,*' $term; and not string match -q -- '*:*' $term
        and set list (string replace -r ',[^,]*$' ',' -- $term)
        for n in (__affix_ids (__affix_root) node '')
            echo $pol:$terms$list$n
        end
        for t in (__affix_root)/sys/devices/virtual/memory_tiering/memory_tier*
            test -d $t; and echo $pol:{$terms}tier:(string replace -r '.*memory_tier' '' -- $t)
        end
        for k in hbm dram cxl nvm gpu
            echo $pol:{$terms}mem:$k
        end
    else
        printf '%s\n' bind\t'only these nodes' preferred\t'these nodes first' \
            interleave\t'round-robin over nodes' weighted\t'by the interleave weights' \
            local\t'the node of the CPU'
    end
end

function __affix_weights
    echo auto\t"the kernel's, from each node's bandwidth"
    for n in (__affix_ids (__affix_root) node '')
        echo $n=
    end
end

function __affix_pids
    set -l s (__affix_state)
    if test $s[2] = tids
        string match -r -- '[0-9]+$' /proc/*/task/*
    else
        for p in (string match -r -- '.*/[0-9]+$' /proc/*)
            set -l comm
            test -r $p/comm; and read comm <$p/comm 2>/dev/null
            echo (string replace -r '.*/' '' -- $p)\t$comm
        end
    end
end

function __affix_wrapped
    set -l s (__affix_state)
    __fish_complete_subcommand --commandline $s[3..-1]
end

complete -c affix -f

# Commands and the wrapped command.
complete -c affix -n '__affix_next first' -a 'run' -d 'run a command placed at WHERE'
complete -c affix -n '__affix_next first' -a 'pin' -d 'move running processes'
complete -c affix -n '__affix_next first' -a 'show' -d 'where processes run'
complete -c affix -n '__affix_next first' -a 'topo' -d 'the machine'
complete -c affix -n '__affix_next first' -a 'explain' -d 'resolve WHERE, change nothing'
complete -c affix -n '__affix_next first' -a 'watch' -d 'how threads move, where memory is'
complete -c affix -n '__affix_next first' -a 'top' -d 'the whole machine, live, by topology'
complete -c affix -n '__affix_next first' -a 'shield' -d 'fence CPUs off for one program'
complete -c affix -n '__affix_next first' -a 'apply' -d 'apply a rules file to what runs now'
complete -c affix -n '__affix_next first where' -a '(__affix_where)'
complete -c affix -n '__affix_next pids tids' -a '(__affix_pids)'
complete -c affix -n '__affix_next wrapped' -a '(__affix_wrapped)'

# Global options.
complete -c affix -n '__affix_next first' -s h -l help -d 'print usage'
complete -c affix -n '__affix_next first' -s V -l version -d 'print the version'

# Options that shape the selection.
complete -c affix -n '__affix_for run pin explain' -l no-smt -d 'one hardware thread per core'
complete -c affix -n '__affix_for run pin explain' -s n -l count -x -d 'keep the first N CPUs'
complete -c affix -n '__affix_for run pin explain' -l order -x -a 'compact scatter' -d 'CPU order'
complete -c affix -n '__affix_for run pin explain' -l exclude -x -a '(__affix_where)' -d 'remove these CPUs'
complete -c affix -n '__affix_for run pin explain' -l slice -x -a 'rank' -d 'K/N or rank: part of the cores'
complete -c affix -n '__affix_for run pin explain' -s m -l mem -x -a '(__affix_mem)' -d 'memory policy POLICY[:NODES]'
complete -c affix -n '__affix_for run explain pin' -l weights -x -a '(__affix_weights)' -d 'weighted: N=W,... or auto'
complete -c affix -n '__affix_for run pin explain' -l gpu -x -a 'closest (__affix_gpus)' -d 'one GPU for this rank: closest, N or LIST'

# Scheduling.
complete -c affix -n '__affix_for run pin explain' -l policy -x -a 'other batch idle fifo:50 rr:50 deadline:2ms/10ms/10ms' -d 'scheduling policy'
complete -c affix -n '__affix_for run pin explain' -l nice -x -a '-5 0 5 10 19' -d 'nice value of other and batch threads'
complete -c affix -n '__affix_for run pin explain' -l sched-slice -x -a '0.5 1 3 10' -d 'EEVDF slice in ms (Linux 6.12)'
complete -c affix -n '__affix_for run pin explain' -l uclamp -x -a '0:1024 0:512 512:1024' -d 'utilization clamps MIN:MAX'

# run
complete -c affix -n '__affix_for run' -l env -d 'export AFFIX_CPUS, OMP_*, GOMAXPROCS'
complete -c affix -n '__affix_for run' -s v -l verbose -d 'print the placement'
complete -c affix -n '__affix_for run' -l dry-run -d 'print what would be done'
# pin
complete -c affix -n '__affix_for pin' -l spread -d 'one CPU per thread'
complete -c affix -n '__affix_for run explain' -l spread -d 'one CPU per new thread (--spread=N: N per CPU)'
complete -c affix -n '__affix_for pin' -l tid -d 'the IDs are thread IDs'
complete -c affix -n '__affix_for pin' -s v -l verbose -d 'print old and new CPU lists'
complete -c affix -n '__affix_for pin' -l migrate -d 'move existing pages too'
complete -c affix -n '__affix_for pin' -l tree -d 'the process and all its descendants'
complete -c affix -n '__affix_for pin' -l dry-run -d 'print what would change, change nothing'
complete -c affix -n '__affix_for pin' -l check -d 'verify the placement: exit 0 or 1, change nothing'
complete -c affix -n '__affix_for pin' -l json -d 'with --check: one JSON document'
complete -c affix -n '__affix_for pin' -l irq -d 'the IDs are IRQs or devices: move interrupts'
# explain
complete -c affix -n '__affix_for explain' -l ranks -x -a '2 4 8' -d 'the map of N local ranks'
complete -c affix -n '__affix_for explain' -l as -x -a 'systemd nginx docker taskset numactl' -d "another launcher's words"
# pictures
complete -c affix -n '__affix_for topo watch' -l svg -r -F -d 'the picture (SVG) to FILE'
complete -c affix -n '__affix_for explain show' -l svg -d 'the picture (SVG), --svg=FILE'
complete -c affix -n '__affix_for topo explain' -l ascii -d 'the picture in text'
# shield
complete -c affix -n '__affix_for shield' -l isolated -d 'off load balancing and unbound workqueues too'
complete -c affix -n '__affix_for shield' -l irqs -d 'move every movable IRQ off the CPUs'
complete -c affix -n '__affix_for shield' -l mem -d 'the shield\'s memory nodes (--mem=NODES)'
complete -c affix -n '__affix_for shield' -l name -x -d 'call it NAME'
complete -c affix -n '__affix_for shield' -l off -x -a '(ls (__affix_root)/run/affix/shields 2>/dev/null)' -d 'remove shield NAME'
complete -c affix -n '__affix_for shield' -l dry-run -d 'print what would be changed'
complete -c affix -n '__affix_for shield' -s v -l verbose -d 'print each change'
complete -c affix -n '__affix_for show explain' -l shield -d 'shields: show them; explain: systemd lines that fence WHERE off'
# show
complete -c affix -n '__affix_for show' -l tree -d 'each process and all its descendants'
complete -c affix -n '__affix_for show' -l pinned -d 'every pinned process'
complete -c affix -n '__affix_for show' -l cpu -x -a '(__affix_where)' -d 'who may run and who ran on these CPUs'
complete -c affix -n '__affix_for show' -l irq -d 'interrupts: CPU lists, devices, counts'
# show, topo, explain
complete -c affix -n '__affix_for show topo explain' -l json -d 'one JSON document'
complete -c affix -n '__affix_for show topo explain' -l root -x -a '(__fish_complete_directories)' -d 'read DIR/sys and DIR/proc'
complete -c affix -n '__affix_for run pin show topo explain watch top shield apply; and not __affix_next first' -s h -l help -d 'print usage'
# apply: the rules file, and its options
complete -c affix -n '__affix_for apply' -F
complete -c affix -n '__affix_for apply' -l check -d 'is everything where the rules say? exit 0 or 1'
complete -c affix -n '__affix_for apply' -l dry-run -d 'print what would be done, change nothing'
complete -c affix -n '__affix_for apply' -l json -d 'one JSON document'
complete -c affix -n '__affix_for apply' -l follow -d 'keep applying: new processes, enforce, SIGHUP reloads'
complete -c affix -n '__affix_for apply' -l metrics -r -F -d 'ADDR:PORT (--follow) or FILE (--check)'
# top
complete -c affix -n '__affix_for top' -l once -d 'one interval, then print it'
complete -c affix -n '__affix_for top' -l json -d 'with --once, one JSON object'
complete -c affix -n '__affix_for top' -l no-events -d 'with --once, read every thread, not the scheduler events'
complete -c affix -n '__affix_for top' -s i -l interval -x -a '0.5 1 2 5 10' -d 'seconds an interval lasts'
complete -c affix -n '__affix_for top' -s n -l frames -x -d 'leave after N frames'
complete -c affix -n '__affix_for top' -l pid -x -a '(__affix_pids)' -d 'only these processes (PID,PID...)'
complete -c affix -n '__affix_for top' -l tree -x -a '(__affix_pids)' -d 'only this process and its descendants'
complete -c affix -n '__affix_for top' -l name -x -d 'only processes whose name matches REGEX'
complete -c affix -n '__affix_for top' -l root -x -a '(__fish_complete_directories)' -d 'read DIR/sys and DIR/proc'
# watch
complete -c affix -n '__affix_for watch' -s i -l interval -x -a '0.5 1 2 5 10' -d 'seconds between samples'
complete -c affix -n '__affix_for watch' -s c -l count -x -d 'stop after N intervals'
complete -c affix -n '__affix_for watch' -l threads -d 'one row per thread'
complete -c affix -n '__affix_for watch' -l json -d 'JSON Lines'
complete -c affix -n '__affix_for watch' -l tree -d 'the descendants too'
