// The processes watch follows, on a fake /proc and fake migration events:
// threads and processes that come and go, the whole machine, pages and
// remote pages.
#include <catch2/catch.hpp>

#include <unistd.h>

#include "fake_migration_events.hpp"
#include "fake_os.hpp"
#include "watch_fake_proc.hpp"
#include "watch_tracker.hpp"

using namespace affix;
using namespace affix::test;

TEST_CASE("a thread created during the watch is picked up with what it did since it was created") {
  FakeProc f;
  two_threads(f);
  FakeMigrationEvents ev;
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  IntervalReport r = w.sample(1.0, 1.0);
  f.process(100, "server", 3);
  f.thread(100, 102, 4, {3, 1, 0, 2000000}, "late");
  r = w.sample(2.0, 1.0);
  CHECK(ev.opened == std::vector<pid_t>{100, 101, 102});
  const ProcessReport& p = process_of(r, 100);
  CHECK(p.threads == 3);
  const ThreadReport& late = thread_of(p, 102);
  CHECK(late.comm == "late");
  CHECK(late.activity.migrations.total() == 3);  // before its event: se.nr_migrations
  CHECK(late.activity.voluntary == 1);
  CHECK(late.activity.cpu_ns == 2000000);
  CHECK_FALSE(late.exact);
  CHECK_FALSE(r.exact);
  ev.move(102, 5);  // from then on: exact
  r = w.sample(3.0, 1.0);
  CHECK(r.exact);
  CHECK(thread_of(process_of(r, 100), 102).activity.migrations[Crossing::Smt] == 1);
}

TEST_CASE("a thread created during the watch that ran once, for 0 ns, ran where it is") {
  // Its run time reads 0 (a thread that ran once, briefly, can show that
  // for ever); its one switch says it ran, on CPU 6.
  FakeProc f;
  two_threads(f);
  FakeMigrationEvents ev;
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  IntervalReport r = w.sample(1.0, 1.0);
  f.process(100, "server", 4);
  f.thread(100, 102, 6, {0, 1, 0, 0}, "brief");
  f.thread(100, 103, 7, {0, 0, 0, 0}, "unborn");
  r = w.sample(2.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  CHECK(p.cpus_ran.test(6));
  CHECK_FALSE(p.cpus_ran.test(7));  // never given a CPU
}

TEST_CASE("a thread that exits is reported up to its exit, then no more") {
  FakeProc f;
  two_threads(f);
  FakeMigrationEvents ev;
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  ev.move(101, 16);
  ev.threads[101].totals.ended = true;
  f.process(100, "server", 1);
  f.remove("proc/100/task/101");
  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  CHECK(thread_of(p, 101).exited);
  CHECK(thread_of(p, 101).activity.migrations[Crossing::Socket] == 1);
  CHECK(ev.closed == std::vector<pid_t>{101});
  CHECK_FALSE(p.exited);
  r = w.sample(2.0, 1.0);
  CHECK(process_of(r, 100).thread_list.size() == 1);
  WatchSummary s = w.summary(2.0);
  REQUIRE(s.processes.size() == 1);
  CHECK(s.processes[0].threads == 2);
  CHECK(s.processes[0].activity.migrations[Crossing::Socket] == 1);
}

TEST_CASE("sampled: a thread gone from the list is an exit") {
  FakeProc f;
  two_threads(f);
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {100}, false);
  w.start();
  f.process(100, "server", 1);
  f.remove("proc/100/task/101");
  IntervalReport r = w.sample(1.0, 1.0);
  CHECK(thread_of(process_of(r, 100), 101).exited);
  CHECK(w.threads_watched() == 1);
}

TEST_CASE("a process that exits, or whose PID is reused, is reported as exited once") {
  FakeProc f;
  two_threads(f);
  f.process(200, "other", 1);
  f.thread(200, 200, 3, {});
  FakeMigrationEvents ev;
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100, 200}, false);
  w.start();
  f.remove("proc/100");
  f.process(200, "reused", 1, 999);  // another process under the same PID
  IntervalReport r = w.sample(1.0, 1.0);
  CHECK(process_of(r, 100).exited);
  CHECK(process_of(r, 200).exited);
  CHECK(process_of(r, 200).comm == "other");
  r = w.sample(2.0, 1.0);
  CHECK(r.processes.empty());
  WatchSummary s = w.summary(2.0);
  REQUIRE(s.processes.size() == 2);
  CHECK(s.processes[0].exited);
  CHECK(s.processes[0].seconds == 1.0);
}

