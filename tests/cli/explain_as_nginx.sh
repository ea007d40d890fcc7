#!/usr/bin/env bash
# explain --as nginx, taken by a real nginx: the lines' exact text, and where
# nginx then puts its workers (each one's Cpus_allowed_list): a worker on each
# CPU (N with --spread=N), at start, after a reload (new workers: what pin
# cannot reach), and for a worker nginx starts again after a crash.
. "$(dirname "$0")/nginx_lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT  # before nginx_start: its trap runs first, then this
corpora="$AFFIX_CORPORA_DIR"

# The CPUs this test may use (its cpuset), in affix's order.
read -r -a cpus <<< "$("$AFFIX" explain all --json | jq -r '.sequence | map(tostring) | join(" ")')"
[[ ${#cpus[@]} -gt 0 ]] || { echo "FAIL: no CPUs from affix explain all --json"; exit 1; }
# want_lines PER_CPU: the lines by nginx's rule, written here: worker k
# takes the k-th mask, a binary digit a CPU, CPU 0 rightmost.
want_lines() {
  local per=$1 highest=0 c b k mask masks=
  for c in "${cpus[@]}"; do ((c > highest)) && highest=$c; done
  for c in "${cpus[@]}"; do
    mask=
    for ((b = highest; b >= 0; b--)); do [[ $b == "$c" ]] && mask+=1 || mask+=0; done
    for ((k = 0; k < per; k++)); do masks+=" $mask"; done
  done
  printf 'worker_processes %d;\nworker_cpu_affinity%s;' $((${#cpus[@]} * per)) "$masks"
}
# want_cpus PER_CPU: each worker's list, sorted: every CPU PER_CPU times.
want_cpus() {
  local c k
  for c in "${cpus[@]}"; do for ((k = 0; k < $1; k++)); do echo "$c"; done; done | sort -n
}
got_cpus() { nginx_worker_cpus | awk '{print $2}' | sort -n; }
# What nginx said it did not like (the count of masks, a sched_setaffinity
# that failed), or nothing.
nginx_complaints() { grep -E '\[(warn|error|crit|alert|emerg)\]' "$NGINX_DIR/error.log"; }

# One worker per CPU.
lines=$("$AFFIX" explain all --as nginx 2> "$tmp/err")
check "explain all --as nginx: status" 0 "$?"
check "explain all --as nginx: the lines" "$(want_lines 1)" "$lines"
if [[ ${cpus[*]} == "0 1" ]]; then  # the rule's own example, on 2 CPUs
  check "explain all --as nginx on CPUs 0-1" "worker_processes 2;
worker_cpu_affinity 01 10;" "$lines"
fi
nginx_start "${#cpus[@]}" "$lines"
check "nginx runs ${#cpus[@]} workers" "${#cpus[@]}" "$(nginx_workers | wc -l)"
check "each worker on its own CPU" "$(want_cpus 1)" "$(got_cpus)"
check "nginx took the lines without a complaint" "" "$(nginx_complaints)"
old=$(nginx_workers)
nginx_reload
check "after the reload, new workers" "" "$(comm -12 <(echo "$old") <(nginx_workers))"
check "after the reload, each worker on its own CPU" "$(want_cpus 1)" "$(got_cpus)"
# A worker killed is started again by the master, on the same mask.
victim=$(nginx_workers | tail -n 1)
kill -KILL "$victim"
nginx_wait_workers "$victim"
check "a worker started again after a crash: each worker on its own CPU" "$(want_cpus 1)" "$(got_cpus)"
nginx_stop

# --spread=2: two consecutive workers on each CPU.
lines=$("$AFFIX" explain all --spread=2 --as nginx)
check "explain all --spread=2 --as nginx: the lines" "$(want_lines 2)" "$lines"
if [[ ${cpus[*]} == "0 1" ]]; then
  check "explain all --spread=2 --as nginx on CPUs 0-1" "worker_processes 4;
worker_cpu_affinity 01 01 10 10;" "$lines"
fi
nginx_start $((2 * ${#cpus[@]})) "$lines"
check "--spread=2: two workers on each CPU" "$(want_cpus 2)" "$(got_cpus)"
check "--spread=2: nginx took the lines without a complaint" "" "$(nginx_complaints)"
nginx_reload
check "--spread=2, after the reload: two workers on each CPU" "$(want_cpus 2)" "$(got_cpus)"
nginx_stop

# Exact text on captured machines: --order scatter's sequence, CPUs that are
# not contiguous, masks as wide as the highest CPU + 1.
root="$corpora/64amd64-4s2n4ca2co"
check "--order scatter: the order" "[8,32,9,33]" \
  "$("$AFFIX" explain --root "$root" node:1+node:4 --order scatter -n 4 --json 2> /dev/null | jq -c .sequence)"
check "--order scatter: worker k on the k-th CPU of the order, 34 digits for CPU 33" "worker_processes 4;
worker_cpu_affinity 0000000000000000000000000100000000 0100000000000000000000000000000000 0000000000000000000000001000000000 1000000000000000000000000000000000;" \
  "$("$AFFIX" explain --root "$root" node:1+node:4 --order scatter -n 4 --as nginx 2> /dev/null)"

# nginx has no memory policy: the same lines, and a warning on stderr.
"$AFFIX" explain 0 -m bind --as nginx > "$tmp/out" 2> "$tmp/err"
check "--mem: status" 0 "$?"
check "--mem: the lines are without it" "worker_processes 1;
worker_cpu_affinity 1;" "$(cat "$tmp/out")"
check "--mem: a warning says so" "affix: warning: nginx has no memory policy directive: these lines leave --mem out; the workers inherit the master's policy, so start nginx under 'affix --mem ...' or systemd's NUMAPolicy=" "$(cat "$tmp/err")"

# A CPU above 1023 is beyond nginx's masks (CPU_SETSIZE): an error (2). A
# hand-made machine with CPUs 0 and 1024, one core each.
big=$tmp/cpu1024
for c in 0 1024; do
  t=$big/sys/devices/system/cpu/cpu$c/topology
  mkdir -p "$t"
  echo 0 > "$t/physical_package_id"; echo "$c" > "$t/core_id"
  echo "$c" > "$t/core_cpus_list"; echo "0,1024" > "$t/package_cpus_list"
done
echo "0,1024" > "$big/sys/devices/system/cpu/online"
echo "0,1024" > "$big/sys/devices/system/cpu/present"
mkdir -p "$big/proc"
check "CPU 1024: taskset takes it" "taskset -c 0,1024" "$("$AFFIX" explain --root "$big" all --as taskset 2> /dev/null)"
out=$("$AFFIX" explain --root "$big" all --as nginx 2>&1)
check "CPU 1024: status" 2 "$?"
check "CPU 1024: message" "affix: error: nginx's worker_cpu_affinity takes CPUs 0 to 1023 only: the selection has CPU 1024
affix: hint: its masks have at most 1024 digits (CPU_SETSIZE): leave out the CPUs from 1024 on (--exclude)" "$out"
check "CPU 1024 left out: the masks of CPU 0" "worker_processes 1;
worker_cpu_affinity 1;" "$("$AFFIX" explain --root "$big" all --exclude 1024 --as nginx 2> /dev/null)"

# --spread is for --as nginx only among the formats.
out=$("$AFFIX" explain all --spread=2 --as systemd 2>&1)
check "--spread with --as systemd: status" 2 "$?"
check_match "--spread with --as systemd: message" \
  "affix: error: --spread is shown in explain's text and by --as nginx, not with --json or another --as*" "$out"
exit $fail
