# vm-topologies: 2s2c2t-2n 4s2c1t-4n-asym
# `affix pin` moves every thread of a running 4-thread process across
# sockets; --tid moves one thread; --spread gives each thread its own CPU.
# Checked in /proc/PID/task/*/status.
. "$VM_LIB"
s0=$(socket_cpus 0) s1=$(socket_cpus 1)
last_socket=$((VM_SOCKETS - 1)) sl=$(socket_cpus $((VM_SOCKETS - 1)))

start_load threads affix run socket:0 -- vmload --threads 4 --wait || { finish; exit; }
check_eq "4 threads" 4 "$(ls /proc/$PID/task | wc -l)"
check_true "started on socket 0" all_threads_on $PID "$s0"

check_run "pin socket:1" 0 affix pin socket:1 $PID
check_true "every thread on socket 1 ($(thread_cpus $PID))" all_threads_on $PID "$s1"
check_run "pin socket:$last_socket" 0 affix pin socket:$last_socket $PID
check_true "every thread on socket $last_socket ($(thread_cpus $PID))" all_threads_on $PID "$sl"

check_run "show --json" 0 affix show --json $PID
check_eq "show: pid" "$PID" "$(json '.[0].pid')"
check_eq "show: cpus" "$sl" "$(json '.[0].cpus')"
check_eq "show: threads" "4" "$(json '.[0].threads | length')"
check_eq "show: thread cpus" "$sl $sl $sl $sl" "$(json '[.[0].threads[].cpus] | join(" ")')"

# --tid: only the named thread moves.
tids=$(ls /proc/$PID/task | sort -n)
t2=$(echo "$tids" | sed -n 2p)
check_run "pin --tid cpu:0" 0 affix pin --tid cpu:0 $t2
for t in $tids; do
  if [ $t = $t2 ]; then want=0; else want=$sl; fi
  check_eq "thread $t after --tid" "$want" "$(status_of $PID/task/$t Cpus_allowed_list)"
done

# --spread: one CPU per thread, round-robin in TID order over the selection
# in compact order (first thread of every core, then the second threads).
if [ "$VM_THREADS" = 2 ]; then order="0 2 1 3"; else order="0 1 0 1"; fi
check_run "pin --spread socket:0" 0 affix pin --spread socket:0 $PID
i=1
for t in $tids; do
  check_eq "thread $t after --spread" "$(echo $order | cut -d' ' -f$i)" "$(status_of $PID/task/$t Cpus_allowed_list)"
  i=$((i + 1))
done

# Errors: exit 1 for a process that does not exist, 2 for a bad place;
# nothing changes.
check_run "pin a PID that does not exist" 1 affix pin socket:0 999999
check_match "error text" "affix: error: *" "$ERR"
check_run "pin to a socket that does not exist" 2 affix pin socket:$VM_SOCKETS $PID
check_run "pin --mem without --migrate" 2 affix pin --mem bind:0 socket:0 $PID
check_match "error points at --migrate" "*--migrate*" "$ERR"
i=1
for t in $tids; do
  check_eq "thread $t unchanged by the failures" "$(echo $order | cut -d' ' -f$i)" "$(status_of $PID/task/$t Cpus_allowed_list)"
  i=$((i + 1))
done
stop_load $PID
finish
