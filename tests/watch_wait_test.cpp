// The run-queue wait under watch (schedstat's second field), on a fake
// /proc and fake migration events: exact figures per thread and process,
// from the one schedstat read there already is; null where schedstat
// keeps no wait or cannot be read, a lower bound (wait_partial) where a
// thread of the process could not be read.
#include <catch2/catch.hpp>

#include "fake_migration_events.hpp"
#include "fake_os.hpp"
#include "watch_fake_proc.hpp"
#include "watch_tracker.hpp"

using namespace affix;
using namespace affix::test;

namespace {

// Process 100: threads 100 (CPU 0) and 101 (CPU 0), each with a wait so far.
void two_waiting_threads(FakeProc& f) {
  f.process(100, "server", 2);
  f.thread(100, 100, 0, {0, 10, 1, 5000000, 1000000}, "server");
  f.thread(100, 101, 0, {0, 20, 2, 7000000, 2000000});
}

uint64_t wait_of(const Activity& a) {
  REQUIRE(a.wait());
  return *a.wait();
}

}  // namespace

TEST_CASE("wait, sampled: each thread's since the last sample, its process's the sum, the summary the total") {
  FakeProc f;
  two_waiting_threads(f);
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {100}, false);
  w.start();
  f.thread(100, 101, 0, {0, 21, 2, 10000000, 42000000});  // ran 3 ms, waited 40 ms
  // Thread 100 did not run, but a wait of 5 ms ended (moved to another
  // CPU's queue while it waited): counted from schedstat alone.
  f.root.write("proc/100/task/100/schedstat", "5000000 6000000 11\n");
  f.remove("proc/100/task/100/sched");
  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  CHECK(wait_of(thread_of(p, 101).activity) == 40000000);
  CHECK(thread_of(p, 101).activity.cpu_ns == 3000000);
  CHECK(wait_of(thread_of(p, 100).activity) == 5000000);
  CHECK(thread_of(p, 100).activity.cpu_ns == 0);
  CHECK(wait_of(p.activity) == 45000000);
  CHECK_FALSE(p.activity.wait_partial());
  r = w.sample(2.0, 1.0);  // nothing changed: a wait of 0, read
  CHECK(wait_of(process_of(r, 100).activity) == 0);
  CHECK(wait_of(thread_of(process_of(r, 100), 101).activity) == 0);
  WatchSummary s = w.summary(2.0);
  REQUIRE(s.processes.size() == 1);
  CHECK(wait_of(s.processes[0].activity) == 45000000);
  CHECK_FALSE(s.processes[0].activity.wait_partial());
  CHECK(wait_of(s.processes[0].thread_list[1].activity) == 40000000);
}

TEST_CASE("wait, exact: read with the thread's other files where it ran; one that did not run waited 0, unread") {
  FakeProc f;
  two_waiting_threads(f);
  FakeMigrationEvents ev;
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  ev.move(101, 2);
  f.thread(100, 101, 2, {1, 21, 2, 7001000, 9000000});
  f.remove("proc/100/task/100/sched");  // thread 100 did not run: none of its files is read
  f.remove("proc/100/task/100/schedstat");
  IntervalReport r = w.sample(1.0, 1.0);
  CHECK(r.exact);
  const ProcessReport& p = process_of(r, 100);
  CHECK(wait_of(thread_of(p, 101).activity) == 7000000);
  CHECK(wait_of(thread_of(p, 100).activity) == 0);
  CHECK(wait_of(p.activity) == 7000000);
  CHECK_FALSE(p.activity.wait_partial());
}

TEST_CASE("wait, exact: a schedstat that cannot be read leaves the thread's wait null, counted at the next read") {
  FakeProc f;
  two_waiting_threads(f);
  FakeMigrationEvents ev;
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  ev.move(101, 2);
  f.thread(100, 101, 2, {1, 21, 2, 7001000, 9000000});
  f.remove("proc/100/task/101/schedstat");
  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  CHECK_FALSE(thread_of(p, 101).activity.wait());  // never 0 shown as read
  CHECK(thread_of(p, 101).activity.voluntary == 1);  // the rest of it was read
  CHECK(p.threads_unread == 0);
  CHECK(wait_of(p.activity) == 0);  // thread 100's: a lower bound
  CHECK(p.activity.wait_partial());
  ev.move(101, 3);
  f.thread(100, 101, 3, {2, 22, 2, 7002000, 12000000});
  r = w.sample(2.0, 1.0);
  CHECK(wait_of(thread_of(process_of(r, 100), 101).activity) == 10000000);  // since the last reading
  CHECK_FALSE(process_of(r, 100).activity.wait_partial());
  WatchSummary s = w.summary(2.0);
  CHECK(wait_of(s.processes[0].activity) == 10000000);
  CHECK(s.processes[0].activity.wait_partial());  // one interval missed some
}

