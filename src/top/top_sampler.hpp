#pragma once
// The engine of `affix top`: one TopFrame per call, for the time since the
// last. Per CPU: busy % from /proc/stat, IRQs per second from
// /proc/interrupts, marks from sysfs (and the shields the caller names);
// per thread and process: the watch engine (WatchTracker, sampled mode,
// every process on the machine) with top's cost rule: a process whose own
// CPU total did not move by a clock tick and whose thread count did not
// change has no thread read (WatchTracker::skip_unmoved). numa_maps is
// read only for processes that ran, at most once per 50 times its last
// read took (ProcessPages).

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "os.hpp"
#include "sysroot.hpp"
#include "top_counters.hpp"
#include "top_frame.hpp"
#include "topology.hpp"

namespace affix {

class WatchTracker;

// Which CPUs and processes a frame holds.
struct TopFilter {
  std::optional<CpuSet> cpus;  // WHERE: these CPUs, and the processes that ran on them
  std::vector<pid_t> pids;     // --pid: these processes (shown though idle)
  std::optional<pid_t> tree;   // --tree: this process and its descendants
  std::optional<std::string> name;  // --name: processes whose comm matches (ECMAScript regex, searched)
};

class TopSampler : public TopSource {
public:
  // `shielded`: the CPUs of affix's shields (marked "shielded"). Throws
  // Error(Usage) where --name is not a regular expression.
  TopSampler(const SysRoot& root, const Topology& topo, AffinityOs& affinity, TopFilter filter,
             CpuSet shielded = {});
  ~TopSampler() override;
  TopFrame next() override;

  // Where the time comes from (monotonic ns; tests give their own).
  void set_clock(uint64_t (*clock)()) { m_clock = clock; }

  // The most threads listed under one CPU in a frame.
  static constexpr size_t k_threads_per_cpu = 16;
  // Of the last frame: threads read and threads skipped (cost rule).
  size_t threads_read() const;
  size_t threads_skipped() const;
  // The named PIDs that do not exist (after the first next()).
  const std::vector<pid_t>& missing() const { return m_missing; }

private:
  bool wanted(pid_t pid, const std::string& comm);
  TopFrame frame_cpus(double interval);

  SysRoot m_root;
  Topology m_topo;
  AffinityOs& m_affinity;
  TopFilter m_filter;
  std::optional<std::regex> m_name;
  CpuSet m_shielded;
  CpuSet m_nohz;
  std::unique_ptr<WatchTracker> m_tracker;
  uint64_t (*m_clock)() = nullptr;
  bool m_started = false;
  uint64_t m_start_ns = 0;
  double m_last = 0;
  std::optional<CpuTimesMap> m_stat;
  std::optional<IrqCounts> m_irqs;
  std::vector<pid_t> m_missing;
  std::shared_ptr<const Box> m_machine;  // draw's tree of m_topo, built once
  std::map<pid_t, pid_t> m_parent;  // --tree: parents read this frame
};

}  // namespace affix
