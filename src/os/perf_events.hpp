#pragma once
// Every migration of a thread as the kernel records it: the cpu-migrations
// software event of perf_event_open, one event per thread (pid = TID,
// cpu = -1), sampled at every event with the CPU the thread moved to, read
// from an mmap'd ring that is drained at each interval and whenever it is
// half full (a watermark, woken through epoll; never a wakeup per event).
//
// The kernel raises the event when the thread next runs after a move (one
// sample for two moves it never ran between), so a sample is "the thread
// started running on this CPU, which is not the one it ran on before the
// move". The watch logic (watch_tracker.cpp) sees only this interface; the
// tests give it a fake.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace affix {

class AffinityOs;  // os.hpp

struct MigrationSample {
  uint64_t time_ns = 0;  // perf's clock (local_clock), increasing per thread
  unsigned cpu = 0;      // the CPU the thread moved to (and runs on)
};

enum class OpenResult {
  Opened,
  Refused,  // EACCES/EPERM: perf_event_paranoid, no CAP_PERFMON, another user's thread
  Gone,     // the thread no longer exists
  NoRoom,   // a limit: open files, locked memory for the ring (perf_event_mlock_kb)
};

// What an event counted since it was opened.
struct EventTotals {
  uint64_t count = 0;   // events raised (every sample, lost ones included)
  uint64_t run_ns = 0;  // time the thread ran while the event was open
  bool ended = false;   // the thread has exited (the totals are final)
};

// Samples drained since the last take().
struct Drained {
  std::vector<MigrationSample> samples;  // oldest first
  bool overflowed = false;               // the ring was full: samples were lost
};

class MigrationEvents {
public:
  virtual ~MigrationEvents() = default;
  virtual OpenResult open(pid_t tid) = 0;
  // nullopt where no event is open for tid.
  virtual std::optional<EventTotals> totals(pid_t tid) = 0;
  virtual Drained take(pid_t tid) = 0;
  virtual void close(pid_t tid) = 0;
  // Sleeps until `deadline_ns` (CLOCK_MONOTONIC), draining the rings that
  // reach their watermark meanwhile, with every signal unblocked while it
  // sleeps (a caller blocks SIGINT/SIGTERM elsewhere: no signal is missed
  // between its check and the sleep). Returns false where a signal
  // interrupted it.
  virtual bool wait_until(uint64_t deadline_ns) = 0;
};

// The real events. Probes first: opens the event on a thread of affix's own
// that moves between two CPUs it may use (through `affinity`: the caller's
// list, then the thread's moves), and checks that the kernel counted
// the move (an event that opens but counts nothing is refused as well);
// where affix may use one CPU only, that the event opens and runs (it is
// read back with a running time). Returns nullptr, with the reason in
// `why_not`, where the kernel refuses ("perf_event_open: Permission denied
// (kernel.perf_event_paranoid = 2)"), counts nothing or never runs.
// `ring_pages`: data pages per thread (a power of two).
std::unique_ptr<MigrationEvents> open_migration_events(AffinityOs& affinity, unsigned ring_pages,
                                                       std::string& why_not);

// The scheduler's context switches on every CPU (`affix top --once`): one
// CPU-wide event per CPU (PERF_COUNT_SW_DUMMY with context_switch), its
// records PERF_RECORD_SWITCH_CPU_WIDE stamped with CLOCK_MONOTONIC, read
// from one mmap'd ring per CPU, drained at a watermark while wait_until
// sleeps and at take().
struct SwitchRecord {
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC
  unsigned cpu = 0;
  bool out = false;      // true: the task left the CPU; false: it started running there
  pid_t pid = 0, tid = 0;  // the task (pid 0: the CPU's idle task)
};

class SwitchEvents {
public:
  virtual ~SwitchEvents() = default;
  // The records since the last take(), each CPU's in order (CPUs one
  // after the other). False where a ring lost records (full, or the kernel
  // said PERF_RECORD_LOST): the records are then not the whole story.
  virtual bool take(std::vector<SwitchRecord>& out) = 0;
  // As MigrationEvents::wait_until.
  virtual bool wait_until(uint64_t deadline_ns) = 0;
};

// Opens the event on each CPU of `cpus` (`ring_pages` data pages each, a
// power of two). nullptr, with the reason in `why_not`, where one cannot be
// opened or mapped ("perf_event_open: Permission denied
// (kernel.perf_event_paranoid = 2)").
std::unique_ptr<SwitchEvents> open_switch_events(const std::vector<unsigned>& cpus, unsigned ring_pages,
                                                 std::string& why_not);

// CLOCK_MONOTONIC in nanoseconds.
uint64_t monotonic_ns();

}  // namespace affix
