// One thread under watch, on a fake /proc and fake migration events: exact
// counts by level, the sampled estimate, the cheap path for threads that
// did not run, a thread whose event is refused.
#include <catch2/catch.hpp>

#include "fake_migration_events.hpp"
#include "fake_os.hpp"
#include "watch_fake_proc.hpp"
#include "watch_tracker.hpp"

using namespace affix;
using namespace affix::test;

TEST_CASE("exact: each move at its level, a move back to the same CPU none, the other thread 0") {
  FakeProc f;
  two_threads(f);
  FakeMigrationEvents ev;
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  CHECK(w.start().empty());
  CHECK(ev.opened == std::vector<pid_t>{100, 101});
  ev.move(101, 2);   // core
  ev.move(101, 16);  // socket
  ev.move(101, 16);  // the same CPU: moved and back before it ran
  ev.move(101, 24);  // node
  f.thread(100, 101, 24, {4, 25, 3, 9000000});
  f.remove("proc/100/task/100/sched");  // thread 100 did not run: none of its files is read
  IntervalReport r = w.sample(1.0, 1.0);
  CHECK(r.exact);
  const ProcessReport& p = process_of(r, 100);
  const ThreadReport& hop = thread_of(p, 101);
  CHECK(hop.activity.migrations.total() == 3);
  CHECK(hop.activity.migrations[Crossing::Core] == 1);
  CHECK(hop.activity.migrations[Crossing::Socket] == 1);
  CHECK(hop.activity.migrations[Crossing::Node] == 1);
  CHECK(hop.activity.voluntary == 5);
  CHECK(hop.activity.involuntary == 1);
  CHECK(hop.cpu == 24);
  CHECK(hop.exact);
  const ThreadReport& idle = thread_of(p, 100);
  CHECK(idle.activity.idle());
  CHECK_FALSE(idle.exited);
  CHECK(p.threads == 2);
  CHECK(p.activity.migrations.total() == 3);
  CHECK(format_cpulist(p.cpus_ran) == "2,16,24");  // thread 100 did not run: its CPU is not one it ran on
}

TEST_CASE("exact: samples the ring dropped are counted, and the interval is not exact") {
  FakeProc f;
  two_threads(f);
  FakeMigrationEvents ev;
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  ev.move(101, 8);
  ev.threads[101].totals.count += 4;  // four more moves whose samples were lost
  ev.threads[101].overflowed = true;
  IntervalReport r = w.sample(1.0, 1.0);
  CHECK_FALSE(r.exact);
  const ThreadReport& hop = thread_of(process_of(r, 100), 101);
  CHECK(hop.activity.migrations.total() == 5);
  CHECK(hop.activity.migrations[Crossing::Node] == 5);  // the one seen: 0 -> 8
  CHECK_FALSE(hop.exact);
  r = w.sample(2.0, 1.0);  // the next interval is exact again
  CHECK(r.exact);
  CHECK(process_of(r, 100).activity.migrations.total() == 0);
}

TEST_CASE("sampled: the scheduler's count, at the level between the CPUs seen") {
  FakeProc f;
  two_threads(f);
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {100}, false);
  w.start();
  f.thread(100, 101, 8, {5, 22, 2, 8000000});
  f.remove("proc/100/task/100/sched");  // schedstat unchanged: sched is not read
  IntervalReport r = w.sample(1.0, 1.0);
  CHECK_FALSE(r.exact);
  const ProcessReport& p = process_of(r, 100);
  const ThreadReport& hop = thread_of(p, 101);
  CHECK(hop.activity.migrations[Crossing::Node] == 5);
  CHECK(hop.activity.migrations.total() == 5);
  CHECK(hop.activity.voluntary == 2);
  CHECK(hop.activity.cpu_ns == 1000000);
  CHECK(thread_of(p, 100).activity.idle());
  // Back on the CPU it was seen on: the widest boundary among the CPUs it
  // was seen on (0 and 8).
  f.thread(100, 101, 8, {9, 23, 2, 9000000});
  r = w.sample(2.0, 1.0);
  CHECK(thread_of(process_of(r, 100), 101).activity.migrations[Crossing::Node] == 4);
}

TEST_CASE("a refused thread is sampled and its process not exact") {
  FakeProc f;
  two_threads(f);
  FakeMigrationEvents ev;
  ev.refuse = {101};
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  CHECK(w.threads_exact() == 1);
  f.thread(100, 101, 1, {1, 20, 2, 7500000});
  IntervalReport r = w.sample(1.0, 1.0);
  CHECK_FALSE(r.exact);
  const ProcessReport& p = process_of(r, 100);
  CHECK(thread_of(p, 101).activity.migrations[Crossing::Smt] == 1);
  CHECK_FALSE(thread_of(p, 101).exact);
  CHECK(thread_of(p, 100).exact);
}

