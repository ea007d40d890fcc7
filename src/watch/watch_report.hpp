#pragma once
// What `affix watch` reports: per thread and per process, for one interval
// or (the summary) for the whole run. watch_tracker.cpp fills these;
// watch_text.cpp and watch_json.cpp print them.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "migration_level.hpp"
#include "proc.hpp"

namespace affix {

struct Activity {
  Migrations migrations;
  uint64_t voluntary = 0;    // context switches
  uint64_t involuntary = 0;
  uint64_t cpu_ns = 0;       // CPU time used
  // Run-queue wait (schedstat's WAIT_NS): time ready to run but waiting
  // for a CPU. Known only as far as it was read: `wait_read` where some of
  // it was, `wait_unread` where some of it was not (a thread unread, a
  // schedstat that could not be read or keeps no wait). Neither: nothing
  // to count (an empty Activity; a thread in the interval it exits, whose
  // wait counts up to the sample before).
  uint64_t wait_ns = 0;
  bool wait_read = false;
  bool wait_unread = false;
  Activity& operator+=(const Activity& o) {
    migrations += o.migrations;
    voluntary += o.voluntary;
    involuntary += o.involuntary;
    cpu_ns += o.cpu_ns;
    wait_ns += o.wait_ns;
    wait_read = wait_read || o.wait_read;
    wait_unread = wait_unread || o.wait_unread;
    return *this;
  }
  // nullopt where none of the wait could be read (JSON null, text "-").
  std::optional<uint64_t> wait() const { return wait_read ? std::optional<uint64_t>(wait_ns) : std::nullopt; }
  // Some of it could not be read: wait() is a lower bound.
  bool wait_partial() const { return wait_read && wait_unread; }
  bool idle() const {
    return migrations.total() == 0 && voluntary == 0 && involuntary == 0 && cpu_ns == 0 && wait_ns == 0;
  }
};

struct ThreadReport {
  pid_t tid = 0;
  std::string comm;
  long cpu = -1;        // the CPU it was last on; -1 where unknown, or outside its CPU list and not run on since
  Activity activity;
  bool exact = false;   // every migration seen with its CPUs
  bool exited = false;  // exited during the interval (reported up to its exit)
};

// A process under weighted interleave: the policy's nodes, the anonymous
// pages of its mappings under it per node (numa_maps), and each node's
// weight as the kernel has it at the sample (0 where it has none).
struct WeightedShare {
  CpuSet nodes;
  NodePages pages;
  std::map<unsigned, unsigned> weights;
};

struct ProcessReport {
  pid_t pid = 0;
  std::string comm;
  unsigned threads = 0;  // threads reported (live at the sample, or exited during the interval)
  // Threads there but not read at all (no file left to open): not in
  // `threads` nor the thread list; the process is then not exact. The
  // summary's: threads unread in some interval.
  unsigned threads_unread = 0;
  CpuSet cpus_ran;       // CPUs its threads ran on; where none ran, those they last ran on (ThreadReport::cpu)
  Activity activity;
  // Of activity.cpu_ns: what the process's own total (proc/PID/stat) says
  // threads used that no sample saw (they came and went between two), or,
  // sampled, a thread used after the last sample before its exit.
  uint64_t came_and_went_ns = 0;
  std::optional<NodePages> pages;       // numa_maps; nullopt where it cannot be read
  std::optional<NodePages> anon_pages, file_pages;  // the same split (NumaUsage)
  std::optional<uint64_t> remote_pages; // anonymous pages on nodes none of cpus_ran is on
  // The nodes of the CPUs remote_pages is measured against (those of
  // cpus_ran). Where they are more than one, which pages are remote depends
  // on the thread (one on node 0 reaches node 1's across, one on node 1 not)
  // and numa_maps does not say whose pages are whose: the share of remote
  // pages is not defined (remote_share).
  CpuSet ran_nodes;
  // Percent of the anonymous pages off the one node it ran on; nullopt
  // where it ran on several nodes, or the pages or CPUs are not known.
  std::optional<double> remote_share() const;
  std::optional<WeightedShare> weighted;  // nullopt where no mapping is under weighted interleave
  bool exact = false;
  bool exited = false;
  double seconds = 0;    // summary: how long it was watched
  std::vector<ThreadReport> thread_list;  // ascending TID
};

struct IntervalReport {
  double time = 0;      // seconds since the watch started
  double interval = 0;  // seconds this interval lasted
  bool exact = false;   // every thread reported was counted exactly
  std::vector<ProcessReport> processes;  // ascending PID
};

struct WatchSummary {
  double duration = 0;
  bool exact = false;
  std::vector<ProcessReport> processes;  // ascending PID; totals over the run
  size_t unlisted = 0;  // exited processes beyond the 10,000 the summary lists
  // `affix watch -- COMMAND`: the command's PID and its status as a shell
  // gives it (the exit status, 128+N for signal N).
  struct Command {
    pid_t pid = 0;
    int status = 0;
  };
  std::optional<Command> command;
};

}  // namespace affix
