# shellcheck shell=bash
# Host side of the VM tests: what the harness needs from Debian, fetched once
# into the cache directory. Sourced by run-vm; expects die() and CACHE.
#
#   vm_host_tools           qemu-system-x86_64 (installed with apt-get if missing)
#   vm_busybox              -> path of a static busybox (from busybox-static)
#   vm_kernel [SERIES]      -> path of Debian's kernel, uncompressed vmlinux
#                              where possible (PVH boot skips the xz under TCG):
#                              the one linux-image-amd64 names (6.1 on Debian 12),
#                              or the newest of SERIES (6.12: bookworm's
#                              linux-image-6.12.N+deb12-amd64)
#   vm_modules KERNEL NAME... -> a directory of that kernel's modules NAME
#                              and their dependencies, with their load order
# The kernel and busybox packages are only downloaded and unpacked into the
# cache; they are never installed on the host.

vm_apt_updated=0
vm_apt_update() {
  ((vm_apt_updated)) && return 0
  apt-get update -qq >"$CACHE/apt-update.log" 2>&1 || true
  vm_apt_updated=1
}

vm_apt_install() {  # vm_apt_install PKG...
  [[ $(id -u) = 0 ]] || die "need root to install $* (or install them yourself)"
  echo "run-vm: installing $*" >&2
  vm_apt_update
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=300 "$@" >"$CACHE/apt-install.log" 2>&1 ||
    { tail -n 20 "$CACHE/apt-install.log" >&2; die "apt-get install $* failed"; }
}

vm_apt_download() {  # vm_apt_download PKG DIR: the .deb of PKG into DIR
  local try
  for try in 1 2; do
    (cd "$2" && timeout 300 apt-get download -qq -o APT::Sandbox::User=root "$1") \
      >"$CACHE/apt-download.log" 2>&1 && return 0
    ((try == 1)) && vm_apt_update
  done
  tail -n 5 "$CACHE/apt-download.log" >&2
  die "apt-get download $1 failed"
}