TEST_CASE("named PIDs that do not exist are returned by start") {
  FakeProc f;
  two_threads(f);
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {100, 4242}, false);
  CHECK(w.start() == std::vector<pid_t>{4242});
}

TEST_CASE("pages per node, and those on nodes where no thread ran are remote") {
  FakeProc f;
  two_threads(f);
  f.root.write("proc/100/numa_maps", "7f00 default anon=107 N0=100 N3=7\n");
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {100}, false);
  w.start();
  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  REQUIRE(p.pages);
  CHECK(*p.pages == NodePages{{0, 100}, {3, 7}});
  CHECK(p.remote_pages == 7u);
  f.thread(100, 101, 24, {1, 20, 2, 8000000});  // now a thread ran on node 3 too
  r = w.sample(2.0, 1.0);
  CHECK(process_of(r, 100).remote_pages == 0u);
}

TEST_CASE("the whole machine: processes that did something, new ones from their creation") {
  FakeProc f;
  two_threads(f);
  f.process(300, "sleeper", 1);
  f.thread(300, 300, 5, {});
  FakeMigrationEvents ev;
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {}, false);
  w.start();
  ev.move(101, 1);
  f.process(400, "new", 1);
  f.thread(400, 400, 6, {0, 1, 0, 1000});
  IntervalReport r = w.sample(1.0, 1.0);
  REQUIRE(r.processes.size() == 2);
  CHECK(r.processes[0].pid == 100);
  CHECK(r.processes[0].thread_list.empty());  // no thread list for the machine without --threads
  CHECK(r.processes[0].activity.migrations[Crossing::Smt] == 1);
  CHECK(r.processes[1].pid == 400);
  CHECK(r.processes[1].activity.voluntary == 1);
  CHECK(w.summary(1.0).processes.size() == 2);  // the sleeper never did anything
}

TEST_CASE("the CPUs a process ran on are those its threads ran on, not where an idle one last was") {
  FakeProc f;
  f.process(100, "server", 2);
  f.thread(100, 100, 8, {}, "server");  // idle on node 1 (moved by a pin, say, while it slept)
  f.thread(100, 101, 0, {});
  f.root.write("proc/100/numa_maps", "7f00 default N0=10 N1=90\n");
  FakeMigrationEvents ev;
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  ev.threads[101].totals.run_ns = 5000000;  // it ran, on CPU 0, without moving
  f.thread(100, 101, 0, {0, 3, 0, 5000000});
  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  CHECK(format_cpulist(p.cpus_ran) == "0");
  CHECK(p.remote_pages == 90u);
  CHECK(thread_of(p, 101).activity.cpu_ns == 5000000);
  CHECK(thread_of(p, 101).activity.voluntary == 3);
  r = w.sample(2.0, 1.0);  // nothing ran: where its threads last ran
  CHECK(format_cpulist(process_of(r, 100).cpus_ran) == "0,8");
  CHECK(process_of(r, 100).remote_pages == 0u);
}

TEST_CASE("a thread whose last CPU is outside its list is counted on no CPU until it runs") {
  FakeProc f;
  f.process(100, "server", 2);
  f.thread(100, 100, 8, {}, "server");  // asleep on CPU 8 (node 1), then pinned to 0-3
  f.thread(100, 101, 0, {});
  f.root.write("proc/100/task/100/status", "Name:\tserver\nCpus_allowed_list:\t0-3\n");
  f.root.write("proc/100/task/101/status", "Name:\tworker\nCpus_allowed_list:\t0-31\n");
  f.root.write("proc/100/numa_maps", "7f00 default anon=100 N0=10 N1=90\n");
  FakeMigrationEvents ev;
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  IntervalReport r = w.sample(1.0, 1.0);  // nothing ran
  const ProcessReport& p = process_of(r, 100);
  CHECK(format_cpulist(p.cpus_ran) == "0");
  CHECK(thread_of(p, 100).cpu == -1);
  CHECK(thread_of(p, 101).cpu == 0);
  CHECK(p.remote_pages == 90u);  // node 1 holds them, and no thread is there
  // It runs, on CPU 2: counted there from then on.
  ev.move(100, 2);
  f.thread(100, 100, 2, {1, 1, 0, 1000}, "server");
  r = w.sample(2.0, 1.0);
  CHECK(thread_of(process_of(r, 100), 100).cpu == 2);
  r = w.sample(3.0, 1.0);  // asleep again, on CPU 2, in its list
  CHECK(format_cpulist(process_of(r, 100).cpus_ran) == "0,2");
  CHECK(thread_of(process_of(r, 100), 100).cpu == 2);
  WatchSummary s = w.summary(3.0);
  CHECK(s.processes[0].thread_list[0].cpu == 2);
}

