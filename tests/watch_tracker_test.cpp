// The watch logic on a fake /proc and fake migration events: exact counts
// by level, the sampled estimate, threads and processes that come and go,
// the cheap path for threads that did not run, pages and remote pages.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "fake_migration_events.hpp"
#include "fake_root.hpp"
#include "topo_builder.hpp"
#include "watch_tracker.hpp"

using namespace affix;
using affix::test::FakeMigrationEvents;
using affix::test::FakeRoot;

namespace {

// 2 sockets x 2 nodes x 4 cores x 2 threads, two L3 per node, threads of a
// core consecutive: 0-1 smt, 0-2 core, 0-4 llc, 0-8 node, 0-16 socket.
Topology machine() {
  affix::test::TopoSpec spec;
  spec.sockets = 2;
  spec.nodes_per_socket = 2;
  spec.cores_per_node = 4;
  spec.llcs_per_node = 2;
  spec.smt = 2;
  spec.numbering = affix::test::Numbering::Packed;
  return affix::test::build(spec);
}

struct Counters {
  uint64_t migrations = 0, voluntary = 0, involuntary = 0, run_ns = 0;
};

std::string stat_line(pid_t id, const std::string& comm, long threads, long cpu, unsigned long long start = 100) {
  return fmt::format("{} ({}) S 1 {} {} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 {} 0 {} 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 {} 0 0\n",
                     id, comm, id, id, threads, start, cpu);
}

// A fake /proc: every thread's stat line carries its process's thread
// count and start time, as the kernel's do.
struct FakeProc {
  FakeRoot root;
  struct Main {
    std::string comm;
    long threads = 1;
    unsigned long long start = 100;
    long cpu = 0;
  };
  std::map<pid_t, Main> mains;
  void process(pid_t pid, const std::string& comm, long threads, unsigned long long start = 100) {
    Main& m = mains[pid];
    m.comm = comm;
    m.threads = threads;
    m.start = start;
    root.write(fmt::format("proc/{}/stat", pid), stat_line(pid, comm, threads, 0, start));
    write_main(pid);
  }
  void write_main(pid_t pid) {
    const Main& m = mains[pid];
    if (std::filesystem::exists(root.path() + fmt::format("/proc/{}/task/{}", pid, pid)))
      root.write(fmt::format("proc/{}/task/{}/stat", pid, pid), stat_line(pid, m.comm, m.threads, m.cpu, m.start));
  }
  void thread(pid_t pid, pid_t tid, long cpu, Counters c, const std::string& comm = "worker") {
    std::string dir = fmt::format("proc/{}/task/{}/", pid, tid);
    const Main& m = mains[pid];
    root.write(dir + "stat", stat_line(tid, tid == pid ? m.comm : comm, m.threads, cpu, m.start));
    if (tid == pid) mains[pid].cpu = cpu;
    root.write(dir + "sched", fmt::format("{} ({}, #threads: 1)\n---\nse.sum_exec_runtime : {}.{:06}\n"
                                          "se.nr_migrations : {}\nnr_switches : 0\nnr_voluntary_switches : {}\n"
                                          "nr_involuntary_switches : {}\n",
                                          comm, tid, c.run_ns / 1000000, c.run_ns % 1000000, c.migrations,
                                          c.voluntary, c.involuntary));
    root.write(dir + "schedstat", fmt::format("{} 0 {}\n", c.run_ns, c.voluntary + c.involuntary));
  }
  void remove(const std::string& rel) { std::filesystem::remove_all(root.path() + "/" + rel); }
};

const ProcessReport& process_of(const IntervalReport& r, pid_t pid) {
  for (const auto& p : r.processes)
    if (p.pid == pid) return p;
  FAIL("process " << pid << " not reported");
  throw;
}

const ThreadReport& thread_of(const ProcessReport& p, pid_t tid) {
  for (const auto& t : p.thread_list)
    if (t.tid == tid) return t;
  FAIL("thread " << tid << " not reported");
  throw;
}

// Process 100: threads 100 (idle, CPU 0) and 101 (CPU 0).
void two_threads(FakeProc& f) {
  f.process(100, "server", 2);
  f.thread(100, 100, 0, {0, 10, 1, 5000000}, "server");
  f.thread(100, 101, 0, {0, 20, 2, 7000000});
}

}  // namespace

TEST_CASE("exact: each move at its level, a move back to the same CPU none, the other thread 0") {
  FakeProc f;
  two_threads(f);
  FakeMigrationEvents ev;
  WatchTracker w(SysRoot(f.root.path()), machine(), &ev, {100}, false);
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
  WatchTracker w(SysRoot(f.root.path()), machine(), &ev, {100}, false);
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
  WatchTracker w(SysRoot(f.root.path()), machine(), nullptr, {100}, false);
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
  WatchTracker w(SysRoot(f.root.path()), machine(), &ev, {100}, false);
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

TEST_CASE("a thread created during the watch is picked up with what it did since it was created") {
  FakeProc f;
  two_threads(f);
  FakeMigrationEvents ev;
  WatchTracker w(SysRoot(f.root.path()), machine(), &ev, {100}, false);
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

TEST_CASE("a thread that exits is reported up to its exit, then no more") {
  FakeProc f;
  two_threads(f);
  FakeMigrationEvents ev;
  WatchTracker w(SysRoot(f.root.path()), machine(), &ev, {100}, false);
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
  WatchTracker w(SysRoot(f.root.path()), machine(), nullptr, {100}, false);
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
  WatchTracker w(SysRoot(f.root.path()), machine(), &ev, {100, 200}, false);
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
  WatchTracker w(SysRoot(f.root.path()), machine(), nullptr, {100, 4242}, false);
  CHECK(w.start() == std::vector<pid_t>{4242});
}

TEST_CASE("pages per node, and those on nodes where no thread ran are remote") {
  FakeProc f;
  two_threads(f);
  f.root.write("proc/100/numa_maps", "7f00 default anon=107 N0=100 N3=7\n");
  WatchTracker w(SysRoot(f.root.path()), machine(), nullptr, {100}, false);
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
  WatchTracker w(SysRoot(f.root.path()), machine(), &ev, {}, false);
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
  WatchTracker w(SysRoot(f.root.path()), machine(), &ev, {100}, false);
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
