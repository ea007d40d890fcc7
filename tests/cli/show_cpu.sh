#!/usr/bin/env bash
# show --cpu LIST (affix(1), show): on this machine, a helper of two threads
# with one pinned to CPU 1 (pin --tid) and `affix 1 -- sleep` are listed as
# pinned with their TIDs for --cpu 1 and not for --cpu 0 (the helper's
# other thread is counted there, unpinned); the kernel's per-CPU threads
# are bound where they are; the IRQs are those /proc/irq delivers there; a
# name a process chose is escaped. Bad LISTs: exit 2 with affix's errors.
# A captured machine (no processes in it): the exact output, and an offline
# CPU refused. Only reads: nothing here is moved but the test's own helpers.
. "$(dirname "$0")/pin_lib.bash"

online=$(cat /sys/devices/system/cpu/online)

start helper threads_helper 2
helper=$PID
tids=($(ls /proc/$helper/task | sort -n))
"$AFFIX" pin --tid 1 ${tids[1]} > /dev/null
check "the helper's second thread is on CPU 1" "1" "$(awk '/^Cpus_allowed_list/ {print $2}' /proc/$helper/task/${tids[1]}/status)"
"$AFFIX" 1 -- sleep 100 > /dev/null &
sleeper=$!
started+=("$sleeper")
for ((i = 0; i < 200; i++)); do [[ $(cat /proc/$sleeper/comm 2>/dev/null) == sleep ]] && break; sleep 0.05; done
check "sleep runs on CPU 1" "sleep 1" "$(cat /proc/$sleeper/comm) $(awk '/^Cpus_allowed_list/ {print $2}' /proc/$sleeper/status)"

# --- Text: the pinned table lists both, with their TIDs; sleep last ran on 1
run_affix show --cpu 1
check "show --cpu 1: status" "0 " "$RC $ERR"
check "show --cpu 1: its first lines (blanks squeezed)" "CPUs 1 (online $online)|CPU PINNED BOUND MAY RUN RAN IRQS" \
  "$(head -2 <<<"$OUT" | tr -s ' ' | tr '\n' '|' | sed 's/|$//')"
check "show --cpu 1: the sections, in order" \
  "Pinned threads (CPU lists narrower than the online CPUs, $online)|Kernel threads bound there (PF_NO_SETAFFINITY: they cannot be moved)|Unpinned threads (any online CPU), counted per process that ran there|IRQs delivered there (effective affinity, else the CPU list)" \
  "$(grep -v '^ ' <<<"$OUT" | sed -n '4,$p' | grep -v '^$' | tr '\n' '|' | sed 's/|$//')"
pinned_rows=$(sed -n '/^Pinned threads/,/^$/p' <<<"$OUT")
check "show --cpu 1: the helper's pinned thread (PID PROCESS CPUS THREADS TIDS)" "$helper threads_helper 1 1 ${tids[1]}" \
  "$(awk -v p=$helper '$1 == p {print $1, $2, $3, $4, $5}' <<<"$pinned_rows")"
check "show --cpu 1: sleep, pinned, ran there (PID PROCESS CPUS THREADS TIDS RAN LAST CPUS NAMES)" \
  "$sleeper sleep 1 1 $sleeper 1 1 sleep" "$(awk -v p=$sleeper '$1 == p' <<<"$pinned_rows" | tr -s ' ' | sed 's/^ //')"
check "show --cpu 1: migration/1 is bound there" "1" \
  "$(sed -n '/^Kernel threads bound there/,/^$/p' <<<"$OUT" | awk '$NF ~ /(^|,)migration\/1(,|$)/ {print $1}')"

