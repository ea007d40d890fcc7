#pragma once
// The pin engine: moves every thread of running processes (or only named
// threads) to a CPU set, completely or not at all.
//
// It re-reads each process's thread list and re-checks every thread's CPU
// list until a whole pass finds nothing to change, then confirms with one
// more pass after a short sleep (a thread still being cloned copies the old
// list and shows up late; where threads were created or ended during the
// move, the sleep is longer, for a clone that a busy machine has delayed).
// After the first listing a pass may prove the list
// unchanged instead of reading it again: the kernel's thread count, read
// before every known thread is checked, equals the number of known threads
// that are still alive (see count_pass in pin.cpp); else it lists again. A thread that vanishes during a pass makes that
// pass not quiet (it may have created a thread with the old list before it
// exited). Threads, or whole processes, that exit are not a failure. Any
// other failure puts every thread already moved back on its previous list
// and throws Error(Runtime) naming the thread and the reason. A PID reused
// during the move (pidfd_open where the kernel has it, else the start time)
// is a failure too, with the same rollback.

#include <sys/types.h>

#include <string>
#include <vector>

#include "cpuset.hpp"
#include "os.hpp"
#include "sysroot.hpp"

namespace affix {

struct PinTarget {
  pid_t id = 0;                  // a PID, or a TID where single_thread
  bool single_thread = false;    // --tid: move only this thread
  CpuSet cpus;                   // every thread gets this set...
  std::vector<unsigned> spread;  // ...or, where not empty (--spread), one CPU
                                 // each, round-robin in TID order
};

struct PinOptions {
  unsigned settle_ms = 2;       // the sleep before the confirmation pass
  unsigned busy_settle_ms = 20; // the same where threads came or went during the move
  unsigned max_passes = 1000;   // a process whose threads never settle is a failure
  unsigned max_resets = 4;      // a thread that keeps going back to another list is a failure
};

struct ThreadMove {
  pid_t tid = 0;
  CpuSet before;    // its list when first seen
  CpuSet after;     // the list affix gives it
  CpuSet restore;   // its list just before affix last changed it (rollback)
  bool changed = false;
  bool vanished = false;  // exited during the move
  unsigned resets = 0;
};

struct TargetReport {
  pid_t id = 0;
  bool single_thread = false;
  bool exited = false;               // the process (thread) exited during the move
  std::vector<ThreadMove> threads;   // every thread seen, ascending TID
};

struct PinReport {
  std::vector<TargetReport> targets;
  unsigned passes = 0;
};

// `proc` is only read to explain a refusal (a thread's comm and its
// PF_NO_SETAFFINITY flag). Throws Error(Runtime) after rolling back.
PinReport pin_threads(Os& os, const SysRoot& proc, const std::vector<PinTarget>& targets,
                      const PinOptions& options = {});

// Puts every changed thread of a report back on its previous list (for a
// failure after the pin, e.g. of --migrate). Returns the threads that could
// not be put back, as "TID: reason" lines.
std::vector<std::string> roll_back(Os& os, const PinReport& report);

}  // namespace affix
