#!/usr/bin/env bash
# show and watch on a real process with memory of its own and a file's page
# cache (mem_helper): anon_pages apart from file_pages, as /proc splits
# them, in text and JSON; remote pages counted on anonymous pages only.
# Then the helper, asleep on CPU 0, is pinned to CPU 1: its last CPU is
# stale (show: "0*", last_cpu_stale), and watch counts it on no CPU.
. "$(dirname "$0")/watch_lib.bash"

# What the man page says of the split, read from /proc: a mapping is the
# process's own memory where numa_maps shows no file=, or anon= pages, or
# maps shows it private and writable; every other one is page cache.
split_pages() {  # PID -> "ANON FILE"
  awk 'FNR == NR { split($1, r, "-"); a = r[1]; sub(/^0+/, "", a); if ($2 ~ /^.w.p$/) pw[a] = 1; next }
       { a = $1; sub(/^0+/, "", a); f = 0; an = 0; n = 0
         for (i = 3; i <= NF; i++) {
           if ($i ~ /^file=/) f = 1
           if ($i ~ /^anon=/) an = 1
           if ($i ~ /^N[0-9]+=/) { split($i, kv, "="); n += kv[2] }
         }
         if (!f || an || (a in pw)) A += n; else F += n }
       END { print A + 0, F + 0 }' "/proc/$1/maps" "/proc/$1/numa_maps"
}

head -c $((256 * 4096)) /dev/urandom > "$tmp/data"
"$AFFIX" 0 "$HELPERS/mem_helper" 300 "$tmp/data" > "$tmp/mem.out" &
PID=$!
started+=("$PID")
wait_file "$tmp/mem.out"
read -r A F <<<"$(split_pages "$PID")"
check "the helper: its 300 pages are its own, the file's 256 page cache" "yes yes" \
  "$([[ $A -ge 300 ]] && echo yes) $([[ $F -ge 256 ]] && echo yes)"
check "the helper's file is mapped, 256 pages" "N0=256" \
  "$(awk -v f="file=$tmp/data" '$0 ~ f {for (i = 3; i <= NF; i++) if ($i ~ /^N0=/) print $i}' "/proc/$PID/numa_maps")"

run_affix show --json "$PID"
check "show --json: anon_pages and file_pages" "0 {\"0\":$A} {\"0\":$F} {\"0\":$((A + F))}" \
  "$RC $(jq -c '.[0] | .anon_pages, .file_pages, .memory_pages' <<<"$OUT" | tr '\n' ' ' | sed 's/ $//')"
check "show --json: the last CPU, in its list" "0 false" \
  "$(jq -r '.[0].threads[0] | "\(.last_cpu) \(.last_cpu_stale)"' <<<"$OUT")"
run_affix show "$PID"
check "show: the header says both" "$PID mem_helper  cpus 0  cpuset nodes 0  mem policy default  anon 0:$A; file 0:$F" \
  "$(head -n 1 <<<"$OUT")"
check "show: the thread's last CPU" "0 1 $PID 0 0 $(policy_cell $PID $PID) mem_helper" "$(sed -n 4p <<<"$OUT" | tr -s ' ' | sed 's/^ //')"

run_affix watch -c 1 -i 0.1 "$PID"
# The detail line is at most 80 columns: with more digits in the counts
# (the page cache the machine has) the pages go on a line of their own.
ran="        1 thread, ran on CPU 0 in socket:0;"
pages="anon 0:$A, 0.0% off node 0; file 0:$F"
if (( ${#ran} + 1 + ${#pages} <= 80 )); then want="$ran $pages"; else want="$ran"$'\n'"        $pages"; fi
check "watch: both, remote on its own pages" "$want" \
  "$(grep -A 1 -m 1 '^        1 thread' <<<"$OUT" | head -n "$(( $(wc -l <<<"$want") ))")"
run_affix watch --json -c 1 -i 0.1 "$PID"
check "watch --json: anon_pages, file_pages, remote_pages, where it ran" "{\"0\":$A} {\"0\":$F} 0 \"0\" 0" \
  "$(head -n 1 <<<"$OUT" | jq -c '.processes[0] | .anon_pages, .file_pages, .remote_pages, .cpus_ran, .thread_list[0].cpu' |
     tr '\n' ' ' | sed 's/ $//')"

# Pinned to CPU 1 while it sleeps: it has not run since, its last CPU is 0.
"$AFFIX" pin 1 "$PID" > /dev/null
check "pinned: the kernel's last CPU is still 0" "0" "$(awk '{print $39}' "/proc/$PID/stat")"
run_affix show "$PID"
check "show: a stale last CPU is marked" "1 1 $PID 0* 0 $(policy_cell $PID $PID) mem_helper" "$(sed -n 4p <<<"$OUT" | tr -s ' ' | sed 's/^ //')"
run_affix show --json "$PID"
check "show --json: last_cpu_stale" "1 0 true" \
  "$(jq -r '.[0].threads[0] | "\(.cpus) \(.last_cpu) \(.last_cpu_stale)"' <<<"$OUT")"
run_affix watch --json -c 1 -i 0.1 "$PID"
check "watch --json: counted on no CPU" "null \"\" null" \
  "$(head -n 1 <<<"$OUT" | jq -c '.processes[0] | .thread_list[0].cpu, .cpus_ran, .remote_pages' | tr '\n' ' ' | sed 's/ $//')"
check "watch --json: the summary too" "null \"\"" \
  "$(tail -n 1 <<<"$OUT" | jq -c '.summary.processes[0] | .thread_list[0].cpu, .cpus_ran' | tr '\n' ' ' | sed 's/ $//')"
run_affix watch -c 1 -i 0.1 --threads "$PID"
check "watch --threads: no CPU" "-" "$(awk -v p="$PID" '$1 == p && $2 == p {print $4; exit}' <<<"$OUT")"
run_affix watch -c 1 -i 0.1 "$PID"
check "watch: ran on no CPU" "        1 thread, ran on -; anon 0:$A; file 0:$F" "$(grep -m 1 '^        1 thread' <<<"$OUT")"
finish
