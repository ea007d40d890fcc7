#!/usr/bin/env bash
# Install layout and the Debian package: `cmake --install` puts the binary,
# the man page and the three completions where distributions look; `cpack -G
# DEB` (reusing the build dir's binary) builds a .deb whose Depends cover
# every shared library the binary needs (libc6 for the default dynamic
# link, at the version its symbol versions need); the .deb unpacks into a
# scratch root, its affix is stripped and runs, and its man page renders
# without warnings.
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
         share/zsh/vendor-completions/_affix share/fish/vendor_completions.d/affix.fish \
         lib/systemd/system/affix-apply.service; do
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
# named there, libc6 among them: the packaged affix links the system's C
# library dynamically (so glibc's security fixes reach it) and carries
# libstdc++, libgcc and fmt inside (libnuma is not linked) (docs/performance.md). A
# fully static build (AFFIX_STATIC=ON, for containers) needs none.
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
dep_names=" $(echo "$depends" | tr ',|' '\n\n' | awk '{print $1}' | tr '\n' ' ') "
needed=$(readelf -d "$affix" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
static=$(grep -E '^AFFIX_STATIC:BOOL=' "$build/CMakeCache.txt" | cut -d= -f2)
if [[ $static == ON ]]; then
    [[ -z $needed ]] || failed "AFFIX_STATIC=ON but the binary needs: $needed"
    readelf -l "$affix" | grep -q INTERP && failed "AFFIX_STATIC=ON but the binary has an ELF interpreter"
    echo "ok: static binary, no shared library needed"
else
    [[ $dep_names == *" libc6 "* ]] || failed "Depends lacks libc6: [$depends]"
    [[ $needed == *libc.so.6* ]] || failed "the binary does not link libc.so.6 dynamically: [$needed]"
    for lib in $needed; do
        case $lib in
            libc.so.6 | ld-linux-*.so.*) ;;
            *) failed "the binary needs $lib besides the C library (libstdc++, libgcc and fmt belong inside)" ;;
        esac
    done
fi
# Every symbol version the binary needs (GLIBC_ABI_DT_RELR is 2.36's) is
# covered by the libc6 version Depends asks for.
need_glibc=$(readelf -V "$affix" | grep -oE 'GLIBC_[0-9]+\.[0-9]+' | sort -t. -k2 -n -u | tail -1 | cut -d_ -f2)
readelf -V "$affix" | grep -q GLIBC_ABI_DT_RELR && need_glibc=$(printf '%s\n2.36\n' "$need_glibc" | sort -t. -k2 -n | tail -1)
if [[ -n $need_glibc ]]; then
    ok_dep=0
    for v in $(echo "$depends" | grep -oE 'libc6 \(>= [0-9.]+\)' | grep -oE '[0-9.]+\)' | tr -d ')'); do
        dpkg --compare-versions "$v" ge "$need_glibc" && ok_dep=1
    done
    ((ok_dep)) && echo "ok: Depends covers glibc $need_glibc" || failed "Depends [$depends] does not ask for libc6 >= $need_glibc"
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
want="./usr/bin/affix ./usr/lib/systemd/system/affix-apply.service ./usr/share/bash-completion/completions/affix ./usr/share/fish/vendor_completions.d/affix.fish ./usr/share/man/man1/affix.1 ./usr/share/zsh/vendor-completions/_affix "
[[ $contents == "$want" ]] || failed "package contents: [$contents], expected [$want]"

# 3. Unpacked into a scratch root: affix is stripped, runs, the page renders cleanly.
dpkg -x "$deb" "$tmp/root" || failed "dpkg -x"
packaged="$tmp/root/usr/bin/affix"
if readelf -S "$packaged" | grep -qE '\.(debug_info|symtab)\b'; then
    failed "the packaged affix is not stripped: $(readelf -S "$packaged" | grep -oE '\.(debug_[a-z]+|symtab)' | tr '\n' ' ')"
else
    echo "ok: packaged affix is stripped ($(stat -c %s "$packaged") bytes; the build's has $(stat -c %s "$affix"))"
fi
# Its loader and libraries resolve on this system (dynamic build).
if [[ $static != ON ]]; then
    ldd_out=$(ldd "$packaged" 2>&1) || failed "ldd: $ldd_out"
    [[ $ldd_out == *"not found"* ]] && failed "ldd: a library is not found: $ldd_out"
fi
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
