// The real cpu-migrations events (perf_events.cpp) on this kernel: a thread
// of the test moves between two CPUs the test may use; every move is one
// sample with the CPU it went to. Where the kernel refuses the event (a
// user without CAP_PERFMON at perf_event_paranoid >= 2) the refusal and its
// reason are what is checked.
#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "os.hpp"
#include "perf_events.hpp"

using namespace affix;

namespace {

int paranoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = 2;
  in >> level;
  return level;
}

// The first two CPUs the test may run on; false where it has one only.
bool two_cpus(int& a, int& b) {
  cpu_set_t mine;
  sched_getaffinity(0, sizeof mine, &mine);
  a = b = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE && b < 0; ++cpu)
    if (CPU_ISSET(cpu, &mine)) (a < 0 ? a : b) = cpu;
  return b >= 0;
}

void move_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  REQUIRE(sched_setaffinity(0, sizeof set, &set) == 0);
}

void spin_us(long us) {
  timespec t0, t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

// A thread that moves `moves` times between a and b (starting from a) once
// told to, then waits to be told to exit.
struct Mover {
  std::atomic<pid_t> tid{0};
  std::atomic<int> stage{0};  // 0 wait, 1 move, 2 moved, 3 exit
  std::thread thread;
  Mover(int a, int b, int moves, long spin) {
    thread = std::thread([=, this] {
      move_to(a);
      tid = static_cast<pid_t>(syscall(SYS_gettid));
      tid.notify_all();
      stage.wait(0);
      for (int i = 0; i < moves; ++i) {
        move_to(i % 2 == 0 ? b : a);
        spin_us(spin);
      }
      stage = 2;
      stage.notify_all();
      stage.wait(2);
    });
    tid.wait(0);
  }
  void go() {
    stage = 1;
    stage.notify_all();
  }
  void finish() {
    stage = 3;
    stage.notify_all();
    thread.join();
  }
};

// The events, or nullptr where this kernel and user may not have them (then
// the refusal itself is checked).
std::unique_ptr<MigrationEvents> events_or_refusal(unsigned pages) {
  std::string why;
  auto events = open_migration_events(linux_os(), pages, why);
  if (geteuid() != 0 && paranoid() >= 2) {
    CHECK(events == nullptr);
    CHECK_THAT(why, Catch::StartsWith("perf_event_open: Permission denied (kernel.perf_event_paranoid = "));
    return nullptr;
  }
  INFO(why);
  REQUIRE(events != nullptr);
  return events;
}

}  // namespace

TEST_CASE("real events: every move is one sample with the CPU moved to; another thread has none") {
  int a, b;
  if (!two_cpus(a, b)) {
    WARN("one CPU only: no move to count");
    return;
  }
  auto events = events_or_refusal(4);
  if (!events) return;
  const int moves = 50;
  Mover mover(a, b, moves, 100);
  Mover still(a, b, 0, 0);
  REQUIRE(events->open(mover.tid) == OpenResult::Opened);
  REQUIRE(events->open(still.tid) == OpenResult::Opened);
  mover.go();
  still.go();
  mover.stage.wait(1);
  still.stage.wait(1);
  Drained d = events->take(mover.tid);
  auto totals = events->totals(mover.tid);
  REQUIRE(totals);
  CHECK(totals->count == moves);
  CHECK(totals->run_ns > 0);
  CHECK_FALSE(totals->ended);
  CHECK_FALSE(d.overflowed);
  REQUIRE(d.samples.size() == moves);
  for (int i = 0; i < moves; ++i) {
    INFO("sample " << i);
    CHECK(d.samples[i].cpu == static_cast<unsigned>(i % 2 == 0 ? b : a));
    if (i > 0) CHECK(d.samples[i].time_ns > d.samples[i - 1].time_ns);
  }
  CHECK(events->take(still.tid).samples.empty());
  CHECK(events->totals(still.tid)->count == 0);
  CHECK(events->take(mover.tid).samples.empty());  // taken once
  // The thread exits: the event says so (the kernel wakes the ring with a
  // hang-up), and its totals stay readable.
  mover.finish();
  still.finish();
  for (int i = 0; i < 100 && !events->totals(mover.tid)->ended; ++i)
    events->wait_until(monotonic_ns() + 20000000);
  CHECK(events->totals(mover.tid)->ended);
  CHECK(events->totals(mover.tid)->count == moves);
  events->close(mover.tid);
  CHECK_FALSE(events->totals(mover.tid));
}

TEST_CASE("real events: a ring is drained at its watermark, so more moves than it holds are all seen") {
  int a, b;
  if (!two_cpus(a, b)) {
    WARN("one CPU only: no move to count");
    return;
  }
  auto events = events_or_refusal(1);  // one page: 128 samples
  if (!events) return;
  const int moves = 600;
  Mover mover(a, b, moves, 300);
  REQUIRE(events->open(mover.tid) == OpenResult::Opened);
  mover.go();
  while (mover.stage.load() == 1) events->wait_until(monotonic_ns() + 50000000);
  Drained d = events->take(mover.tid);
  CHECK(events->totals(mover.tid)->count == moves);
  CHECK(d.samples.size() > 128);  // more than one ring's worth: drained on the way
  if (!d.overflowed) CHECK(d.samples.size() == moves);
  mover.finish();
}

TEST_CASE("real events: a thread that does not exist is gone") {
  auto events = events_or_refusal(1);
  if (!events) return;
  CHECK(events->open(4194304) == OpenResult::Gone);
}

TEST_CASE("real events: on one CPU the probe still opens the event (no move to make) and decides") {
  cpu_set_t saved;
  REQUIRE(sched_getaffinity(0, sizeof saved, &saved) == 0);
  int a, b;
  two_cpus(a, b);
  move_to(a);  // the probe's thread is created with this thread's list: one CPU
  auto events = events_or_refusal(1);  // refused where the kernel refuses, whatever the CPUs
  sched_setaffinity(0, sizeof saved, &saved);
  if (!events) return;
  auto self = static_cast<pid_t>(syscall(SYS_gettid));
  CHECK(events->open(self) == OpenResult::Opened);
  events->close(self);
}
