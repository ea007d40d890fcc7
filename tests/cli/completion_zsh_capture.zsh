#!/usr/bin/zsh -f
# completion_zsh_capture.zsh SRC LINE: prints the candidates the real zsh
# completion system offers for LINE (cursor at its end) with completions/_affix,
# one per line. It drives an interactive zsh on a pty (zsh/zpty) and wraps
# compadd to print what is added (the technique of zsh-capture-completion).
zmodload zsh/zpty || exit 2
src=$1 line=$2
zpty z zsh -f -i
init=$(mktemp)
cat >$init <<INIT
PROMPT=
fpath=($src/completions \$fpath)
autoload -Uz compinit && compinit -u -D
bindkey '^I' complete-word
null-line() { echo -E - \$'\0' }
compprefuncs=(null-line)
comppostfuncs=(null-line exit)
zstyle ':completion:*' list-grouped false
zstyle ':completion:*' insert-tab false
compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "\$@"; return; fi
  local -a __hits
  builtin compadd -A __hits "\$@"
  local -A apre hpre
  zparseopts -E P:=apre p:=hpre
  local h
  for h in \$__hits; do echo -E - "\$IPREFIX\${apre[-P]}\${hpre[-p]}\$h"; done
}
echo ok
INIT
zpty -w z "source $init"
repeat 10; do
  zpty -r z l || break
  [[ $l == ok* ]] && break
done
zpty -w z "$line"$'\t'
integer tog=0
while zpty -r z l; do
  l=${l%$'\r'}; l=${l%$'\n'}; l=${l%$'\r'}
  if [[ $l == *$'\0'* ]]; then
    (( tog++ )) && break || continue
  fi
  (( tog )) && echo -E - $l
done
rm -f $init
