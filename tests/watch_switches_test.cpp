// Each thread's run time, CPUs and moves from the scheduler's context
// switches (tally_switches), on records made up here; and the real
// CPU-wide switch events (perf_events.cpp) on this kernel where they open.
#include <catch2/catch.hpp>

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>

#include "fake_os.hpp"
#include "os.hpp"
#include "topo_builder.hpp"
#include "watch_fake_proc.hpp"
#include "watch_tracker.hpp"
#include "watch_switches.hpp"

using namespace affix;

namespace {

// The fake /proc's machine (watch_fake_proc.hpp): CPUs 0-1 core 0, 0-3
// llc 0, 0-7 node 0, 0-15 socket 0.
LevelMap levels() { return LevelMap(affix::test::machine()); }

SwitchRecord in(uint64_t t, unsigned cpu, pid_t pid, pid_t tid) { return SwitchRecord{t, cpu, false, pid, tid}; }
SwitchRecord out(uint64_t t, unsigned cpu, pid_t pid, pid_t tid) { return SwitchRecord{t, cpu, true, pid, tid}; }

}  // namespace

TEST_CASE("switches: run time from switch-in to switch-out, clamped to the interval", "[switches]") {
  // Interval 1000..2000. CPU 0: thread 11 runs from before the interval to
  // 1300 (its first record a switch-out), the idle task, then 12 from 1500
  // to the end (never out). CPU 1: 13 in at 1100, out at 1400.
  std::vector<SwitchRecord> r = {out(1300, 0, 10, 11), in(1300, 0, 0, 0),    out(1500, 0, 0, 0),
                                 in(1500, 0, 10, 12),  in(1100, 1, 20, 13), out(1400, 1, 20, 13)};
  auto t = tally_switches(r, 1000, 2000, levels());
  REQUIRE(t.size() == 3);
  CHECK(t.at(11).cpu_ns == 300);
  CHECK(t.at(11).pid == 10);
  CHECK(t.at(11).cpu == 0);
  CHECK(t.at(12).cpu_ns == 500);
  CHECK(t.at(13).cpu_ns == 300);
  CHECK(t.at(13).cpu == 1);
  CHECK(t.at(13).ran_on == CpuSet::range(1, 1));
  CHECK(t.at(11).migrations.total() == 0);
  CHECK(t.count(0) == 0);  // the idle task is no thread
}

TEST_CASE("switches: a record before the interval counts from its start", "[switches]") {
  std::vector<SwitchRecord> r = {in(500, 2, 30, 31), out(1200, 2, 30, 31)};
  auto t = tally_switches(r, 1000, 2000, levels());
  CHECK(t.at(31).cpu_ns == 200);
}

TEST_CASE("switches: a move is a switch-in on another CPU, at its level; the first run's origin is not seen",
          "[switches]") {
  // Thread 41 runs on CPU 0, then 1 (smt), then 1 again (no move), then
  // 16 (socket), then 24 (node): 3 moves. Records of two CPUs come one CPU
  // after the other: they are merged by time.
  std::vector<SwitchRecord> cpu0 = {in(1000, 0, 40, 41), out(1100, 0, 40, 41)};
  std::vector<SwitchRecord> cpu1 = {in(1200, 1, 40, 41), out(1300, 1, 40, 41), in(1400, 1, 40, 41),
                                    out(1450, 1, 40, 41)};
  std::vector<SwitchRecord> cpu16 = {in(1500, 16, 40, 41), out(1600, 16, 40, 41)};
  std::vector<SwitchRecord> cpu24 = {in(1700, 24, 40, 41), out(1800, 24, 40, 41)};
  std::vector<SwitchRecord> all;
  for (auto* v : {&cpu24, &cpu16, &cpu1, &cpu0}) all.insert(all.end(), v->begin(), v->end());
  auto t = tally_switches(all, 900, 2000, levels());
  const SwitchThread& s = t.at(41);
  CHECK(s.migrations.total() == 3);
  CHECK(s.migrations[Crossing::Smt] == 1);
  CHECK(s.migrations[Crossing::Socket] == 1);
  CHECK(s.migrations[Crossing::Node] == 1);
  CHECK(s.cpu == 24);
  CHECK(s.cpu_ns == 100 + 100 + 50 + 100 + 100);
  CHECK(s.ran_on.members() == std::vector<unsigned>{0, 1, 16, 24});
}

TEST_CASE("switches: a CPU with no record shows nothing; one running all along is seen at its switch-out",
          "[switches]") {
  std::vector<SwitchRecord> r = {out(1990, 3, 50, 51)};
  auto t = tally_switches(r, 1000, 2000, levels());
  CHECK(t.at(51).cpu_ns == 990);
  CHECK(tally_switches({}, 1000, 2000, levels()).empty());
}

