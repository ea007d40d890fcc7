#pragma once
// Reading processes and threads under /proc, through a SysRoot so tests can
// use fake /proc trees: status (Cpus_allowed_list, Mems_allowed_list, Tgid,
// CapEff), the per-thread stat line (comm, parent, flags, thread count,
// start time, the CPU it last ran on), its schedstat line, the thread list,
// pages per NUMA node and the memory policy of each mapping from numa_maps,
// and the address ranges of maps. The one /proc parser: os_linux.cpp reads
// its stat and schedstat lines through parse_stat and parse_schedstat too. Every read is bounded; a process that vanishes
// mid-read is a clean Error(Runtime).

#include <sys/types.h>

#include <cstdint>
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
  pid_t ppid = 0;                     // field 4, the parent process
  unsigned long flags = 0;            // field 9
  // Fields 14 and 15, utime + stime, in clock ticks: a thread's own; in
  // proc/PID/stat the whole process's, its ended threads' included.
  unsigned long long cpu_ticks = 0;
  unsigned long num_threads = 0;      // field 20, the process's thread count
  unsigned long long start_time = 0;  // field 22, clock ticks since boot
  long last_cpu = -1;                 // field 39, the CPU it last ran on
};

// Parses a stat line; nullopt where it is not one (comm is found up to the
// last ')', so a comm holding ") (" does not confuse it).
std::optional<StatLine> parse_stat(std::string_view text);

// /proc/PID/task/TID/schedstat: "RUN_NS WAIT_NS TIMESLICES". A cheap file:
// watch reads it first and the rest only where the thread ran; pin
// reads it to know a thread's creation is complete (has_run). WAIT_NS is
// sched_info.run_delay: the time the thread was ready to run but waited
// for a CPU, added when the wait ends (it gets a CPU, or is moved to
// another CPU's queue while it waits). A kernel that keeps no sched_info
// prints "0 0 0" (see wait_kept).
struct SchedStat {
  uint64_t run_ns = 0;
  uint64_t wait_ns = 0;
  uint64_t timeslices = 0;
  bool operator==(const SchedStat&) const = default;
  // Whether the thread ran between `before` and this reading (its wait
  // alone can grow without it: a move while it waits).
  bool ran_since(const SchedStat& before) const { return run_ns != before.run_ns || timeslices != before.timeslices; }
  // Whether it was ever given a CPU. TIMESLICES says it; RUN_NS alone does
  // not: a thread that ran once, briefly, and sleeps since can read 0 ns
  // there for ever (seen on 6.18: "0 60570 1", an idle thread of 6000).
  bool has_run() const { return run_ns > 0 || timeslices > 0; }
};
std::optional<SchedStat> parse_schedstat(std::string_view text);

// The fields of /proc/PID/status affix uses.
struct StatusInfo {
  std::string name;
  pid_t tgid = 0;
  CpuSet cpus;  // Cpus_allowed_list
  CpuSet mems;  // Mems_allowed_list
  unsigned long long cap_eff = 0;  // CapEff (a mask of capability bits)
  pid_t tracer = 0;                 // TracerPid: the process ptrace-attached to it, or 0
};

// Calls f(key, value) for each "key: value" line of text (/proc's status
// and sched files), both trimmed of blanks, while f returns true; false
// where f stopped it.
template <typename F> bool for_each_field(std::string_view text, F&& f) {
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (!f(trim_space(line.substr(0, colon)), trim_space(line.substr(colon + 1)))) return false;
  }
  return true;
}

// Parses status text; nullopt where Cpus_allowed_list is missing or garbage.
std::optional<StatusInfo> parse_status(std::string_view text);

// Pages per NUMA node, summed over the N<node>=<pages> fields of numa_maps.
using NodePages = std::map<unsigned, unsigned long long>;
NodePages parse_numa_maps(std::string_view text);

// What numa_maps says of a process: its pages per node, split into
// anonymous and file pages (is_anonymous), and the memory policy (each
// line's second field, as the kernel writes it: "default", "bind:2",
// "interleave:0-1", "prefer:1", "prefer (many):0-1", with flags
// "bind=static:0-1") that covers the most pages, ties to the first line's;
// "" where no line shows one.
struct NumaUsage {
  NodePages pages;  // every mapping's: anon and file added up
  NodePages anon;   // the process's own memory
  NodePages file;   // page cache of the files it maps
  std::string policy;
  // The anonymous pages of the mappings under weighted interleave, and the
  // first such mapping's policy ("weighted interleave:0,2"; "" where none).
  NodePages weighted;
  std::string weighted_policy;
};
// `private_writable`: the start addresses of the mappings maps shows
// private and writable ("rw-p"), ascending (none where maps is not known).
NumaUsage parse_numa_usage(std::string_view text,
                           const std::vector<unsigned long long>& private_writable = {});

