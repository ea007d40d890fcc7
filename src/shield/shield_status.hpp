#pragma once
// What a shield is, read back from the kernel (affix(1), SHIELD, "What
// show --shield says"): its record says what affix asked for; whether the
// kernel holds it (cpuset.cpus.partition, its effective CPUs, the root's
// cpuset.cpus.isolated, the unbound workqueues' cpumask), who is inside
// it, whether its launcher still runs, and, per shielded CPU, what still
// may run there: kernel threads (those bound to it cannot move), IRQs, and
// every task of another cgroup. Never assumed from the record.

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "files_os.hpp"
#include "irq.hpp"
#include "partition_verdict.hpp"
#include "shield_record.hpp"
#include "sysroot.hpp"

namespace affix {

struct TaskOnCpus {
  pid_t pid = 0, tid = 0;
  std::string comm;    // the thread's
  std::string cgroup;  // its cgroup (of the shield's hierarchy), relative to the mount
  CpuSet cpus;         // Cpus_allowed_list
  bool bound = false;  // a kernel thread that cannot move (PF_NO_SETAFFINITY)
};

struct IrqOnCpus {
  unsigned irq = 0;
  std::string name;                 // its actions in /proc/interrupts
  CpuSet cpus;                      // smp_affinity_list
  std::optional<CpuSet> effective;  // effective_affinity_list
  std::optional<bool> managed;      // debugfs, where it tells
};

struct CpuReport {
  unsigned cpu = 0;
  std::vector<TaskOnCpus> kernel;  // kernel threads that may run here (bound: they cannot move)
  std::vector<IrqOnCpus> irqs;     // IRQs the kernel delivers here (effective list, else smp_affinity_list)
  std::vector<TaskOnCpus> others;  // every other task outside the shield that may run here
};

enum class LauncherState { None, Running, Gone };

struct ShieldStatus {
  ShieldRecord record;
  bool exists = false;                      // its cgroup is there
  std::optional<PartitionState> partition;  // cgroup v2: cpuset.cpus.partition
  std::optional<CpuSet> effective;          // the CPUs the kernel gives it
  bool exclusive = false;                   // cgroup v1: cpu_exclusive reads 1
  bool holds = false;                       // the kernel holds it: a valid partition / an exclusive cpuset with its CPUs
  std::optional<CpuSet> isolated;           // the root's cpuset.cpus.isolated (Linux 6.7 and later)
  std::optional<CpuSet> workqueue;          // the unbound workqueues' cpumask
  std::vector<std::pair<pid_t, std::string>> inside;  // processes in it, with their comm
  LauncherState launcher = LauncherState::None;
  std::vector<CpuReport> cpus;              // one per CPU of the record
};

// The status of every shield of `records`; `root` and `files` read the
// same machine (root: /proc and /sys; files: the cgroup files).
std::vector<ShieldStatus> read_shield_status(const SysRoot& root, FilesOs& files, IrqOs& irqs,
                                             const std::vector<ShieldRecord>& records);

// Whether `status`'s shield stands as asked: its cgroup there, the kernel
// holding it, and no task of another cgroup allowed on its CPUs (kernel
// threads aside: the kernel's, and some it will not let go of its root
// cgroup, as kthreadd in cgroup v1); each problem as a phrase.
std::vector<std::string> shield_problems(const ShieldStatus& status);

}  // namespace affix
