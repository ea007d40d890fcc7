# A private one-node Slurm for the slurm_*.sh scripts (not a test itself:
# not *.sh), sourced after check_lib.bash: Debian's slurmctld + slurmd +
# munge on 127.0.0.1, started here and stopped when the script exits (no
# systemd, ports 16817/16818 away from Slurm's own 6817/6818). Sets $dir
# (its state, removed at the end), SLURM_CONF, and step (srun --quiet under
# timeout 60); die prints the daemons' logs and fails.
for tool in slurmctld slurmd srun sinfo munged; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (bash scripts/setup --slurm)"; exit 1; }
done
[[ $(id -u) == 0 ]] || { echo "FAIL: the private Slurm runs its daemons as root"; exit 1; }

dir=$(mktemp -d /tmp/affix-slurm-XXXXXX)
chmod 755 "$dir"
pids=()
cleanup() {
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null; done
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do wait "${pids[i]}" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
die() {
  echo "FAIL: $*"
  for log in "$dir"/*.log; do echo "--- $log"; tail -n 20 "$log"; done
  exit 1
}
node=$(hostname -s)
mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 755 "$dir/munge"

# munged: a 1 KiB key of mode 0400, its socket in a directory of mode 0755.
head -c 1024 /dev/urandom >"$dir/munge.key"
chmod 400 "$dir/munge.key"
munged -F --key-file="$dir/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" \
  >"$dir/munged.out.log" 2>&1 &
pids+=($!)

# The node as slurmd sees it, without RealMemory (a wrong one drains the node).
hw=$(slurmd -C | head -1 | sed -e 's/^NodeName=[^ ]* //' -e 's/ RealMemory=[0-9]*//')
cat >"$dir/slurm.conf" <<CONF
ClusterName=affix
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=affix Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
for ((i = 0; i < 100; i++)); do [[ -S $dir/munge/munge.socket ]] && break; sleep 0.1; done
[[ -S $dir/munge/munge.socket ]] || die "munged did not start"
slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >"$dir/slurmd.out.log" 2>&1 &
pids+=($!)
state=
for ((i = 0; i < 300; i++)); do
  state=$(timeout 5 sinfo -h -N -o %T 2>/dev/null)
  [[ $state == idle ]] && break
  sleep 0.1
done
[[ $state == idle ]] || die "the node is not idle after 30 s (state: '$state')"
echo "ok: private Slurm up ($(sinfo -V), node $node: $hw)"

step() { timeout 60 srun --quiet "$@"; }
