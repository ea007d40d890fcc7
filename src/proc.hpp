#pragma once
// Reading processes and threads under /proc, through a SysRoot so tests can
// use fake /proc trees: status (Cpus_allowed_list, Mems_allowed_list), the
// per-thread stat line (comm, flags, start time, the CPU it last ran on),
// the thread list, and pages per NUMA node from numa_maps. Every read is
// bounded; a process that vanishes mid-read is a clean Error(Runtime).

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpuset.hpp"
#include "sysroot.hpp"

namespace affix {

// Flags of /proc/PID/stat field 9 (include/linux/sched.h).
constexpr unsigned long k_pf_kthread = 0x00200000;
constexpr unsigned long k_pf_no_setaffinity = 0x04000000;

// One line of /proc/PID/stat or /proc/PID/task/TID/stat.
struct StatLine {
  pid_t id = 0;
  std::string comm;                   // field 2, without the parentheses
  char state = '?';                   // field 3
  unsigned long flags = 0;            // field 9
  long num_threads = 0;               // field 20
  unsigned long long start_time = 0;  // field 22, clock ticks since boot
  long last_cpu = -1;                 // field 39, the CPU it last ran on
};

// Parses a stat line; nullopt where it is not one (comm is found up to the
// last ')', so a comm holding ") (" does not confuse it).
std::optional<StatLine> parse_stat(std::string_view text);

// The fields of /proc/PID/status affix uses.
struct StatusInfo {
  std::string name;
  pid_t tgid = 0;
  CpuSet cpus;  // Cpus_allowed_list
  CpuSet mems;  // Mems_allowed_list
};

// Parses status text; nullopt where Cpus_allowed_list is missing or garbage.
std::optional<StatusInfo> parse_status(std::string_view text);

// Pages per NUMA node, summed over the N<node>=<pages> fields of numa_maps.
using NodePages = std::map<unsigned, unsigned long long>;
NodePages parse_numa_maps(std::string_view text);

// "proc/PID" or "proc/PID/task/TID".
std::string proc_dir(pid_t pid);
std::string task_dir(pid_t pid, pid_t tid);

// The readers: nullopt where the file is missing (the process or thread is
// gone, or never was); Error(Runtime) naming the file where its content is
// not what /proc writes.
std::optional<StatLine> read_stat(const SysRoot& root, const std::string& dir);
std::optional<StatusInfo> read_status(const SysRoot& root, const std::string& dir);
// Thread IDs of proc/PID/task, ascending; nullopt where the process is gone.
std::optional<std::vector<pid_t>> read_tasks(const SysRoot& root, pid_t pid);
// numa_maps read in chunks (memory stays bounded whatever its size);
// nullopt where it cannot be read (gone, or another user's process).
std::optional<NodePages> read_numa_maps(const SysRoot& root, pid_t pid);
// Every numeric entry of proc/, ascending.
std::vector<pid_t> list_pids(const SysRoot& root);

// CPU number -> NUMA node number, from sys/devices/system/node/node*/cpulist
// (every CPU on node 0 where the machine has no node directory).
class CpuNodes {
public:
  explicit CpuNodes(const SysRoot& root);
  long node_of(long cpu) const;  // -1 where unknown

private:
  std::vector<long> m_node;  // indexed by CPU
  bool m_flat = false;       // no node directories: everything is node 0
};

// "1-3,7" for a sorted list of IDs (thread IDs go beyond CpuSet's sizes).
std::string format_id_list(const std::vector<pid_t>& ids);

// A PID or TID given on the command line: strict decimal, 1..4194304.
std::optional<pid_t> parse_pid(std::string_view text);

}  // namespace affix
