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
//
// With use_events (top --once) and where the kernel gives them, the
// scheduler's context switches on every CPU are the source instead: no
// thread is read at the start; at the end affix visits every online CPU
// (so that what runs there switches), and the threads that ran
// (tally_switches) and their processes are read (WatchTracker::
// sample_switches). The same frame is built from either.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "os.hpp"
#include "perf_events.hpp"
#include "sysroot.hpp"
#include "top_counters.hpp"
#include "top_frame.hpp"
#include "topology.hpp"
#include "watch_report.hpp"

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

  // Before the first next(): take the scheduler's events where they can be
  // opened (root, CAP_PERFMON or kernel.perf_event_paranoid <= 0; affix
  // may run on every online CPU; none of them isolated, nohz_full or
  // shielded: the visit at the end would disturb it); else, or where
  // `on` is false, read every thread as the live view does.
  void use_events(bool on) { m_want_events = on; }
  // Tests: these events instead of the kernel's, taken as opened (with
  // use_events), their times on set_clock's clock.
  void give_events(std::unique_ptr<SwitchEvents> events) { m_given = std::move(events); }
  // Whether the events are the source (after the first next()), and why
  // they are not ("" where they were not asked for).
  bool events_used() const { return m_switches != nullptr; }
  const std::string& why_no_events() const { return m_why_no_events; }
  // The last frame's events are not whole: a ring lost records (it
  // filled up), or a CPU could not be visited in time (a thread of a
  // real-time policy that does not let go of it): why, else "". restart()
  // then begins again, reading every thread.
  const std::string& events_lost() const { return m_lost; }
  void restart();
  // How long the visit of every CPU at the end may take.
  static constexpr unsigned k_visit_ms = 2000;
  // Sleeps `seconds`, draining the events' rings meanwhile.
  void wait(double seconds);

  // Where the time comes from (monotonic ns; tests give their own).
  void set_clock(uint64_t (*clock)()) { m_clock = clock; }

  // The most threads listed under one CPU in a frame.
  static constexpr size_t k_threads_per_cpu = 16;
  // Data pages of each CPU's ring of switch records (256 KiB with 4 KiB
  // pages: some 3,000 switches before it is drained at half).
  static constexpr unsigned k_switch_ring_pages = 64;
  // Of the last frame: threads read and threads skipped (cost rule).
  size_t threads_read() const;
  size_t threads_skipped() const;
  // The named PIDs that do not exist (after the first next()).
  const std::vector<pid_t>& missing() const { return m_missing; }

private:
  bool wanted(pid_t pid, const std::string& comm);
  TopFrame frame_cpus(double interval);
  void open_events();
  // The events' interval, ended now (visiting every online CPU first).
  std::optional<IntervalReport> events_report(double time, double interval);
  // Visits every online CPU from a thread of its own (what runs there
  // switches out); false where it did not finish within k_visit_ms plus
  // 2 ms a CPU (the thread is left to finish by itself).
  bool visit_cpus();

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
  bool m_want_events = false;
  std::unique_ptr<SwitchEvents> m_switches;
  std::unique_ptr<SwitchEvents> m_given;
  std::string m_why_no_events;
  uint64_t m_events_from = 0;  // CLOCK_MONOTONIC when they were opened
  std::string m_lost;
};

}  // namespace affix