TEST_CASE("wait: null where the kernel keeps none, never 0") {
  SECTION("exact, no schedstat at all (a kernel without sched_info): the threads are read, their wait null") {
    FakeProc f;
    two_waiting_threads(f);
    f.remove("proc/100/task/100/schedstat");
    f.remove("proc/100/task/101/schedstat");
    FakeMigrationEvents ev;
    FakeAffinity lists;
    WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
    w.start();
    ev.move(101, 2);
    f.thread(100, 101, 2, {1, 21, 2, 7001000, 9000000});
    f.remove("proc/100/task/101/schedstat");
    IntervalReport r = w.sample(1.0, 1.0);
    CHECK(r.exact);
    const ProcessReport& p = process_of(r, 100);
    CHECK(p.threads == 2);
    CHECK(p.threads_unread == 0);
    CHECK(thread_of(p, 101).activity.migrations[Crossing::Core] == 1);
    CHECK_FALSE(thread_of(p, 101).activity.wait());
    CHECK_FALSE(thread_of(p, 100).activity.wait());
    CHECK_FALSE(p.activity.wait());
    CHECK_FALSE(p.activity.wait_partial());
    CHECK_FALSE(w.summary(1.0).processes[0].activity.wait());
  }
  SECTION("schedstat reads 0 0 0 though sched says the thread ran") {
    FakeProc f;
    two_waiting_threads(f);
    f.root.write("proc/100/task/100/schedstat", "0 0 0\n");
    f.root.write("proc/100/task/101/schedstat", "0 0 0\n");
    FakeMigrationEvents ev;
    FakeAffinity lists;
    WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
    w.start();
    ev.move(101, 2);
    IntervalReport r = w.sample(1.0, 1.0);
    CHECK_FALSE(thread_of(process_of(r, 100), 101).activity.wait());
    CHECK_FALSE(thread_of(process_of(r, 100), 100).activity.wait());
    CHECK_FALSE(process_of(r, 100).activity.wait());
  }
}

TEST_CASE("wait: a thread that could not be read makes its process's a lower bound; counted once read") {
  FakeProc f;
  two_waiting_threads(f);
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, nullptr, {100}, false);
  w.start();
  f.thread(100, 100, 0, {0, 11, 1, 6000000, 4000000}, "server");  // waited 3 ms
  f.thread(100, 101, 8, {5, 22, 2, 8000000, 30000000});            // waited 28 ms, but unread:
  f.remove("proc/100/task/101/sched");
  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  CHECK(p.threads_unread == 1);
  CHECK(wait_of(p.activity) == 3000000);
  CHECK(p.activity.wait_partial());
  f.thread(100, 101, 8, {5, 22, 2, 8000000, 30000000});
  r = w.sample(2.0, 1.0);
  CHECK(wait_of(thread_of(process_of(r, 100), 101).activity) == 28000000);  // what it waited while unread
  CHECK_FALSE(process_of(r, 100).activity.wait_partial());
  WatchSummary s = w.summary(2.0);
  CHECK(wait_of(s.processes[0].activity) == 31000000);
  CHECK(s.processes[0].activity.wait_partial());
}

TEST_CASE("wait: a thread there before but first read later is counted from then on, that interval null") {
  FakeProc f;
  two_waiting_threads(f);
  f.remove("proc/100/task/101/sched");  // unreadable at the start
  FakeMigrationEvents ev;
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  w.sample(1.0, 1.0);
  f.thread(100, 101, 0, {0, 20, 2, 7000000, 50000000});
  IntervalReport r = w.sample(2.0, 1.0);
  CHECK_FALSE(thread_of(process_of(r, 100), 101).activity.wait());  // what it waited before is not known
  CHECK(process_of(r, 100).activity.wait_partial());
  ev.move(101, 1);
  f.thread(100, 101, 1, {1, 21, 2, 7001000, 51000000});
  r = w.sample(3.0, 1.0);
  CHECK(wait_of(thread_of(process_of(r, 100), 101).activity) == 1000000);
}

TEST_CASE("wait: a thread created during the watch has its wait since it was created; one that exits, up to the "
          "sample before") {
  FakeProc f;
  two_waiting_threads(f);
  FakeMigrationEvents ev;
  FakeAffinity lists;
  WatchTracker w(SysRoot(f.root.path()), machine(), lists, &ev, {100}, false);
  w.start();
  f.process(100, "server", 3);
  f.thread(100, 102, 4, {3, 1, 0, 2000000, 500000}, "late");
  IntervalReport r = w.sample(1.0, 1.0);
  CHECK(wait_of(thread_of(process_of(r, 100), 102).activity) == 500000);
  ev.move(101, 16);
  ev.threads[101].totals.ended = true;
  f.process(100, "server", 2);
  f.remove("proc/100/task/101");
  r = w.sample(2.0, 1.0);
  const ProcessReport& p = process_of(r, 100);
  CHECK(thread_of(p, 101).exited);
  CHECK_FALSE(thread_of(p, 101).activity.wait());  // nothing of it read in the interval it exited in
  CHECK(wait_of(p.activity) == 0);
  CHECK_FALSE(p.activity.wait_partial());  // what an exited thread's wait keeps is the man page's
}
