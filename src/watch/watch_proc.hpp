#pragma once
// What `affix watch` reads of a thread under /proc, besides its stat line
// (proc.hpp): the scheduler's own counters in /proc/PID/task/TID/sched and
// schedstat. Parsers take the text, readers go through a SysRoot; nullopt
// where the file is missing (the thread is gone) or holds no such field.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "proc.hpp"
#include "sysroot.hpp"

namespace affix {

// The fields of /proc/PID/task/TID/sched that watch uses.
struct SchedCounters {
  uint64_t nr_migrations = 0;  // se.nr_migrations: every move, run after or not
  uint64_t voluntary = 0;      // nr_voluntary_switches
  uint64_t involuntary = 0;    // nr_involuntary_switches
  uint64_t run_ns = 0;         // se.sum_exec_runtime (printed in ms with 6 decimals)
};

// nullopt where a field is missing or not a number.
std::optional<SchedCounters> parse_sched(std::string_view text);

// /proc/PID/task/TID/schedstat: SchedStat and its parser, in proc.hpp.
// Whether a schedstat line keeps the run-queue wait: not where it says the
// thread never ran while sched (se.sum_exec_runtime, `sched_run_ns`) says
// it did (a kernel without sched_info, whose schedstat reads "0 0 0").
inline bool wait_kept(const SchedStat& s, uint64_t sched_run_ns) { return s.run_ns != 0 || sched_run_ns == 0; }

std::optional<SchedCounters> read_sched(const SysRoot& root, pid_t pid, pid_t tid);
std::optional<SchedStat> read_schedstat(const SysRoot& root, pid_t pid, pid_t tid);

// A thread's schedstat kept open and read again from its start: one pread
// instead of open, read, read, close and a walk of the path (a third of the
// cost at 10,000 threads). Read where a thread was not seen to run, so it
// is the cost of an idle thread in sampled mode. Move-only.
class SchedStatFile {
public:
  SchedStatFile() = default;
  // Not open() where it cannot be opened, or would take one of the spare
  // files (leaves_spare_files): then the thread is read by path.
  SchedStatFile(const SysRoot& root, pid_t pid, pid_t tid);
  ~SchedStatFile();
  SchedStatFile(SchedStatFile&& o) noexcept : m_fd(o.m_fd) { o.m_fd = -1; }
  SchedStatFile& operator=(SchedStatFile&& o) noexcept;
  bool is_open() const { return m_fd >= 0; }
  // nullopt where the thread is gone (the kernel answers ESRCH) or the
  // content is not a schedstat line.
  std::optional<SchedStat> read() const;
  void close();

private:
  int m_fd = -1;
};

}  // namespace affix