TEST_CASE("the real switch events: a thread of the test that spins, then sleeps, is seen with its time",
          "[switches][kernel]") {
  CpuSet mine;
  REQUIRE(linux_os().get_affinity(0, mine) == 0);
  std::string why;
  auto events = open_switch_events(mine.members(), 16, why);
  if (!events) {
    // The kernel's refusal, said with its reason.
    CHECK(why.rfind("perf_event_open: ", 0) == 0);
    CHECK(why.find("perf_event_paranoid") != std::string::npos);
    return;
  }
  CHECK(why.empty());
  uint64_t from = monotonic_ns();
  std::atomic<pid_t> tid{0};
  std::atomic<uint64_t> used{0};  // the thread's own CPU clock when it stops spinning
  std::thread spinner([&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    timespec ts{};
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    while (ts.tv_sec * 1000000000L + ts.tv_nsec < 30000000L);  // 30 ms of its own CPU time
    used = static_cast<uint64_t>(ts.tv_sec * 1000000000L + ts.tv_nsec);
    usleep(20000);  // then it sleeps: it switches out
  });
  spinner.join();
  uint64_t to = monotonic_ns();
  std::vector<SwitchRecord> records;
  CHECK(events->take(records));
  auto t = tally_switches(records, from, to, LevelMap(Topology{}));
  REQUIRE(t.count(tid));
  CHECK(t.at(tid).pid == getpid());
  // Its run time as the switches give it is the kernel's clock of it (it
  // began after `from`), but for what it ran after it read that clock and
  // before it slept or exited: a few system calls.
  CHECK(t.at(tid).cpu_ns >= used - 1000000);
  CHECK(t.at(tid).cpu_ns <= used + 5000000);
  CHECK(mine.test(static_cast<unsigned>(t.at(tid).cpu)));
}

TEST_CASE("sample_switches: only the threads that ran are read; an exited thread's time is its process's",
          "[switches]") {
  using namespace affix::test;
  FakeProc f;
  two_threads(f);                                  // process 100: threads 100 and 101
  f.thread(100, 102, 0, {}, "gone");               // 102 ran, then exited: its files are gone
  f.remove("proc/100/task/102");
  f.process(200, "idle", 1);                       // 200 did not run: not reported, not read
  f.thread(200, 200, 0, {}, "idle");
  std::map<pid_t, SwitchThread> ran;
  ran[101] = SwitchThread{100, 400000000, 3, CpuSet::range(2, 3), {}};
  ran[101].migrations[Crossing::Core] = 2;
  ran[102] = SwitchThread{100, 100000000, 16, CpuSet::range(16, 16), {}};
  ran[301] = SwitchThread{300, 5, 0, CpuSet::range(0, 0), {}};  // a process that has exited since
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {}, true);
  IntervalReport r = w.sample_switches(ran, 1.0, 1.0);
  REQUIRE(r.processes.size() == 1);
  const ProcessReport& p = process_of(r, 100);
  CHECK(p.comm == "server");
  CHECK(p.threads == 2);  // the kernel's count (102 has gone)
  CHECK(p.activity.cpu_ns == 500000000);
  CHECK(p.came_and_went_ns == 100000000);
  CHECK(p.activity.migrations[Crossing::Core] == 2);
  CHECK(p.cpus_ran.members() == std::vector<unsigned>{2, 3, 16});
  REQUIRE(p.thread_list.size() == 1);  // 100 did not run, 102 is gone
  const ThreadReport& t = thread_of(p, 101);
  CHECK(t.comm == "worker");
  CHECK(t.cpu == 3);
  CHECK(t.activity.cpu_ns == 400000000);
  CHECK(t.exact);
}

TEST_CASE("sample_switches: named processes only, and shown though idle", "[switches]") {
  using namespace affix::test;
  FakeProc f;
  two_threads(f);
  f.process(200, "idle", 1);
  f.thread(200, 200, 0, {}, "idle");
  std::map<pid_t, SwitchThread> ran;
  ran[101] = SwitchThread{100, 1000, 0, CpuSet::range(0, 0), {}};
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {200}, false);
  IntervalReport r = w.sample_switches(ran, 1.0, 1.0);
  REQUIRE(r.processes.size() == 1);
  CHECK(r.processes[0].pid == 200);
  CHECK(r.processes[0].comm == "idle");
  CHECK(r.processes[0].activity.idle());
  CHECK(r.processes[0].cpus_ran.empty());
}
