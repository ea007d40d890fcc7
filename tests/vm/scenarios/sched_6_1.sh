# vm-topologies: 2s2c2t-2n
# Scheduling on Debian's default kernel (6.1, before the EEVDF slice):
# --sched-slice is refused before anything is set, naming 6.12, by run (and
# its dry run), pin and in explain's warning; the policies themselves work.
. "$VM_LIB"

release=$(uname -r)
check_run "run --sched-slice: 125" 125 affix run --sched-slice 2 all -- touch ran
check_eq "run --sched-slice: the error and its hint" \
  "affix: error: --sched-slice needs Linux 6.12 or later: this kernel ($release) keeps no EEVDF slice of a thread's own|affix: hint: the slice is sched_attr.sched_runtime of an other or batch thread, which kernels before 6.12 ignore; leave out --sched-slice" \
  "$(echo "$ERR" | tr '\n' '|' | sed 's/|$//')"
check_true "nothing started" [ ! -e ran ]
check_run "run --dry-run --sched-slice: 125" 125 affix run --dry-run --sched-slice 2 all -- true
check_match "the dry run's error" "affix: error: --sched-slice needs Linux 6.12 or later*" "$ERR"
check_run "explain --sched-slice: a warning" 0 affix explain --sched-slice 2 all
check_match "explain: the warning" "*warning   --sched-slice needs Linux 6.12 or later: this kernel ($release) keeps no EEVDF slice of a thread's own: 'run' would refuse it*" \
  "$(echo "$OUT" | tr '\n' ' ')"

start_load t vmload --threads 4 --wait || { finish; exit; }
before=$(snapshot $PID)
check_run "pin --sched-slice: 1" 1 affix pin --policy batch --sched-slice 2 all $PID
check_match "pin: the error" "affix: error: --sched-slice needs Linux 6.12 or later: this kernel ($release)*" "$ERR"
check_eq "pin: every thread as it was" "$before" "$(snapshot $PID)"
# The policies are older than the slice.
check_run "pin --policy rr:7 on 6.1" 0 affix pin --policy rr:7 all $PID
check_eq "rr on 6.1: chrt" "4 SCHED_RR 7" "$(all_chrt $PID)"
check_run "show on 6.1: no slice" 0 affix show --json $PID
check_eq "show on 6.1: rr:7, no slice" "rr:7 null" "$(json '.[0].threads[0].sched | "\(.text) \(.slice_ns)"')"
stop_load $PID
finish