vm_host_tools() {
  local need=()
  command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
  command -v xz >/dev/null || need+=(xz-utils)
  command -v cpio >/dev/null || need+=(cpio)
  command -v jq >/dev/null || need+=(jq)
  ((${#need[@]} == 0)) || vm_apt_install "${need[@]}"
}

vm_busybox() {
  local bb=$CACHE/busybox tmp
  if [[ ! -x $bb ]]; then
    tmp=$(mktemp -d)
    vm_apt_download busybox-static "$tmp"
    dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/x"
    cp "$tmp/x/bin/busybox" "$bb.part" && mv "$bb.part" "$bb"
    rm -rf "$tmp"
  fi
  echo "$bb"
}

# The kernel image package of SERIES: "" is the one linux-image-amd64
# points at right now; "6.12" the newest linux-image-6.12.N+deb12-amd64.
vm_kernel_package() {
  local series=${1:-} pkg try
  for try in 1 2; do
    if [[ -z $series ]]; then
      pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
            awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
    else
      pkg=$(apt-cache search --names-only "^linux-image-${series//./\\.}\\.[0-9]+\\+deb[0-9]+-amd64\$" 2>/dev/null |
            awk '{ print $1 }' | sort -V | tail -n 1)
    fi
    [[ -n $pkg ]] && break
    ((try == 1)) && vm_apt_update
  done
  [[ -n $pkg ]] || die "cannot find a kernel package for ${series:-linux-image-amd64}"
  echo "$pkg"
}

vm_kernel() {  # vm_kernel [SERIES]
  local series=${1:-} out=$CACHE/vmlinux tmp bz off
  [[ -z $series ]] || out=$CACHE/vmlinux-$series
  if [[ ! -s $out ]]; then
    tmp=$(mktemp -d)
    vm_apt_download "$(vm_kernel_package "$series")" "$tmp"
    mkdir "$tmp/x"
    dpkg-deb --fsys-tarfile "$tmp"/linux-image-*.deb |
      tar -x -C "$tmp/x" --wildcards './boot/vmlinuz-*'
    bz=$(echo "$tmp"/x/boot/vmlinuz-*)
    [[ -f $bz ]] || die "no vmlinuz in the kernel package"
    # The bzImage holds the kernel as an xz stream; the ELF inside boots
    # directly through its PVH note, without the slow decompressor under TCG.
    off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" | head -n 1 | cut -d: -f1 || true)
    if [[ -n $off ]]; then
      # xz stops with an error at the bytes that follow the stream; what it
      # wrote up to there is the whole kernel.
      tail -c +$((off + 1)) "$bz" | xz -dc >"$out.part" 2>/dev/null || true
    fi
    if [[ -s $out.part && $(head -c 4 "$out.part" | od -An -c | tr -d ' ') = '177ELF' ]]; then
      mv "$out.part" "$out"
    else
      rm -f "$out.part"; cp "$bz" "$out"
    fi
    rm -rf "$tmp"
  fi
  echo "$out"
}

# vm_modules KERNEL NAME...: a directory with the modules NAME (and those
# they depend on, from each module's own "depends=") of the kernel image
# KERNEL (as vm_kernel gave it), for the guest to insmod in the order of
# its file `order` (dependencies first). Taken from the Debian package of
# that kernel's own version, so that they load into it (vermagic).
# A dependency with no .ko in the package is built into the kernel.
vm_modules() {
  local kernel=$1 version dir tmp m f dep
  shift
  # The banner: "Linux version 6.1.0-57-amd64 (debian-kernel@...": 6.1's
  # in one string; 6.12 builds it from "%s version %s", where the release
  # stands alone before "(debian-kernel@".
  version=$(strings -a "$kernel" | grep -m 1 -o 'Linux version [^ ]*' | cut -d' ' -f3)
  [[ -n $version ]] ||
    version=$(strings -a "$kernel" | grep -m 1 -oE '^[0-9]+\.[0-9]+\.[0-9]+[^ ]* \(debian-kernel@' | cut -d' ' -f1)
  [[ -n $version ]] || die "cannot read the version of $kernel"
  dir=$CACHE/modules-$version-$(echo "$@" | tr ' ' '+')
  if [[ ! -s $dir/order ]]; then
    tmp=$(mktemp -d)
    vm_apt_download "linux-image-$version" "$tmp"
    rm -rf "$dir.part"
    mkdir "$tmp/x" "$dir.part"
    dpkg-deb --fsys-tarfile "$tmp"/linux-image-*.deb |
      tar -x -C "$tmp/x" --wildcards './lib/modules/*/kernel/*' './lib/modules/*/modules.builtin'
    local want=("$@") done=" " order=()
    # Depth first: a module goes in after everything it depends on. 6.12's
    # package has them xz-compressed (.ko.xz), which busybox's insmod
    # cannot load: they are unpacked here.
    vm_module_add() {
      local name=$1 file deps d n
      [[ $done == *" $name "* ]] && return 0
      done+="$name "
      file=$(find "$tmp/x" \( -name "$name.ko" -o -name "${name//-/_}.ko" -o -name "${name//_/-}.ko" \
                               -o -name "$name.ko.xz" -o -name "${name//-/_}.ko.xz" -o -name "${name//_/-}.ko.xz" \) |
             head -n 1)
      [[ -n $file ]] || return 0  # built in
      n=$(basename "$file" .xz)
      if [[ $file == *.xz ]]; then xz -dc "$file" > "$dir.part/$n"; else cp "$file" "$dir.part/$n"; fi
      deps=$(strings -a "$dir.part/$n" | sed -n 's/^depends=//p' | head -n 1)
      for d in ${deps//,/ }; do vm_module_add "$d"; done
      order+=("$n")
    }
    for m in "${want[@]}"; do vm_module_add "$m"; done
    for m in "${want[@]}"; do  # a module or built in (6.12 builds virtio_pci in)
      ls "$dir.part" | grep -qx "$m.ko\|${m//-/_}.ko\|${m//_/-}.ko" ||
        grep -q "/\(${m//-/_}\|${m//_/-}\)\.ko\$" "$tmp"/x/lib/modules/*/modules.builtin ||
        die "no module $m in linux-image-$version"
    done
    printf '%s\n' "${order[@]}" > "$dir.part/order"
    rm -rf "$dir" "$tmp"
    mv "$dir.part" "$dir"
  fi
  echo "$dir"
}
