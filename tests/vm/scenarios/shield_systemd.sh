# vm-topologies: 2s2c2t-2n
# vm-kernel: 6.12
# The layout affix shield takes where systemd runs the machine, on a real
# 6.12 kernel. The guest has no systemd: a stand-in systemctl and
# systemd-run (below) make and remove the slices' cgroups as systemd does
# (cpuset on along the path, AllowedCPUs= into cpuset.cpus, a scope for a
# command), so what is checked is affix's part and the kernel's answer: a
# remote partition below affix.slice/affix-shield.slice, with
# cpuset.cpus.exclusive from the first cgroup below the root down to it.
# systemd itself was not run.
. "$VM_LIB"
cg=/sys/fs/cgroup
mkdir -p /run/systemd/system bin
cat > bin/systemctl <<'SH'
#!/bin/sh
# stand-in: the cgroups of a slice unit as systemd makes them
echo "$*" >> /tmp/systemctl.log
dirs() { stem=${1%.slice}; dir=/sys/fs/cgroup; path=; for part in $(echo "$stem" | tr - ' '); do
  path=${path:+$path-}$part; echo "$dir/$path.slice"; dir=$dir/$path.slice; done; }
case $1 in
  daemon-reload) ;;
  start) for d in $(dirs "$2"); do echo +cpuset > "$(dirname "$d")/cgroup.subtree_control"; mkdir -p "$d"; done
         cpus=$(sed -n 's/^AllowedCPUs=//p' "/run/systemd/system/$2")
         echo "$cpus" > "$d/cpuset.cpus";;
  stop) d=$(dirs "$2" | tail -n 1); rmdir "$d"/*.scope 2>/dev/null; rmdir "$d";;  # its scopes, ended, first
esac
SH
cat > bin/systemd-run <<'SH'
#!/bin/sh
# stand-in: systemd-run --scope --slice=UNIT -- COMMAND: a scope of the slice
for a; do case $a in --slice=*) unit=${a#--slice=};; --) shift; break;; esac; shift; done
stem=${unit%.slice}; dir=/sys/fs/cgroup; path=
for part in $(echo "$stem" | tr - ' '); do path=${path:+$path-}$part; dir=$dir/$path.slice; done
mkdir "$dir/run-$$.scope" && echo $$ > "$dir/run-$$.scope/cgroup.procs" && exec "$@"
SH
chmod +x bin/systemctl bin/systemd-run
PATH=$PWD/bin:$PATH
slice=$cg/affix.slice/affix-shield.slice/affix-shield-1.slice
shield_files > files.before

check_run "shield socket:1 --isolated (under systemd)" 0 affix shield socket:1 --isolated
check_eq "systemctl asked" "daemon-reload|start affix-shield-1.slice|" "$(tr '\n' '|' < /tmp/systemctl.log)"
check_match "its unit in /run" "*AllowedCPUs=4-7*" "$(cat /run/systemd/system/affix-shield-1.slice)"
check_eq "exclusive CPUs down to the slice" "4-7 4-7 4-7" \
  "$(cat $cg/affix.slice/cpuset.cpus.exclusive) $(cat $cg/affix.slice/affix-shield.slice/cpuset.cpus.exclusive) $(cat $slice/cpuset.cpus.exclusive)"
check_eq "the kernel holds the remote partition" "isolated" "$(cat $slice/cpuset.cpus.partition)"
check_eq "cpuset.cpus.isolated" "4-7" "$(cat $cg/cpuset.cpus.isolated)"
check_eq "PID 1 off socket 1" "0-3" "$(status_of 1 Cpus_allowed_list)"
check_run "show --shield --json" 0 affix show --shield --json
check_eq "show: systemd's layout, held" "systemd affix-shield-1.slice true" \
  "$(json '.[0].layout') $(json '.[0].unit') $(json '.[0].kernel.holds')"
check_run "shield --off" 0 affix shield --off affix-shield-1
check_eq "systemctl asked to stop it" "stop affix-shield-1.slice|daemon-reload|" "$(tail -n 2 /tmp/systemctl.log | tr '\n' '|')"
check_true "its unit gone" [ ! -e /run/systemd/system/affix-shield-1.slice ]
check_eq "the slices above keep no exclusive CPUs" "|" \
  "$(cat $cg/affix.slice/cpuset.cpus.exclusive)|$(cat $cg/affix.slice/affix-shield.slice/cpuset.cpus.exclusive)"
check_eq "PID 1 back" "0-7" "$(status_of 1 Cpus_allowed_list)"
check_eq "isolated CPUs none" "" "$(cat $cg/cpuset.cpus.isolated)"

check_run "a command in the slice (systemd-run --scope)" 0 affix shield socket:1 --name db -- sh -c \
  'grep Cpus_allowed_list /proc/self/status; cat /proc/self/cgroup'
check_match "on 4-7, in a scope of the slice" "$(printf 'Cpus_allowed_list:\t4-7')
0::/affix.slice/affix-db.slice/run-*.scope" "$OUT"
check_true "the slice gone after it" [ ! -e $cg/affix.slice/affix-db.slice ]
rm -r /run/systemd
rmdir $cg/affix.slice/affix-shield.slice $cg/affix.slice  # systemd's; left by the stand-in
finish