# --- JSON, read with jq
run_affix show --cpu 1 --json
check "show --cpu 1 --json: status" 0 "$RC"
check "--json: LIST and the online CPUs" "1 $online" "$(jq -r '"\(.cpus) \(.online)"' <<<"$OUT")"
check "--json: one line per CPU" "1" "$(jq -c '[.per_cpu[].cpu]' <<<"$OUT" | tr -d '[]')"
check "--json: the helper's pinned thread" "[{\"tid\":${tids[1]},\"cpus\":\"1\",\"kernel\":false}]" \
  "$(jq -c "[.pinned[] | select(.pid == $helper) | {tid, cpus, kernel}]" <<<"$OUT")"
check "--json: sleep pinned, last on 1" "[{\"tid\":$sleeper,\"comm\":\"sleep\",\"last_cpu\":1,\"ran\":true}]" \
  "$(jq -c "[.pinned[] | select(.pid == $sleeper) | {tid, comm, last_cpu, ran}]" <<<"$OUT")"
check "--json: the helper's other thread counted unpinned" "1" \
  "$(jq ".unpinned[] | select(.pid == $helper) | .threads" <<<"$OUT")"
check "--json: sleep is not counted unpinned" "" "$(jq ".unpinned[] | select(.pid == $sleeper) | .pid" <<<"$OUT")"
check "--json: the per-CPU threads of CPU 1 are bound, none of CPU 0" "cpuhp/1:1 migration/1:1|" \
  "$(jq -r '[.bound[] | select(.comm | test("^(migration|cpuhp)/")) | "\(.comm):\(.cpus)"] | sort | join(" ")' <<<"$OUT")|$(jq -r '[.bound[] | select(.comm | endswith("/0"))] | map(.comm) | join(" ")' <<<"$OUT")"
check "--json: pinned and bound counted per CPU as listed" "true" \
  "$(jq '.per_cpu[0].pinned == (.pinned | length) and .per_cpu[0].bound == (.bound | length)' <<<"$OUT")"
# The IRQs are those whose effective list (else their list) holds CPU 1.
expand() { awk -F, '{for (i = 1; i <= NF; i++) {n = split($i, r, "-"); for (c = r[1]; c <= r[n]; c++) print c}}'; }
want=()
for d in /proc/irq/[0-9]*; do
  f=$d/effective_affinity_list
  [[ -r $f ]] || f=$d/smp_affinity_list
  expand <"$f" 2>/dev/null | grep -qx 1 && want+=("${d##*/}")
done
check "--json: the IRQs delivered on CPU 1, as /proc/irq says" \
  "$(printf '%s\n' "${want[@]}" | sort -n | tr '\n' ' ')" "$(jq -r '.irqs[].irq' <<<"$OUT" | tr '\n' ' ')"

# --- CPU 0: neither is pinned there; the helper's free thread may run there
run_affix show --cpu 0 --json
check "show --cpu 0 --json: status" 0 "$RC"
check "--cpu 0: neither listed as pinned" "[]" \
  "$(jq -c "[.pinned[] | select(.pid == $helper or .pid == $sleeper) | .tid]" <<<"$OUT")"
check "--cpu 0: the helper's free thread counted" "1" "$(jq ".unpinned[] | select(.pid == $helper) | .threads" <<<"$OUT")"
check "--cpu 0: sleep nowhere" "" "$(grep -o "\"pid\": $sleeper," <<<"$OUT")"
run_affix show --cpu 0
check "show --cpu 0: neither in the text's pinned table" "" \
  "$(sed -n '/^Pinned threads/,/^$/p' <<<"$OUT" | awk -v h=$helper -v s=$sleeper '$1 == h || $1 == s')"

# --- A WHERE word: all is every online CPU
run_affix show --cpu all --json
check "show --cpu all: every online CPU" "$online $online" "$(jq -r '"\(.cpus) \(.online)"' <<<"$OUT")"

# --- A name the process chose is escaped (name_helper pins its second
# thread, named \xff, to the first CPU it may run on: 0)
evil=$'\e[2J\e]0;pwn\a\n'
start named name_helper "$evil" $'\xff'
named=$PID
ntid=$(ls /proc/$named/task | sort -n | tail -1)
run_affix show --cpu 0
if tr -d '\n' <"$tmp/out" | LC_ALL=C grep -q '[[:cntrl:]]'; then
  echo "FAIL: show --cpu 0: a control byte in the output"; fail=1
