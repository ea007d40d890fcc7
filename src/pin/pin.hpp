#pragma once
// The pin engine: moves every thread of running processes (or of whole
// process trees, or only named threads) to CPU sets, and with a scheduling
// request (PinOptions::sched) gives each the policy too, completely or not
// at all. One path: list, move, confirm; the proof that no thread is left
// behind is the comment above Engine::run in pin.cpp.
//
// The order is fixed (affix(1), GUARANTEES): each target is held first (its
// pidfd opened, or its start time read where the kernel has no pidfd), then
// the caller's resolver reads what it needs of /proc, then the target's
// identity is checked again, and again before every pass that can change
// anything. Threads, or whole processes, that exit are not a failure; a PID
// reused by another process is. Any failure puts back every thread affix
// changed whose list (and policy) is still the one affix set (and those
// created during the move from one it had moved: threads, and with --tree
// processes), and throws Error(Runtime) naming the thread, the reason and
// every thread and process that stays elsewhere.
//
// A thread's policy and CPU list are set in the order the kernel admits
// (sched.hpp, cpus_first): the CPUs first where it is to be SCHED_DEADLINE,
// else the policy first; a roll back puts them back in the same order for
// the policy it puts back.

#include <sys/types.h>

#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "os.hpp"
#include "proc_events.hpp"
#include "sched.hpp"
#include "sysroot.hpp"

