# vm-topologies: 2s2c2t-2n 4s2c1t-4n-asym
# `affix --spread` on several sockets: each thread the command creates gets
# its CPU before its first instruction (its first act records
# sched_getaffinity and sched_getcpu), in creation order, round-robin over
# the selection in --order; the main thread keeps the whole selection. What
# each thread recorded is compared with the CPUs explain says the spread
# gives, and with the order written out by hand for socket 1.
. "$VM_LIB"
s1=$(socket_cpus 1)
# Compact order of socket 1: the first thread of each core, then the second.
if [ "$VM_THREADS" = 2 ]; then order="4 6 5 7"; else order="2 3 2 3"; fi

check_run "run --spread socket:1" 0 affix --spread socket:1 spread_probe threads 4
check_eq "main thread keeps socket 1" "main $s1" "$(printf '%s\n' "$OUT" | sed -n 1p)"
i=1
for want in $order; do
  line=$(printf '%s\n' "$OUT" | sed -n "$((i + 1))p")
  check_eq "thread $i: one CPU from its first instruction" "$i $want $want" "$line"
  i=$((i + 1))
done

# Over every socket, --order scatter (round-robin over the nodes), two
# threads per CPU: the CPUs explain names, each twice in a row.
check_run "explain --spread=2 --order scatter all" 0 affix explain --spread=2 --order scatter all
spread=$(printf '%s\n' "$OUT" | sed -n 's/^spread *//p')
n=$((VM_SOCKETS * VM_CORES * VM_THREADS))
check_run "run --spread=2 --order scatter all" 0 affix --spread=2 --order scatter all spread_probe threads $((2 * n))
check_eq "main thread keeps every CPU" "main 0-$((n - 1))" "$(printf '%s\n' "$OUT" | sed -n 1p)"
got=$(printf '%s\n' "$OUT" | sed -n '2,$p' | awk '$2 == $3 { print $2; next } { print "bad:" $0 }' | tr '\n' ' ')
# explain: "threads 1-2: CPU 0, threads 3-4: CPU 4, ..., then again from CPU 0"
want=$(printf '%s\n' "$spread" | tr ',' '\n' |
  sed -n 's/.*threads \([0-9]*\)-\([0-9]*\): CPU \([0-9]*\).*/\1 \2 \3/p' |
  while read -r a b cpu; do while [ "$a" -le "$b" ]; do printf '%s ' "$cpu"; a=$((a + 1)); done; done)
check_eq "each thread where explain says, on it from the start" "$want" "$got"
first=$(echo "$got" | cut -d' ' -f1) third=$(echo "$got" | cut -d' ' -f3)
check_true "scatter: the second CPU is on another node ($first, $third)" \
  test "$(node_of_cpu "$first")" != "$(node_of_cpu "$third")"
finish