TEST_CASE("remote pages are anonymous pages: a file's page cache is not the process's placement") {
  FakeProc f;
  two_threads(f);
  f.root.write("proc/100/numa_maps",
               "55d0 default file=/srv/server mapped=600 N1=600\n"
               "7f00 default anon=107 N0=100 N3=7\n");
  FakeAffinity lists;  // never asked: the root is not this machine's
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {100}, false);
  w.start();
  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  REQUIRE(p.pages);
  CHECK(*p.pages == NodePages{{0, 100}, {1, 600}, {3, 7}});
  CHECK(*p.anon_pages == NodePages{{0, 100}, {3, 7}});
  CHECK(*p.file_pages == NodePages{{1, 600}});
  CHECK(p.remote_pages == 7u);
  WatchSummary s = w.summary(1.0);
  CHECK(*s.processes[0].file_pages == NodePages{{1, 600}});
}

// Process 100 (two_threads), 50 ticks of CPU so far, watched in exact mode.
struct ExactWatch {
  const uint64_t tick = 1000000000ull / static_cast<uint64_t>(sysconf(_SC_CLK_TCK));
  FakeProc f;
  FakeMigrationEvents ev;
  FakeAffinity lists;
  std::unique_ptr<WatchTracker> w;
  ExactWatch() {
    two_threads(f);
    f.process(100, "server", 2, 100, 50);
    w = std::make_unique<WatchTracker>(SysRoot(f.root.path()), machine(), lists, &ev, std::vector<pid_t>{100}, false);
    w->start();
  }
};

TEST_CASE("threads that came and went: the process's total beyond its threads' is counted, not exact") {
  // proc/100/stat's utime holds ended threads' time: what it grew by beyond
  // what the threads seen used went to threads no sample saw.
  ExactWatch x;
  FakeProc& f = x.f;
  FakeMigrationEvents& ev = x.ev;
  WatchTracker& w = *x.w;
  const uint64_t tick = x.tick;
  // The thread seen: 2 ticks, by the scheduler's count (its sched file) and
  // its event's.
  uint64_t run = 7000000;
  auto ran = [&](uint64_t ns) {
    ev.threads[101].totals.run_ns += ns;
    run += ns;
    f.thread(100, 101, 0, {0, 20, 2, run});
  };
  ran(2 * tick);
  f.process(100, "server", 2, 100, 50 + 12);  // the process: 12
  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  CHECK(p.came_and_went_ns == 10 * tick);
  CHECK(p.activity.cpu_ns == 12 * tick);
  CHECK_FALSE(p.exact);
  CHECK_FALSE(r.exact);
  // As much as the threads seen used: nothing came and went.
  ran(3 * tick);
  f.process(100, "server", 2, 100, 62 + 3);
  r = w.sample(2.0, 1.0);
  CHECK(process_of(r, 100).came_and_went_ns == 0);
  CHECK(r.exact);
  // 2 ticks beyond them: as much as rounding can make, carried over...
  f.process(100, "server", 2, 100, 65 + 2);
  r = w.sample(3.0, 1.0);
  CHECK(process_of(r, 100).came_and_went_ns == 0);
  CHECK(process_of(r, 100).activity.cpu_ns == 0);
  CHECK(r.exact);
  // ...and reported, all of it, once the next tick makes it more.
  f.process(100, "server", 2, 100, 67 + 1);
  r = w.sample(4.0, 1.0);
  CHECK(process_of(r, 100).came_and_went_ns == 3 * tick);
  CHECK_FALSE(r.exact);
  WatchSummary s = w.summary(4.0);
  CHECK(s.processes[0].came_and_went_ns == 13 * tick);
  CHECK(s.processes[0].activity.cpu_ns == 18 * tick);
  CHECK_FALSE(s.exact);
}

