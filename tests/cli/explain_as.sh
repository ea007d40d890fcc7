#!/usr/bin/env bash
# explain --as: the placement in another launcher's words. taskset's and
# numactl's lines are run here and checked by what the kernel then says;
# systemd's, nginx's and docker's by their exact text (on a captured machine
# too); explain_as_nginx.sh runs nginx with its lines.
. "$(dirname "$0")/check_lib.bash"
corpora="$AFFIX_CORPORA_DIR"
status_of() { grep -E "^($1):" /proc/self/status | tr -s '\t' ' '; }

# taskset: the line prefixes a command and binds it as affix would.
line=$("$AFFIX" explain 1 --as taskset)
check "taskset line" "taskset -c 1" "$line"
check "taskset line runs" "Cpus_allowed_list: 1" "$($line grep Cpus_allowed_list /proc/self/status | tr -s '\t' ' ')"
line=$("$AFFIX" explain all --as taskset)
check "taskset line, all" "taskset -c 0-1" "$line"
check "taskset line, all, runs" "Cpus_allowed_list: 0-1" "$($line grep Cpus_allowed_list /proc/self/status | tr -s '\t' ' ')"

# numactl: CPUs and memory policy, as numactl --show reports them.
line=$("$AFFIX" explain 1 --as numactl)
check "numactl line" "numactl --physcpubind=1" "$line"
check "numactl line runs" "Cpus_allowed_list: 1" "$($line grep Cpus_allowed_list /proc/self/status | tr -s '\t' ' ')"
for mem in bind:bind preferred:preferred interleave:interleave local:local; do
  policy=${mem%%:*} shown=${mem#*:}
  line=$("$AFFIX" explain 0 -m "$policy" --as numactl)
  case $policy in
    bind) want="numactl --physcpubind=0 --membind=0" ;;
    preferred) want="numactl --physcpubind=0 --preferred=0" ;;
    interleave) want="numactl --physcpubind=0 --interleave=0" ;;
    local) want="numactl --physcpubind=0 --localalloc" ;;
  esac
  check "numactl line, --mem $policy" "$want" "$line"
  check "numactl line, --mem $policy, runs" "policy: $shown
physcpubind: 0" "$($line numactl --show | grep -oE '(policy: [a-z]+|physcpubind: [0-9,-]+)')"
done

# systemd and docker: exact text.
check "systemd" "CPUAffinity=0-1" "$("$AFFIX" explain all --as systemd)"
check "systemd, --mem bind" "CPUAffinity=1
NUMAPolicy=bind
NUMAMask=0" "$("$AFFIX" explain 1 -m bind --as systemd)"
check "systemd, --mem local" "CPUAffinity=1
NUMAPolicy=local" "$("$AFFIX" explain 1 -m local --as systemd)"
check "nginx" "worker_processes 2;
worker_cpu_affinity 01 10;" "$("$AFFIX" explain all --as nginx)"
check "nginx, --spread=2" "worker_processes 4;
worker_cpu_affinity 01 01 10 10;" "$("$AFFIX" explain all --spread=2 --as nginx)"
check "docker" "--cpuset-cpus=0-1
--cpuset-mems=0" "$("$AFFIX" explain all --as docker)"
root="$corpora/64amd64-4s2n4ca2co"
check "systemd on 4 sockets, 8 nodes" "CPUAffinity=8-15,32-39
NUMAPolicy=interleave
NUMAMask=1,4" "$("$AFFIX" explain --root "$root" node:1+node:4 -m interleave --as systemd 2>/dev/null)"
check "docker on 4 sockets, 8 nodes: the CPUs' nodes" "--cpuset-cpus=8-15,32-39
--cpuset-mems=1,4" "$("$AFFIX" explain --root "$root" node:1+node:4 --as docker 2>/dev/null)"
check "docker: the nodes of --mem" "--cpuset-cpus=8-15
--cpuset-mems=0-1" "$("$AFFIX" explain --root "$root" node:1 -m bind:0-1 --as docker 2>/dev/null)"
check "systemd: preferred over one node" "CPUAffinity=8-15
NUMAPolicy=preferred
NUMAMask=1" "$("$AFFIX" explain --root "$root" node:1 -m preferred:1 --as systemd 2>/dev/null)"
check "systemd: preferred over several nodes is preferred-many" "CPUAffinity=8-15
NUMAPolicy=preferred-many
NUMAMask=0-1" "$("$AFFIX" explain --root "$root" node:1 -m preferred:0-1 --as systemd 2>/dev/null)"
check "nginx on 4 sockets: CPUs 8-10, two workers each, 11 digits" "worker_processes 6;
worker_cpu_affinity 00100000000 00100000000 01000000000 01000000000 10000000000 10000000000;" \
  "$("$AFFIX" explain --root "$root" node:1 -n 3 --spread=2 --as nginx 2>/dev/null)"
check "numactl: preferred over several nodes" "numactl --physcpubind=8-15 --preferred-many=0-1" \
  "$("$AFFIX" explain --root "$root" node:1 -m preferred:0-1 --as numactl 2>/dev/null)"

# Nothing but the lines on stdout; the warnings go to stderr.
check "warnings on stderr" "affix: warning: memory nodes 0-1 differ from the CPUs' nodes 1" \
  "$("$AFFIX" explain --root "$root" node:1 -m bind:0-1 --as docker 2>&1 >/dev/null)"

# --as with --json, or an unknown format: usage errors (2).
err=$("$AFFIX" explain all --as taskset --json 2>&1)
check "--as with --json: status" 2 "$?"
check "--as with --json: message" "affix: error: --as and --json cannot be used together
affix: hint: usage: affix explain [OPTIONS] WHERE [--json | --as FORMAT | --svg[=FILE] | --ascii]; see 'affix explain --help'" "$err"
err=$("$AFFIX" explain all --as slurm 2>&1)
check "--as slurm: status" 2 "$?"
check "--as slurm: message" "affix: error: invalid --as 'slurm': expected systemd, nginx, docker, taskset or numactl" \
  "$(head -n 1 <<<"$err")"
# --spread is for the text and --as nginx.
err=$("$AFFIX" explain all --spread --as taskset 2>&1)
check "--spread with --as taskset: status" 2 "$?"
check "--spread with --as taskset: message" \
  "affix: error: --spread is shown in explain's text and by --as nginx, not with --json or another --as" \
  "$(head -n 1 <<<"$err")"
exit $fail
