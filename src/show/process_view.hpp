#pragma once
// What `affix show` shows of a process, read from /proc through a SysRoot:
// its comm and allowed lists, every thread's CPU list and the CPU (and node)
// it last ran on, its pages per NUMA node and its memory policy (numa_maps),
// its command line. Also the --tree walk and the --pinned scan.

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "proc.hpp"
#include "sched.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

struct ThreadView {
  pid_t tid = 0;
  std::string comm;
  CpuSet cpus;          // Cpus_allowed_list of the thread
  long last_cpu = -1;   // field 39 of its stat
  long last_node = -1;  // that CPU's node (-1 where unknown)
  // Its scheduling policy, as the kernel reads it back (SchedLookup);
  // nullopt where unknown.
  std::optional<SchedAttr> sched;
  // The last CPU is outside the thread's CPU list: it has not run since
  // the list changed (a pin), and will not run there again.
  bool last_cpu_stale() const { return last_cpu >= 0 && !cpus.test(static_cast<unsigned>(last_cpu)); }
};

struct ProcessView {
  pid_t pid = 0;
  pid_t ppid = 0;     // its parent (stat field 4)
  std::string comm;
  char state = '?';   // stat field 3: 'Z' a zombie
  // Its arguments joined with spaces (read_cmdline): "" for a kernel
  // thread or a zombie, nullopt where unreadable.
  std::optional<std::string> cmdline;
  // show --tree: how far below the named process it is (0: the named one
  // itself; its children 1, ...).
  unsigned depth = 0;
  CpuSet cpus;  // Cpus_allowed_list of the process (its main thread)
  CpuSet mems;  // Mems_allowed_list: the nodes of its cpuset, not its memory policy
  std::vector<ThreadView> threads;    // ascending TID; threads that exit while read are left out
  std::optional<NodePages> pages;     // nullopt where numa_maps cannot be read
  std::optional<NodePages> anon_pages, file_pages;  // the same split (NumaUsage)
  std::optional<std::string> mem_policy;  // the one covering the most pages (NumaUsage); nullopt where unknown
  std::optional<CpuSet> allowed;      // --pinned: what the process may run on
};

// A thread's scheduling attributes: sched_getattr on this machine (with
// /proc/PID/task/TID/sched where it is refused), that file alone in a
// captured root (sched_lookup below); nullopt where unknown.
using SchedLookup = std::function<std::optional<SchedAttr>(pid_t pid, pid_t tid)>;
// `live`: the kernel's own threads (SchedOs), else null: the files alone.
SchedLookup sched_lookup(const SysRoot& root, SchedOs* live);

// `nodes`: each node's CPUs (Topology::nodes, read_node_cpus), for the node
// each thread last ran on; `sched`, where given, each thread's policy.
// Throws Error(Runtime) "no such process: PID" where it does not exist or
// vanishes while it is read.
ProcessView read_process(const SysRoot& root, const std::vector<NodeInfo>& nodes, pid_t pid,
                         const SchedLookup& sched = {});

// show --tree: the process PID, then its descendants depth first (each
// process followed by its children, ascending PID, and theirs), `depth`
// set. Children come from every thread's children file (read_children),
// else from every process's parent in proc/ (read once, for the whole
// tree). Each PID is shown once: a PID reused while the tree is read, or
// parents that loop in a captured root, end a branch instead of looping; a
// child whose parent is no longer this process by the time it is read, or
// that is gone, is left out with its descendants. Throws as read_process
// for PID itself.
std::vector<ProcessView> read_process_tree(const SysRoot& root, const std::vector<NodeInfo>& nodes, pid_t pid,
                                           const SchedLookup& sched = {});

// What a process may run on (its cgroup cpuset); nullopt where unknown.
using AllowedLookup = std::function<std::optional<CpuSet>(pid_t pid)>;

// Every process under ROOT/proc that has a thread whose CPU list is narrower
// than its allowed set (kernel threads apart), ascending PID; processes that
// vanish during the scan are skipped.
std::vector<ProcessView> find_pinned(const SysRoot& root, const std::vector<NodeInfo>& nodes,
                                     const AllowedLookup& allowed_of, const SchedLookup& sched = {});

// Whether some thread of the view runs on fewer CPUs than `allowed`.
bool is_pinned(const ProcessView& view, const CpuSet& allowed);

}  // namespace affix
