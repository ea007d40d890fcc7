#!/usr/bin/env bash
# Install layout and the Debian package: `cmake --install` puts the binary,
# the man page and the three completions where distributions look; `cpack -G
# DEB` (reusing the build dir's binary) builds a .deb whose Depends cover
# every shared library the binary needs; the .deb unpacks into a scratch
# root, its affix runs, and its man page renders without warnings.
set -uo pipefail
build=${AFFIX_BUILD_DIR:?}
affix=${AFFIX:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
failed() { echo "FAIL: $*"; fail=1; }

# 1. cmake --install into a staging prefix.
cmake --install "$build" --prefix "$tmp/inst" >/dev/null || failed "cmake --install"
for f in bin/affix share/man/man1/affix.1 share/bash-completion/completions/affix \
         share/zsh/vendor-completions/_affix share/fish/vendor_completions.d/affix.fish; do
    [[ -f $tmp/inst/$f ]] || failed "cmake --install did not install $f"
done
[[ -x $tmp/inst/bin/affix ]] || failed "installed affix is not executable"

# 2. The .deb, built from the build dir (no rebuild), into a scratch dir.
(cd "$build" && timeout 120 cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
    { cat "$tmp/cpack.log"; failed "cpack -G DEB"; }
debs=("$tmp"/pkg/affix_*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || { failed "no single affix_*.deb: ${debs[*]}"; exit 1; }
deb=${debs[0]}
version=$("$affix" --version | awk '{print $2}')
[[ $(dpkg-deb -f "$deb" Package) == affix ]] || failed "Package is not affix"
[[ $(dpkg-deb -f "$deb" Version) == "$version" ]] ||
    failed "Version $(dpkg-deb -f "$deb" Version) differs from affix --version ($version)"
[[ $(dpkg-deb -f "$deb" Architecture) == "$(dpkg --print-architecture)" ]] || failed "Architecture"

# Depends: every shared library the binary needs is provided by a package
# named there (libnuma1, libfmt9, libc6, libstdc++6, libgcc-s1 as they are
# linked), and libc6/libstdc++6 in any case for a dynamic binary. A static
# binary (AFFIX_STATIC, the default) needs no shared library at all.
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
dep_names=" $(echo "$depends" | tr ',|' '\n\n' | awk '{print $1}' | tr '\n' ' ') "
needed=$(readelf -d "$affix" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if [[ -n $needed ]]; then
    for p in libc6 libstdc++6 libgcc-s1; do
        [[ $dep_names == *" $p "* ]] || failed "Depends lacks $p"
    done
else
    readelf -l "$affix" | grep -q INTERP && failed "no NEEDED libraries but an ELF interpreter"
    echo "ok: static binary, no shared library needed"
fi
for lib in $needed; do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|libc6,/ {print $NF; exit}')
    [[ -n $path ]] || path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
    real=$(readlink -f "$path")
    pkg=$(dpkg -S "$real" 2>/dev/null | head -1 | cut -d: -f1)
    [[ -n $pkg ]] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
    [[ -n $pkg ]] || { failed "no package owns $lib ($path)"; continue; }
    [[ $dep_names == *" $pkg "* ]] || failed "binary needs $lib from $pkg, not in Depends"
    echo "ok: $lib -> $pkg"
done

# The package's files are where distributions put them.
contents=$(dpkg-deb -c "$deb" | awk '{print $NF}' | grep -v '/$' | sort | tr '\n' ' ')
want="./usr/bin/affix ./usr/share/bash-completion/completions/affix ./usr/share/fish/vendor_completions.d/affix.fish ./usr/share/man/man1/affix.1 ./usr/share/zsh/vendor-completions/_affix "
[[ $contents == "$want" ]] || failed "package contents: [$contents], expected [$want]"

# 3. Unpacked into a scratch root: affix runs, the page renders cleanly.
dpkg -x "$deb" "$tmp/root" || failed "dpkg -x"
out=$("$tmp/root/usr/bin/affix" --version) || failed "packaged affix --version exit status"
[[ $out == "affix $version" ]] || failed "packaged affix --version printed [$out]"
man_err=$(MANWIDTH=80 man --warnings -l "$tmp/root/usr/share/man/man1/affix.1" 2>&1 >"$tmp/page.txt")
[[ -z $man_err ]] || failed "man --warnings: $man_err"
grep -q '^NAME' "$tmp/page.txt" && grep -q 'affix - place programs on CPUs and NUMA memory' "$tmp/page.txt" ||
    failed "rendered page lacks NAME line"
# The packaged completion loads in bash and registers _affix.
bash --norc -c ". '$tmp/root/usr/share/bash-completion/completions/affix' && complete -p affix" |
    grep -q -- '-F _affix affix' || failed "packaged bash completion does not register"

[[ $fail == 0 ]] && echo "ok: $deb"
exit $fail
