#!/usr/bin/env bash
# Usage, man page and completions agree (as hwloc's
# check-manpages-completions.pl): every option in `affix --help` and in each
# command's --help is in the man page and in every completion file; the bash
# and fish completions offer exactly the options of each command's --help.
set -uo pipefail
src=${AFFIX_SOURCE_DIR:?}
affix=${AFFIX:?}
fail=0
failed() { echo "FAIL: $*"; fail=1; }

# The options a help text names: -x and --long words that stand alone
# (after a blank, comma, bracket or '|', not inside words like last-level).
options_in() {
    grep -oE '(^|[][ ,|(])--?[A-Za-z][A-Za-z0-9-]*' | sed -E 's/^[][ ,|(]//' | sort -u
}
has_word() {  # has_word TEXT OPTION: OPTION occurs as a whole word in TEXT
    grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|$)" <<<"$1"
}

page=$(MANWIDTH=200 man -l "$src/man/affix.1" 2>/dev/null)
bash_file=$(<"$src/completions/affix.bash")
zsh_file=$(<"$src/completions/_affix")
fish_file=$(<"$src/completions/affix.fish")

# bash: what `affix CMD -<TAB>` offers (COMPREPLY), one per line.
bash_offers() {
    bash --norc --noprofile -c '
        . "$1/completions/affix.bash"
        COMP_WORDBREAKS=$'"'"'"\x27><=;|&(:'"'"'
        COMP_WORDS=($2 -); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="$2 -"; COMP_POINT=${#COMP_LINE}
        _affix affix - "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' bash_offers "$src" "$1" | sort -u
}
fish_offers() {
    fish -c "source '$src/completions/affix.fish'; complete -C '$1 -'" | cut -f1 | sort -u
}

total=0
for cmd in "" run explain pin show topo watch shield apply; do
    help=$("$affix" $cmd --help 2>&1)
    rc=$?
    label="affix${cmd:+ $cmd} --help"
    if [[ $rc != 0 ]]; then failed "$label exits $rc: $help"; continue; fi
    opts=$(options_in <<<"$help")
    [[ -n $opts ]] || { failed "$label names no options"; continue; }
    for opt in $opts; do
        total=$((total + 1))
        has_word "$page" "$opt" || failed "$opt ($label) is not in the man page"
        has_word "$bash_file" "$opt" || failed "$opt ($label) is not in completions/affix.bash"
        has_word "$zsh_file" "$opt" || failed "$opt ($label) is not in completions/_affix"
        if [[ $opt == --* ]]; then
            has_word "$fish_file" "-l ${opt#--}" || failed "$opt ($label) is not in completions/affix.fish"
        else
            has_word "$fish_file" "-s ${opt#-}" || failed "$opt ($label) is not in completions/affix.fish"
        fi
    done
    [[ -z $cmd ]] && continue
    # The completions offer exactly this command's options.
    want=$(echo "$opts" | sort -u | tr '\n' ' ')
    got=$(bash_offers "affix $cmd" | tr '\n' ' ')
    [[ $got == "$want" ]] || failed "bash offers [$got] for 'affix $cmd -', $label names [$want]"
    got=$(fish_offers "affix $cmd" | tr '\n' ' ')
    [[ $got == "$want" ]] || failed "fish offers [$got] for 'affix $cmd -', $label names [$want]"
done
echo "checked $total options"
[[ $total -ge 40 ]] || failed "only $total options found in the help texts"
exit $fail