namespace affix {

enum class PinScope {
  Process,  // a PID: every thread of the process
  Thread,   // --tid: this thread only
  Tree,     // --tree: the process, its descendants, every thread of each
};

struct PinRequest {
  pid_t id = 0;
  PinScope scope = PinScope::Process;
};

// Where the threads of one request go.
// With --spread, one round over every target of the pin (affix(1), "One
// CPU each"): the threads of the named processes in the order given, each
// process's in TID order; with --tree, the root's threads keep `cpus` and
// the descendants' are spread, processes in the order they started; with
// --tid, the threads in the order given.
struct PinPlace {
  CpuSet cpus;                   // every thread gets this set...
  std::vector<unsigned> spread;  // ...or, where not empty (--spread), one CPU
                                 // each, round-robin in the order above
  unsigned per_cpu = 1;          // --spread=N: N consecutive threads per CPU
  // No WHERE (pin --policy batch PID): every thread keeps the list it has,
  // `cpus` and `spread` unused; only the scheduling request is set.
  bool keep_cpus = false;
};

// Resolves a request once its target is held; whatever it reads of /proc
// belongs to the process that is then moved (the identity is checked after).
using PinResolver = std::function<PinPlace(const PinRequest&)>;

struct PinOptions {
  unsigned settle_ms = 2;        // the sleep after a pass that changed something
  unsigned busy_settle_ms = 20;  // the same where threads came or went during the move
  unsigned limit_ms = 10000;     // a move that has not settled by then is a failure
  unsigned max_resets = 4;       // a thread that keeps going back to another list is a failure
  bool dry_run = false;          // read everything, change nothing
  bool check = false;            // with dry_run: only read each thread's list (pin --check)
  // --policy, --nice, --sched-slice, --uclamp: every thread's attributes
  // too (none read without one).
  SchedRequest sched;
  // For dry_run: a thread's cpuset, where it has one narrower than the
  // machine (the kernel keeps the part of a list inside it, and refuses a
  // list with none); nullopt where it has none or it cannot be read.
  std::function<std::optional<CpuSet>(pid_t pid, pid_t tid)> cpuset_of;
  // With --tree (not dry_run): forks, so that none begun before affix moved
  // its creator ends after the move with the old list (pin.cpp, run).
  // nullptr: the sleeps alone.
  ForkWatchOs* forks = nullptr;
  // A thread affix moved that is running (or waiting for a CPU) all along,
  // so that /proc cannot say whether it is inside clone(2), and forks
  // nothing, is taken as outside after this long.
  unsigned clone_wait_ms = 1000;
};

struct ThreadMove {
  pid_t tid = 0;
  CpuSet before;   // its list when first seen
  CpuSet want;     // the list asked for
  CpuSet after;    // the list it has from affix: what the kernel accepted of
                   // `want` (the part inside the thread's own cpuset)
  CpuSet restore;  // its list just before affix last set it
  bool seen = false;       // read at least once
  bool changed = false;    // affix set it
  bool inherited = false;  // created during the move, already on `want` (its creator's)
  bool gone = false;       // exited during the move
  bool verified = false;   // read on its list after it had run (see pin.cpp)
  unsigned resets = 0;     // times its list was found changed back after affix set it,
                           // or its TID listed again after it answered ESRCH
  // With a scheduling request, the same for its attributes: when first
  // seen, what it has from affix (read back; with --dry-run what it would
  // get), just before affix last set them. The clamps are in `restore`
  // only where the request sets them.
  SchedAttr sched_before, sched_after, sched_restore;
  bool sched_changed = false;  // affix set them
};

struct ProcessMove {
  pid_t pid = 0;       // the process (for --tid, the thread's process where known)
  bool exited = false;
  int pidfd = -1;      // held by the report (PinReport::held); -1 where the kernel has none, and for --tid
  unsigned long long start_time = 0;    // of `pid` when first held (for --tid, of the thread)
  std::optional<CpuSet> common_before;  // the list every thread had at the first listing, where all had one
  std::optional<SchedAttr> common_sched_before;  // the same of the attributes (with a scheduling request)
  std::vector<ThreadMove> threads;      // ascending TID
};

struct TargetReport {
  PinRequest request;
  PinPlace place;
  bool exited = false;                 // the named process (or thread) exited during the move
  std::vector<ProcessMove> processes;  // the process (with --tree its descendants, ascending PID)
};

struct PinReport {
  std::vector<TargetReport> targets;  // in request order
  SchedRequest sched;                 // PinOptions::sched
  unsigned passes = 0;
  // With --tree and PinOptions::forks: why the kernel's fork events could
  // not be had (empty where they were, or were not asked for).
  std::string no_fork_events;
  // Threads affix moved that /proc never showed outside clone(2) within
  // clone_wait_ms, and that forked nothing after the move (see run).
  size_t clone_unproven = 0;
  // The pidfds of every process, closed when the last copy of the report
  // goes: a page migration or a roll back after the move acts on the
  // processes the move held, not on bare numbers (affix(1), GUARANTEES).
  std::shared_ptr<void> held;
};

enum class Identity { Same, Gone, Reused };
// Whether a process of a pin is still the one it held: by its pidfd (not
// readable: alive, so its PID is its own), else by its start time.
Identity identity_of(TaskOs& os, const ProcessMove& p);

// With --tree: the children of every thread of process `pid`, as (thread,
// child) pairs. False where a listing may have skipped a child that
// existed all along (TaskOs::list_children), or a thread exited while they
// were read (its children go to another thread, perhaps one read before).
bool list_tree_children(TaskOs& os, pid_t pid, std::vector<std::pair<pid_t, pid_t>>& out);

// Throws Error(Runtime) "no such process: ID" (or thread) before anything
// is changed; Error(Usage) where a PID names a thread that is not its
// process's main thread; Error(Runtime) after rolling back on any failure.
// `proc` is read for a thread's process (Tgid) and to explain a refusal.
// What the pin engine asks of the operating system: the threads' lists and
// scheduling attributes, the processes and their pidfds, a clock for its
// settling and time limit, and (to explain an EPERM) affix's own capability.
struct PinOs {
  AffinityOs& affinity;
  TaskOs& tasks;
  Clock& clock;
  CapabilityOs& caps;
  SchedOs& sched;
  PinOs(AffinityOs& a, TaskOs& t, Clock& c, CapabilityOs& k, SchedOs& s)
    : affinity(a), tasks(t), clock(c), caps(k), sched(s) {}
  // One object that is all five (linux_os(), a test's fake).
  template <class All>
    requires std::derived_from<All, AffinityOs> && std::derived_from<All, TaskOs> &&
             std::derived_from<All, Clock> && std::derived_from<All, CapabilityOs> &&
             std::derived_from<All, SchedOs>
  PinOs(All& all) : affinity(all), tasks(all), clock(all), caps(all), sched(all) {}
};

PinReport pin_threads(PinOs os, const SysRoot& proc, const std::vector<PinRequest>& requests,
                      const PinResolver& resolve, const PinOptions& options = {});

// Puts back every thread of a finished pin that affix changed (for a failure
// after it, e.g. of --migrate), where its list (and policy, with the
// report's scheduling request) is still the one affix set,
// and those created during the move on a list affix set (threads; with
// --tree, processes forked from the tree and theirs, found from its
// children files once the known ones are back). Acts only on processes the
// report still holds (identity_of) and on TIDs they still list. Returns
// what stays where, as one text ("thread 12 stays on CPUs 1 (...)";
// "threads 13-15 ..."; "process 40 stays ..."), empty where all is back.
std::string roll_back(AffinityOs& affinity, TaskOs& tasks, SchedOs& sched, const PinReport& report);

// "12 (worker)" for messages: the thread's comm from /proc, escaped with
// printable(); the bare ID where it cannot be read.
std::string thread_name(const SysRoot& proc, pid_t pid, pid_t tid);

}  // namespace affix
