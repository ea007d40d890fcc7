#pragma once
// run --spread (affix(1), "One CPU each"): a helper process that follows the
// command's thread creation with ptrace and gives each new thread its CPU
// before it runs its first instruction. OS-level code: thread_follow.cpp is
// the only file that includes <sys/ptrace.h>; the rest of affix reaches it
// through ExecOs::follow_threads (os.hpp).
//
// The mechanism (the man page's "SPREADING THREADS AT LAUNCH" says why):
// affix (P) forks H, H forks the follower G and exits, P reaps H, so G is
// neither the command's parent nor its child. P names G as its tracer
// (PR_SET_PTRACER, for Yama ptrace_scope 1, which lets only ancestors attach;
// cleared once G answers), then G attaches with
// PTRACE_SEIZE (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC, not EXITKILL: the
// command goes on if G dies) and tells P through a pipe; P execs only after
// that. A new thread stops twice, at its own first stop and at its creator's
// PTRACE_EVENT_CLONE, in either order: G places it at its creator's event,
// where the creator is known (spread_pools.hpp: a command that bound itself
// keeps its CPUs), and holds one whose own stop came first until then. Signals are passed on untouched (group stops with
// PTRACE_LISTEN). A clone that makes a new process is detached.
// A thread other than the main one that execs becomes the main thread: at
// PTRACE_EVENT_EXEC G gives it the command's CPU list back and forgets its
// old TID (the kernel reports no end for it; a new thread may get it). A
// thread made with CLONE_UNTRACED stops nowhere: G looks in /proc/PID/task
// every 50 ms (SIGALRM interrupts its waitpid; less often where a look takes
// over 0.5 ms), places an untraced thread there and seizes it.

#include <cstddef>
#include <vector>

namespace affix {

struct SpreadPlan {
  std::vector<unsigned> cpus;  // the selection in --order
  unsigned per_cpu = 1;        // N of --spread=N
};

// The CPU of the k-th thread the command creates (k from 0): N consecutive
// threads per CPU, round-robin over `cpus`.
inline unsigned spread_cpu(const SpreadPlan& plan, size_t k) {
  return plan.cpus[(k / plan.per_cpu) % plan.cpus.size()];
}

// Starts G for the calling process. Returns 0 once G is attached (the caller
// execs next), or the errno of the call that failed, named in `call`
// ("ptrace" for a refused PTRACE_SEIZE: EPERM under Yama ptrace_scope 3, a
// seccomp filter, a container without the permission).
int start_thread_follower(const SpreadPlan& plan, const char*& call);

}  // namespace affix