TEST_CASE("exact mode: a thread's CPU time is the scheduler's, not its event's running time") {
  // A busy VM: the event's enabled-and-running time left out the context
  // switches around it, 16% of the scheduler's count. The process's total
  // is the scheduler's count: compared with the event's, it read as
  // threads that came and went, and the watch as not exact.
  ExactWatch x;
  FakeProc& f = x.f;
  FakeMigrationEvents& ev = x.ev;
  WatchTracker& w = *x.w;
  const uint64_t tick = x.tick;
  ev.threads[101].totals.run_ns += 84 * tick / 10;     // the event: 8.4 ticks
  f.thread(100, 101, 0, {0, 21, 2, 7000000 + 10 * tick});  // the scheduler: 10
  f.process(100, "server", 2, 100, 50 + 10);            // the process: 10
  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  CHECK(thread_of(p, 101).activity.cpu_ns == 10 * tick);
  CHECK(p.came_and_went_ns == 0);
  CHECK(p.activity.cpu_ns == 10 * tick);
  CHECK(p.exact);
  CHECK(r.exact);
  // Its files unreadable for an interval: that interval is the event's,
  // and the next starts from where the scheduler's count then is.
  f.remove("proc/100/task/101/sched");
  ev.threads[101].totals.run_ns += 3 * tick;
  r = w.sample(2.0, 1.0);
  CHECK(thread_of(process_of(r, 100), 101).activity.cpu_ns == 3 * tick);
  ev.threads[101].totals.run_ns += 2 * tick;
  f.thread(100, 101, 0, {0, 22, 2, 7000000 + 16 * tick});  // 6 more since the first read
  r = w.sample(3.0, 1.0);
  CHECK(thread_of(process_of(r, 100), 101).activity.cpu_ns == 2 * tick);
  ev.threads[101].totals.run_ns += 1 * tick;
  f.thread(100, 101, 0, {0, 23, 2, 7000000 + 18 * tick});
  r = w.sample(4.0, 1.0);
  CHECK(thread_of(process_of(r, 100), 101).activity.cpu_ns == 2 * tick);
}

TEST_CASE("a main thread that is a zombie while others run: not watched, the memory read from a live thread") {
  FakeProc f;
  two_threads(f);
  f.root.write("proc/100/stat", stat_line(100, "server", 2, 0, 100, 0, 'Z'));
  f.root.write("proc/100/task/100/stat", stat_line(100, "server", 2, 0, 100, 0, 'Z'));
  f.root.write("proc/100/numa_maps", "");
  f.root.write("proc/100/task/101/numa_maps", "7f00 default anon=40 N0=30 N1=10\n");
  FakeMigrationEvents ev;
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  CHECK(w.start().empty());
  CHECK(w.zombies().empty());
  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  CHECK(p.threads == 1);
  CHECK(p.thread_list.size() == 1);
  CHECK(p.thread_list.at(0).tid == 101);
  REQUIRE(p.anon_pages);
  CHECK(*p.anon_pages == NodePages{{0, 30}, {1, 10}});
  CHECK(ev.closed == std::vector<pid_t>{100});  // opened, then seen a zombie
}

TEST_CASE("a named zombie is no process to watch, nor missing: zombies() names it and its parent") {
  FakeProc f;
  f.process(100, "gone", 1);
  f.root.write("proc/100/stat", "100 (gone) Z 42 100 100 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n");
  f.root.write("proc/100/task/100/stat", "100 (gone) Z 42 100 100 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n");
  f.root.write("proc/100/task/100/schedstat", "0 0 0\n");
  f.root.write("proc/100/task/100/sched", "gone (100, #threads: 1)\n---\nse.sum_exec_runtime : 0.000000\nse.nr_migrations : 0\nnr_switches : 0\nnr_voluntary_switches : 0\nnr_involuntary_switches : 0\n");
  FakeMigrationEvents ev;
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  CHECK(w.start().empty());
  REQUIRE(w.zombies().size() == 1);
  CHECK(w.zombies()[0].pid == 100);
  CHECK(w.zombies()[0].parent == 42);
}
