#pragma once
// One thread under `affix watch`: what it did in each interval. Exact where
// its cpu-migrations event is open (every move with the CPU it left and the
// one it came to); else sampled: the move count from se.nr_migrations, the
// levels estimated from the CPUs it was seen on (see estimate_moves).
//
// A migration counted exactly is "the thread started running on a CPU other
// than the one it last ran on" (perf's event: two moves it never ran between
// are one, a move and a move back are none). se.nr_migrations counts every
// move, run after or not: a sampled count can be higher.

#include <sys/types.h>

#include <optional>
#include <string>

#include "migration_level.hpp"
#include "perf_events.hpp"
#include "sysroot.hpp"
#include "watch_proc.hpp"
#include "watch_report.hpp"

namespace affix {

struct WatchContext {
  const SysRoot& root;
  const LevelMap& levels;
  MigrationEvents* events;  // nullptr: sampled mode
};

// What one thread did in one interval.
struct ThreadInterval {
  Activity activity;
  CpuSet ran_on;        // CPUs it was seen running on (empty where it did not run)
  long cpu = -1;        // the CPU it last ran on
  bool exact = false;
  bool active = false;  // it ran, switched or moved
  bool exited = false;
  // Its files could not be read though it is there (no file left to open):
  // nothing of it is known for the interval, which is not exact; what it
  // did is counted at the next read (affix(1), WATCH).
  bool unread = false;
  // Read for the first time though it was there before: what it did
  // until now is not known (nor counted).
  bool late = false;
};

// `count` moves whose CPUs were not seen, by estimated level. Where the CPU
// seen before and the one seen now differ, one move is counted between
// them; the others at the smallest boundary between two CPUs the thread
// was seen on during the watch (the closest pair: most of a scheduler's
// moves are short), else between two its process was seen on, else at
// `core`. A thread that moves back and forth between two CPUs is counted
// at the level between them.
Migrations estimate_moves(const LevelMap& levels, uint64_t count, long before, long now,
                          const CpuSet& thread_seen, const CpuSet& process_seen);

class ThreadWatch {
public:
  explicit ThreadWatch(pid_t tid) : m_tid(tid) {}

  // Opens its event (where there are events) and reads where it stands.
  // With `since_creation` (a thread created during the watch) the returned
  // interval holds what it did since it was created, from the scheduler's
  // counters. nullopt where the thread is gone (or a zombie); `unread` where it is there
  // but cannot be read: update() tries again.
  std::optional<ThreadInterval> begin(const WatchContext& cx, pid_t pid, bool since_creation,
                                      const CpuSet& process_seen);
  // What it did since the last call. `gone`: the thread list no longer has
  // it (only its event, if any, can still be read), or it is a zombie.
  ThreadInterval update(const WatchContext& cx, pid_t pid, const CpuSet& process_seen, bool gone);
  void close(const WatchContext& cx);

  pid_t tid() const { return m_tid; }
  const std::string& comm() const { return m_comm; }
  long cpu() const { return m_cpu; }
  bool exact() const { return m_has_event; }
  bool exited() const { return m_exited; }
  // Whether it was reported in some interval (the summary counts those).
  bool reported() const { return m_reported; }
  void mark_reported() { m_reported = true; }

private:
  void update_exact(const WatchContext& cx, pid_t pid, const CpuSet& process_seen, bool gone,
                    ThreadInterval& out);
  void update_sampled(const WatchContext& cx, pid_t pid, const CpuSet& process_seen, bool gone,
                      ThreadInterval& out);
  // Whether its task directory is still there (a stat(2): no file to open).
  bool there(const WatchContext& cx, pid_t pid) const;
  // Reads stat and sched after the thread ran: comm, switches. False where
  // they cannot be read (gone, or no file left to open).
  bool read_after_run(const WatchContext& cx, pid_t pid, ThreadInterval& out, long* stat_cpu);
  // Counts its run-queue wait since the last reading of it into `a` from
  // `now`, the schedstat just read (nullopt: it could not be read; the
  // wait since is then counted at the next reading).
  void count_wait(const std::optional<SchedStat>& now, Activity& a);
  // Where it did not run (exact mode: nothing read): no wait ended.
  void count_no_wait(Activity& a) const;

  pid_t m_tid;
  std::string m_comm;
  long m_cpu = -1;       // the CPU it last ran on, as far as seen
  CpuSet m_seen;         // CPUs it was seen on during the watch
  bool m_has_event = false;
  bool m_exited = false;
  bool m_begun = false;           // begin() read where it stands
  bool m_reported = false;
  bool m_since_creation = false;  // begun as a thread created during the watch
  SchedStat m_gate;      // sampled: the cheap check whether it ran
  SchedStatFile m_gate_file;  // sampled: where the check reads it (kept open)
  SchedCounters m_sched; // the scheduler's counters at the last read
  std::optional<uint64_t> m_wait;  // schedstat's WAIT_NS at the last reading; nullopt: none yet
  bool m_wait_kept = true;  // false once its schedstat was seen to keep no wait (wait_kept)
  EventTotals m_event;   // exact: the event's totals at the last read
  uint64_t m_samples = 0;  // exact: samples taken (and lost ones accounted) since open
  // exact: m_sched.run_ns is where the CPU time counted so far ends (false
  // after an interval whose counters could not be read: the event's time
  // counted it, and the next read only starts over from there)
  bool m_run_synced = true;
};

}  // namespace affix
