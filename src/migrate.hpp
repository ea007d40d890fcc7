#pragma once
// pin --migrate: move a process's existing pages to the target nodes with
// migrate_pages, and count its pages per node before and after from
// /proc/PID/numa_maps.

#include <sys/types.h>

#include <optional>
#include <string>

#include "cpuset.hpp"
#include "os.hpp"
#include "proc.hpp"
#include "sysroot.hpp"

namespace affix {

struct MigrateReport {
  pid_t pid = 0;
  CpuSet from;  // every node that is not a target
  CpuSet to;
  std::optional<NodePages> before, after;  // nullopt where numa_maps cannot be read
  unsigned long long moved = 0;  // pages that left the `from` nodes
  long not_moved = 0;            // the kernel's count of pages it could not move
  bool exited = false;           // the process exited first
};

// Moves the pages of `pid` from every node of `nodes` that is not in `to`
// onto `to`. Nothing to move from (every node a target) is a no-op with a
// report. Throws Error(Runtime) where the kernel refuses (EPERM: needs
// CAP_SYS_NICE).
MigrateReport migrate_process(Os& os, const SysRoot& root, pid_t pid, const CpuSet& nodes,
                              const CpuSet& to);

// "4242: moved 120 pages\n  pages per node before: 0:1200 1:7\n  ... after: ..."
std::string format_migrate(const MigrateReport& report);

}  // namespace affix