// One line of numa_maps: where the mapping starts, its memory policy as the
// kernel writes it ("default", "bind:2", "interleave:0-3", "prefer:1",
// "prefer (many):0-1", "bind=static:2", ...), and its pages per node.
struct NumaMapping {
  unsigned long long start = 0;
  std::string policy;
  NodePages pages;
  unsigned long long page_kb = 4;  // kernelpagesize_kB: the size of its pages
  bool file = false;  // a "file=" field: it maps a file
  bool anon = false;  // an "anon=" field: anonymous pages in it
};
// nullopt where the line is not a numa_maps line (the address must be hex).
std::optional<NumaMapping> parse_numa_maps_line(std::string_view line);
// Whether a mapping's pages are the process's own memory (heap, stacks,
// private mappings) rather than page cache of a file, which every process
// mapping the file shares and which sits where the file was first read: it
// maps no file, or it has anonymous pages (a private mapping written to), or
// it is private and writable.
bool is_anonymous(const NumaMapping& m, bool private_writable);
// The nodes a policy text names after its ':' ("bind:0-1" -> 0-1); empty for
// "default" and "local", nullopt where the list is not one.
std::optional<CpuSet> policy_nodes(std::string_view policy);

// One line of /proc/PID/maps: the mapping's address range [start, end).
struct AddressRange {
  unsigned long long start = 0, end = 0;
  bool private_writable = false;  // permissions "rw?p"
};

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
// With the anon/file split, for which maps is read too (where it cannot
// be, mappings are split by numa_maps alone).
std::optional<NumaUsage> read_numa_usage(const SysRoot& root, pid_t pid);
// The same from thread `tid`'s files (proc/PID/task/TID): a process whose
// main thread has exited while others run (a zombie leader) has an empty
// proc/PID/numa_maps, its live threads' hold its mappings.
std::optional<NumaUsage> read_numa_usage(const SysRoot& root, pid_t pid, pid_t tid);
// The same file line by line (lines beyond 16 KiB, which the kernel never
// writes, are cut there); nullopt where it cannot be read.
std::optional<std::vector<NumaMapping>> read_numa_mappings(const SysRoot& root, pid_t pid);
// proc/PID/maps: every mapping's range, ascending; nullopt where unreadable.
std::optional<std::vector<AddressRange>> read_maps(const SysRoot& root, pid_t pid);
// The same under `dir` (proc/PID or proc/PID/task/TID).
std::optional<std::vector<AddressRange>> read_maps_in(const SysRoot& root, const std::string& dir);
// Every numeric entry of proc/, ascending.
std::vector<pid_t> list_pids(const SysRoot& root);

// A process's command line, as ps shows it: the arguments of
// proc/PID/cmdline (NUL-separated) joined with single spaces, the NULs
// after the last one dropped (a process that rewrites its title, as nginx
// does, pads it with them). At most k_max_cmdline bytes are read: where the
// file goes on, the text is cut there (before a UTF-8 character the cut
// would split) and ends with "...". "" for a kernel thread, a zombie or a
// process with no arguments left; nullopt where it cannot be read (gone,
// or a captured root without it).
constexpr size_t k_max_cmdline = 4096;
std::string join_cmdline(std::string_view raw, bool cut);
std::optional<std::string> read_cmdline(const SysRoot& root, pid_t pid);

// The children of process PID, ascending, each once: those of each of its
// threads in proc/PID/task/TID/children (Linux's CONFIG_PROC_CHILDREN).
// nullopt where that list cannot be trusted whole, and the caller is to
// find the children by their parent (StatLine::ppid) instead: a thread's
// children file cannot be read (the kernel lacks them; a capture); it is
// too long to come in one read (each read resumes the kernel's walk by
// position, which skips a child where one before it went); it names a
// child that is gone by the time it is checked (the same within one read:
// where the child the walk stood on is released); or the thread list
// changed while they were read (an exiting thread's children go to
// another, perhaps one read before). pin reads the same files through
// TaskOs (pin.hpp: list_tree_children).
std::optional<std::vector<pid_t>> read_children(const SysRoot& root, pid_t pid);

// The largest PID or TID the kernel gives (PID_MAX_LIMIT).
constexpr pid_t k_max_pid = 4194304;

// A PID or TID as /proc names it, or as given on a command line: strict
// decimal, 1..k_max_pid.
std::optional<pid_t> parse_pid(std::string_view text);

}  // namespace affix