TEST_CASE("sampled estimate: one move across what was seen, the others at the closest pair seen") {
  LevelMap levels(machine());
  CpuSet roamed;  // a thread seen on both threads of core 0 and on socket 1
  roamed.set(0);
  roamed.set(1);
  roamed.set(16);
  Migrations m = estimate_moves(levels, 10, 0, 16, roamed, {});
  CHECK(m[Crossing::Socket] == 1);
  CHECK(m[Crossing::Smt] == 9);
  CHECK(m.total() == 10);
  // Back and forth between two CPUs: all at the level between them.
  CpuSet two;
  two.set(0);
  two.set(8);
  m = estimate_moves(levels, 7, 8, 8, two, {});
  CHECK(m[Crossing::Node] == 7);
  m = estimate_moves(levels, 7, 0, 8, CpuSet{}, {});
  CHECK(m[Crossing::Node] == 7);
  // Nothing seen but one CPU: its process's CPUs, else core.
  CpuSet one;
  one.set(5);
  CpuSet process;
  process.set(4);
  process.set(5);
  CHECK(estimate_moves(levels, 3, 5, 5, one, process)[Crossing::Smt] == 3);
  CHECK(estimate_moves(levels, 3, 5, 5, one, {})[Crossing::Core] == 3);
  CHECK(estimate_moves(levels, 0, 0, 16, roamed, {}).total() == 0);
}

TEST_CASE("a thread there but unreadable is counted unread, never as gone, and reported once readable") {
  FakeProc f;
  two_threads(f);
  f.remove("proc/100/task/101/sched");  // its directory stays: as where no file is left to open
  FakeMigrationEvents ev;
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  CHECK(w.start().empty());
  CHECK(ev.closed == std::vector<pid_t>{101});  // its event is not kept without a place to start from
  IntervalReport r = w.sample(1.0, 1.0);
  CHECK_FALSE(r.exact);
  const ProcessReport& p = process_of(r, 100);
  CHECK(p.threads == 1);
  CHECK(p.threads_unread == 1);
  CHECK(p.thread_list.size() == 1);
  CHECK_FALSE(p.exact);
  CHECK_FALSE(p.exited);
  f.thread(100, 101, 0, {0, 20, 2, 7000000});
  r = w.sample(2.0, 1.0);  // read again: from here on, this interval not exact (what it did before is unknown)
  CHECK(process_of(r, 100).threads == 2);
  CHECK(process_of(r, 100).threads_unread == 0);
  CHECK_FALSE(thread_of(process_of(r, 100), 101).exact);
  CHECK_FALSE(r.exact);
  ev.move(101, 1);
  r = w.sample(3.0, 1.0);
  CHECK(r.exact);
  CHECK(thread_of(process_of(r, 100), 101).activity.migrations[Crossing::Smt] == 1);
  WatchSummary s = w.summary(3.0);
  REQUIRE(s.processes.size() == 1);
  CHECK(s.processes[0].threads == 2);
  CHECK(s.processes[0].threads_unread == 1);
  CHECK_FALSE(s.exact);
}

TEST_CASE("sampled: a thread that ran but whose files cannot be read is unread, and counted at the next read") {
  FakeProc f;
  two_threads(f);
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {100}, false);
  w.start();
  f.thread(100, 101, 8, {5, 22, 2, 8000000});
  f.remove("proc/100/task/101/sched");
  IntervalReport r = w.sample(1.0, 1.0);
  CHECK(process_of(r, 100).threads_unread == 1);
  CHECK(process_of(r, 100).threads == 1);
  CHECK(w.threads_watched() == 2);  // not taken for an exit
  f.thread(100, 101, 8, {5, 22, 2, 8000000});
  r = w.sample(2.0, 1.0);
  const ThreadReport& t = thread_of(process_of(r, 100), 101);
  CHECK(t.activity.migrations[Crossing::Node] == 5);  // what it did while unread
  CHECK(t.activity.voluntary == 2);
  CHECK_FALSE(t.exited);
}

TEST_CASE("a thread that is gone while unread is counted unread in that interval, then no more") {
  FakeProc f;
  two_threads(f);
  f.remove("proc/100/task/101/sched");
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {100}, false);
  w.start();
  w.sample(1.0, 1.0);
  f.process(100, "server", 1);
  f.remove("proc/100/task/101");
  IntervalReport r = w.sample(2.0, 1.0);
  CHECK(process_of(r, 100).threads_unread == 1);
  CHECK(w.threads_watched() == 1);
  r = w.sample(3.0, 1.0);
  CHECK(process_of(r, 100).threads_unread == 0);
}