else
  echo "ok: show --cpu 0: no control byte"
fi
check "show --cpu 0: the named helper's row, escaped" "$named \\e[2J\\e]0;pwn\\x07\\n 0 1 $ntid" \
  "$(sed -n '/^Pinned threads/,/^$/p' <<<"$OUT" | awk -v p=$named '$1 == p {print $1, $2, $3, $4, $5}')"

# --- Bad LISTs and options: exit 2, affix's one voice
expect() {  # NAME STATUS STDERR -- ARGS...
  local name=$1 status=$2 want=$3; shift 4
  run_affix "$@"
  check "$name: exit" "$status" "$RC"
  check "$name: message" "$want" "$ERR"
  check "$name: nothing on stdout" "" "$OUT"
}
usage="affix: hint: usage: affix show [--json] [--svg[=FILE]] [--tree] [--pinned | --cpu LIST | --irq] [--root DIR] [PID... | DEVICE...]; see 'affix show --help'"
expect "--cpu 1-x" 2 "affix: error: invalid location '1-x': expected a number, found 'x'
  1-x
    ^" -- show --cpu 1-x
expect "--cpu 4096" 2 "affix: error: no cpu 4096 on this machine (cpus: $online)" -- show --cpu 4096
expect "--cpu socket:9" 2 "affix: error: no socket 9 on this machine (sockets: 0)" -- show --cpu socket:9
expect "--cpu without LIST" 2 "affix: error: option '--cpu' needs a value
$usage" -- show --cpu
expect "--cpu=" 2 "affix: error: option '--cpu' needs a value
$usage" -- show --cpu=
expect "--cpu twice" 2 "affix: error: option '--cpu' given twice
$usage" -- show --cpu 0 --cpu 1
cpu_hint="affix: hint: 'affix show --cpu 1' lists the threads and IRQs of those CPUs; 'affix show PID' one process"
cpu_error="affix: error: --cpu shows what may run on CPUs; it takes no PID and does not go with --tree, --pinned, --irq or --shield"
expect "--cpu with a PID" 2 "$cpu_error
$cpu_hint" -- show --cpu 1 $helper
expect "--cpu --pinned" 2 "$cpu_error
$cpu_hint" -- show --pinned --cpu 1
expect "--cpu --irq" 2 "$cpu_error
$cpu_hint" -- show --cpu 1 --irq

# --- A captured machine: 16 CPUs, 2,5,13,14 offline, no process in it
cap=$AFFIX_CORPORA_DIR/16em64t-4s2c2t-offlines
expect "--cpu 2 on the capture: offline" 2 "affix: error: CPU 2 is offline" -- show --cpu 2 --root "$cap"
run_affix show --cpu socket:1 --root "$cap"
check "capture: socket:1's online CPUs, exactly" "0 CPUs 1,9 (online 0-1,3-4,6-12,15)
CPU  PINNED  BOUND  MAY RUN  RAN  IRQS
1    -       -      -        -    -
9    -       -      -        -    -

Threads: none read: $cap/proc holds no process

IRQs delivered there (effective affinity, else the CPU list)
  unknown: $cap/proc/irq cannot be read" "$RC $OUT"
run_affix show --cpu socket:1 --json --root "$cap"
check "capture: --json, exactly" '0 {"cpus": "1,9", "online": "0-1,3-4,6-12,15", "processes": 0, "per_cpu": [{"cpu": 1, "pinned": null, "bound": null, "may_run": null, "ran": null, "irqs": null}, {"cpu": 9, "pinned": null, "bound": null, "may_run": null, "ran": null, "irqs": null}], "pinned": [], "bound": [], "unpinned": [], "unpinned_kernel": {"threads": 0, "ran": 0, "ran_tids": []}, "irqs": null}' \
  "$RC $OUT"
finish
