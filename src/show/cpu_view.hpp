#pragma once
// show --cpu LIST (affix(1), show): who may run and who ran on a set of
// CPUs now, read from /proc through a SysRoot. Every thread whose CPU list
// (Cpus_allowed_list) takes in a CPU of LIST is one of three kinds:
//   - bound: a kernel thread the kernel will not let move
//     (PF_NO_SETAFFINITY: cpuhp/N, migration/N, ksoftirqd/N, per-CPU
//     kworkers) whose list is narrower than the online CPUs;
//   - pinned: any other thread whose list is narrower than the online CPUs
//     (a kernel thread too: irq/N-NAME, kswapd on a node);
//   - unpinned: a thread that may run on every online CPU (its list holds
//     them all), counted per process (kernel threads all together).
// "Ran" is the CPU the thread last ran on (stat field 39) within LIST.
// And every IRQ whose effective affinity (effective_affinity_list; its
// smp_affinity_list where the kernel gives none) takes in a CPU of LIST.
// Only read; nothing is changed.

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpuset.hpp"
#include "irq.hpp"
#include "sysroot.hpp"

namespace affix {

struct CpuThread {
  pid_t pid = 0, tid = 0;
  std::string comm;          // the thread's (task/TID/stat)
  std::string process;       // its process's (PID/stat)
  CpuSet cpus;               // Cpus_allowed_list
  long last_cpu = -1;        // stat field 39; -1 where unknown
  bool kernel = false;       // PF_KTHREAD
  bool no_setaffinity = false;  // PF_NO_SETAFFINITY: the kernel refuses to move it
};

enum class CpuThreadKind { Bound, Pinned, Unpinned };

// Bound: a kernel thread with PF_NO_SETAFFINITY whose list is narrower than
// `online`; Pinned: any other thread whose list is narrower than `online`
// (it lacks an online CPU); Unpinned: the rest.
CpuThreadKind classify_thread(const CpuThread& t, const CpuSet& online);

// The unpinned threads of one process (or of every kernel thread).
struct UnpinnedCount {
  pid_t pid = 0;             // 0 for the kernel threads together
  std::string process;       // its comm ("" for the kernel threads)
  unsigned threads = 0;      // its unpinned threads
  std::vector<pid_t> ran;    // those whose last CPU is in LIST, ascending TID
};

struct CpuIrq {
  unsigned irq = 0;
  std::string actions;                  // its actions in /proc/interrupts ("" where none)
  CpuSet cpus;                          // smp_affinity_list
  std::optional<CpuSet> effective;      // effective_affinity_list; nullopt where absent
  std::vector<std::pair<unsigned, unsigned long long>> counts;  // LIST's CPUs -> count (none where no line)
  // Where it is delivered: the effective list, else the CPU list.
  const CpuSet& there() const { return effective ? *effective : cpus; }
};

// One CPU of LIST in numbers.
struct CpuLine {
  unsigned cpu = 0;
  unsigned pinned = 0;   // pinned threads whose list holds it
  unsigned bound = 0;    // bound kernel threads whose list holds it
  unsigned may_run = 0;  // every thread whose list holds it (the three kinds)
  unsigned ran = 0;      // threads (of those read) whose last CPU is it
  unsigned irqs = 0;     // IRQs delivered there
};

struct CpuView {
  CpuSet cpus;     // LIST
  CpuSet online;   // the online CPUs (what "narrower" is against)
  std::string proc;         // ROOT/proc, for the text that says it holds no process
  unsigned processes = 0;   // processes read (0: a captured root has none)
  std::vector<CpuThread> pinned;  // ascending PID, then TID
  std::vector<CpuThread> bound;   // ascending PID, then TID
  std::vector<UnpinnedCount> unpinned;  // user processes with an unpinned thread, ascending PID
  UnpinnedCount unpinned_kernel;        // every unpinned kernel thread
  // nullopt where ROOT/proc/irq cannot be read (a captured root).
  std::optional<std::vector<CpuIrq>> irqs;  // ascending IRQ
  std::vector<CpuLine> per_cpu;             // one per CPU of LIST, ascending
  bool ran(const CpuThread& t) const { return t.last_cpu >= 0 && cpus.test(static_cast<unsigned>(t.last_cpu)); }
};

// Reads every process and thread of ROOT/proc (those that vanish while read
// are left out) and every IRQ of ROOT/proc/irq (`irqs` reads its lists;
// names and counts come from ROOT/proc/interrupts where it can be read).
CpuView read_cpu_view(const SysRoot& root, IrqOs& irqs, const CpuSet& cpus, const CpuSet& online);

// Text (affix(1), show, --cpu): a line per CPU, then the pinned threads
// (per process and CPU list, every TID), the bound kernel threads (per CPU
// list, every TID and name), the unpinned threads per process (those with
// one that ran there; the rest in one line) and the IRQs. Names escaped.
std::string format_cpu_text(const CpuView& view);

// The JSON document of affix(1), show, --cpu.
std::string format_cpu_json(const CpuView& view);

}  // namespace affix
