#pragma once
// The processes `affix watch` follows, interval by interval: the named PIDs,
// or every process on the machine. Threads and processes that appear are
// picked up at the next interval (with what they did since they were
// created); those that end are reported up to their end, in the interval
// they ended in. Each interval gives an IntervalReport; the run a summary.
//
// Cost: a thread that did not run since the last interval costs one cheap
// read (its event's totals, or /proc/.../schedstat, which gives its run-queue
// wait too); one that ran has stat and sched read (and in exact mode its
// schedstat, for the wait); the thread list is read only where the kernel's
// thread count differs from the threads known alive.

#include <sys/types.h>

#include <map>
#include <memory>
#include <vector>

#include "migration_level.hpp"
#include "os.hpp"
#include "perf_events.hpp"
#include "sysroot.hpp"
#include "topology.hpp"
#include "watch_report.hpp"
#include "watch_switches.hpp"
#include "watch_thread.hpp"

namespace affix {

class WatchTracker {
public:
  // `pids` empty: every process on the machine. `events` nullptr: sampled.
  // `thread_list`: report every thread (named PIDs always do). `affinity`
  // reads a thread's CPU list under the default root.
  // `tree`: the named processes and their descendants, those that appear
  // during the watch included (found by find_descendants).
  WatchTracker(const SysRoot& root, const Topology& topo, AffinityOs& affinity, MigrationEvents* events,
               std::vector<pid_t> pids, bool thread_list, bool tree = false);
  ~WatchTracker();
  WatchTracker(const WatchTracker&) = delete;
  WatchTracker& operator=(const WatchTracker&) = delete;

  // Reads where every thread stands (nothing is counted before this) and
  // opens the events. Returns the named PIDs that do not exist (zombies
  // apart: zombies()).
  std::vector<pid_t> start();
  // With `tree`: adds the descendants of the processes watched that are
  // not watched yet, each counted from its creation (it is reported at the
  // next sample, with what it did since it was created). A process that
  // starts and ends between two calls is not seen.
  void find_descendants();
  // What happened since the last sample (or start).
  IntervalReport sample(double time, double interval);
  // One interval from the scheduler's events instead (top --once), with
  // no start() before: the threads that ran (tally_switches), their
  // processes read from /proc then (comm, thread count, pages: as sample()
  // has them), and the named PIDs though idle. A thread that ran but has
  // exited since is counted in its process's time, not listed; a process
  // that has exited since is not reported.
  IntervalReport sample_switches(const std::map<pid_t, SwitchThread>& ran, double time, double interval);
  // Totals over the run, for every process reported at least once (of
  // those that exited, the first 10,000; `unlisted` counts the others).
  WatchSummary summary(double duration) const;

  // The named PIDs that are zombies (exited, not yet reaped): not watched.
  struct Zombie {
    pid_t pid;
    pid_t parent;
  };
  const std::vector<Zombie>& zombies() const { return m_zombies; }

  // top's cost rule: a process whose own CPU total (proc/PID/stat, in
  // clock ticks) did not move since the last sample and whose thread count
  // did not change has its threads not read at all: taken as not run (a
  // thread that ran less than a tick in all is counted at the next sample
  // its process's total moves). Off by default (watch reads every thread).
  void skip_unmoved(bool on) { m_skip_unmoved = on; }
  // Processes and threads whose threads were read / skipped by the last sample.
  size_t threads_read() const { return m_threads_read; }
  size_t threads_skipped() const { return m_threads_skipped; }

  size_t threads_watched() const;
  size_t threads_exact() const;

private:
  struct Process;
  void scan_machine(double time);
  void add_descendants(bool since_creation, double time);
  bool add_process(pid_t pid, bool since_creation, double time, bool between = false);
  void update_process(Process& p, ProcessReport& report);
  void add_threads(Process& p, const std::vector<pid_t>& tids, ProcessReport& report);
  void finish_report(Process& p, ProcessReport& report);
  // The kernel's interleave weights, read at most once a sample and only
  // where a process is under weighted interleave.
  const InterleaveWeights& weights_now();

  SysRoot m_root;
  Topology m_topo;
  LevelMap m_levels;
  AffinityOs& m_affinity;
  MigrationEvents* m_events;
  std::vector<pid_t> m_named;
  bool m_thread_list;
  bool m_tree;
  double m_time = 0;
  std::map<pid_t, std::unique_ptr<Process>> m_live;   // watched now
  std::vector<std::unique_ptr<Process>> m_ended;      // exited and reported, kept for the summary
  std::vector<Zombie> m_zombies;
  size_t m_unlisted = 0;  // exited and reported beyond the summary's limit
  InterleaveWeights m_weights;
  double m_weights_time = -1;
  bool m_skip_unmoved = false;
  size_t m_threads_read = 0, m_threads_skipped = 0;
};

}  // namespace affix
