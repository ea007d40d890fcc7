// affix top's engine on fake /proc and /sys trees: /proc/stat and
// /proc/interrupts deltas, marks, grouping by topology, threads under the
// CPU they last ran on, and the cost rule (a process whose CPU total did
// not move has no thread read).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "error.hpp"
#include "fake_os.hpp"
#include "json.hpp"
#include "mini_json.hpp"
#include "top_counters.hpp"
#include "top_output.hpp"
#include "top_sampler.hpp"
#include "watch_fake_proc.hpp"

using namespace affix;
using namespace affix::test;

namespace {

uint64_t g_now_ns = 0;
uint64_t fake_clock() { return g_now_ns; }

// proc/stat with `busy` and `idle` ticks of user time per CPU 0..31 (CPU
// 31 offline: no line), and CPU 3 `extra` busy ticks split over user,
// system, irq and softirq.
void write_stat(FakeProc& f, uint64_t base, uint64_t cpu3_user, uint64_t cpu3_sys, uint64_t cpu3_irq,
                uint64_t cpu3_soft, uint64_t cpu3_idle, uint64_t other_idle = 0) {
  std::string text = "cpu  0 0 0 0 0 0 0 0 0 0\n";
  for (unsigned c = 0; c < 31; ++c) {
    if (c == 3)
      text += fmt::format("cpu3 {} 0 {} {} 0 {} {} 0 0 0\n", base + cpu3_user, base + cpu3_sys, base + cpu3_idle,
                          base + cpu3_irq, base + cpu3_soft);
    else
      text += fmt::format("cpu{} {} 0 {} {} 0 0 0 0 0 0\n", c, base, base, base + other_idle);
  }
  text += "intr 0\nctxt 0\n";
  f.root.write("proc/stat", text);
}

// proc/interrupts with CPU columns 0..30: IRQ 0 `n` on every CPU, and LOC
// `loc` on CPU 3 (0 elsewhere); ERR has one count, no CPU's.
void write_interrupts(FakeProc& f, uint64_t n, uint64_t loc) {
  std::string text;
  for (unsigned c = 0; c < 31; ++c) text += fmt::format(" CPU{}", c);
  text += "\n  0:";
  for (unsigned c = 0; c < 31; ++c) text += fmt::format(" {}", n);
  text += " IO-APIC 2-edge timer\nLOC:";
  for (unsigned c = 0; c < 31; ++c) text += fmt::format(" {}", c == 3 ? loc : 0);
  text += " Local timer interrupts\nERR: 99\nMIS: 7\n";
  f.root.write("proc/interrupts", text);
}

Topology top_machine() {
  Topology t = machine();
  t.online.reset(31);
  t.cpus[31].online = false;
  t.isolated.set(2);
  t.isolated.set(3);
  return t;
}

const TopCpu& cpu_of(const TopFrame& f, unsigned cpu) {
  for (const auto& c : f.cpus)
    if (c.cpu == cpu) return c;
  FAIL("CPU " << cpu << " not in the frame");
  throw;
}

}  // namespace

TEST_CASE("/proc/stat: the cpuN lines, and busy shares between two readings", "[top]") {
  auto m = parse_proc_stat("cpu  9 9 9 9 9 9 9 9 0 0\ncpu0 10 1 20 100 5 2 3 0 0 0\ncpu2 1 2 3 4\n"
                           "cpux 1 2 3 4\ncpu3 1 2\nintr 5\n");
  REQUIRE(m.size() == 2);
  CHECK(m.at(0).user == 10);
  CHECK(m.at(0).idle == 100);
  CHECK(m.at(0).softirq == 3);
  CHECK(m.at(2).idle == 4);
  CpuTimes a{10, 0, 10, 100, 0, 0, 0, 0};
  CpuTimes b{40, 10, 30, 120, 10, 5, 5, 0};  // 100 ticks: 70 busy
  auto busy = busy_between(a, b);
  REQUIRE(busy);
  CHECK(busy->busy == Approx(70.0));
  CHECK(busy->user == Approx(40.0));  // user + nice
  CHECK(busy->system == Approx(20.0));
  CHECK(busy->irq == Approx(5.0));
  CHECK(busy->softirq == Approx(5.0));
  CHECK_FALSE(busy_between(b, b));  // no tick passed
  CHECK_FALSE(busy_between(b, a));  // went back
}

TEST_CASE("/proc/interrupts: each CPU column summed over every line, ERR and MIS for no CPU", "[top]") {
  IrqCounts c;
  REQUIRE(parse_interrupt_totals("           CPU0       CPU2\n  0:    5    7   IO-APIC   2-edge      timer\n"
                                 " 24:   10    0   PCI-MSI 1-edge nvme0q0\nNMI:    1    2   Non-maskable interrupts\n"
                                 "LOC:  100  200   Local timer interrupts\nERR:          3\nMIS:          0\n",
                                 c));
  CHECK(c == IrqCounts{{0, 116}, {2, 209}});
  CHECK_FALSE(parse_interrupt_totals("garbage\n 0: 1 2\n", c));
}

TEST_CASE("a frame: busy and IRQs per CPU, marks, topology indexes, threads under their last CPU", "[top]") {
  FakeProc f;
  f.root.write("sys/devices/system/cpu/nohz_full", "3-4\n");
  write_stat(f, 1000, 0, 0, 0, 0, 0);
  write_interrupts(f, 100, 1000);
  f.process(100, "server", 2, 100, 50);
  f.thread(100, 100, 0, {0, 10, 1, 5000000}, "server");
  f.thread(100, 101, 3, {0, 20, 2, 7000000}, "spin\x1b");
  f.root.write("proc/100/status", "Name:\tserver\nTgid:\t100\nCpus_allowed_list:\t3\nMems_allowed_list:\t0-3\n");
  f.root.write("proc/100/numa_maps", "7f00 default anon=100 N0=75 N3=25\n");
  FakeAffinity lists;
  CpuSet shielded;
  shielded.set(4);
  TopSampler s(SysRoot(f.root.path()), top_machine(), lists, TopFilter{}, shielded);
  s.set_clock(fake_clock);
  g_now_ns = 5000000000;
  TopFrame first = s.next();
  CHECK(first.cpus.size() == 32);
  CHECK_FALSE(cpu_of(first, 3).busy);  // no starting point before it
  CHECK(first.processes.empty());
  // 2 s later: CPU 3 ran 120 of 200 ticks (60 user, 30 system, 20 irq, 10
  // softirq), its thread 101 for 1.5 s of CPU.
  write_stat(f, 1000, 60, 30, 20, 10, 80, 200);  // the others idle
  write_interrupts(f, 300, 3000);
  f.process(100, "server", 2, 100, 200);
  f.thread(100, 101, 3, {1, 20, 9, 1507000000}, "spin\x1b");
  g_now_ns += 2000000000;
  TopFrame fr = s.next();
  CHECK(fr.interval == Approx(2.0));
  const TopCpu& c3 = cpu_of(fr, 3);
  REQUIRE(c3.busy);
  CHECK(*c3.busy == Approx(60.0));
  CHECK(c3.user == Approx(30.0));
  CHECK(c3.system == Approx(15.0));
  CHECK(c3.irq == Approx(10.0));
  CHECK(c3.softirq == Approx(5.0));
  REQUIRE(c3.irqs_per_s);
  CHECK(*c3.irqs_per_s == Approx(1100.0));  // (200 + 2000) / 2 s
  CHECK(*cpu_of(fr, 0).irqs_per_s == Approx(100.0));
  REQUIRE(cpu_of(fr, 0).busy);
  CHECK(*cpu_of(fr, 0).busy == Approx(0.0));
  CHECK(c3.marks == std::vector<std::string>{"isolated", "nohz_full"});
  CHECK(cpu_of(fr, 4).marks == std::vector<std::string>{"nohz_full", "shielded"});
  CHECK(cpu_of(fr, 31).marks == std::vector<std::string>{"offline"});
  CHECK_FALSE(cpu_of(fr, 31).busy);
  CHECK_FALSE(cpu_of(fr, 31).irqs_per_s);
  // Packed: 0-1 a core, 0-3 an LLC, 0-7 a node, 0-15 a socket.
  CHECK(cpu_of(fr, 3).node == 0);
  CHECK(cpu_of(fr, 3).socket == 0);
  CHECK(cpu_of(fr, 3).llc == 0);
  CHECK(cpu_of(fr, 3).core == 1);
  CHECK(cpu_of(fr, 9).node == 1);
  CHECK(cpu_of(fr, 9).llc == 2);
  CHECK(cpu_of(fr, 9).core == 4);
  CHECK(cpu_of(fr, 17).node == 2);
  CHECK(cpu_of(fr, 17).socket == 1);
  REQUIRE(c3.threads.size() == 1);
  CHECK(c3.threads[0].pid == 100);
  CHECK(c3.threads[0].tid == 101);
  CHECK(c3.threads[0].comm == "spin\x1b");
  CHECK(c3.threads[0].percent == Approx(75.0));  // 1.5 s of 2
  CHECK(cpu_of(fr, 0).threads.empty());
  REQUIRE(fr.processes.size() == 1);
  const TopProcess& p = fr.processes[0];
  CHECK(p.pid == 100);
  CHECK(p.comm == "server");
  CHECK(p.percent == Approx(75.0));
  CHECK(p.threads == 2);
  CHECK(p.migrations.total() == 1);
  CHECK(p.migrations[Crossing::Core] == 1);  // seen on 0 and 3: another core, same LLC
  CHECK(format_cpulist(p.allowed) == "3");
  CHECK(p.pinned);
  REQUIRE(p.pages);
  CHECK(*p.pages == NodePages{{0, 75}, {3, 25}});
  // Its threads ran on CPU 3 (node 0): node 3's pages are remote.
  REQUIRE(p.remote_share);
  CHECK(*p.remote_share == Approx(0.25));
  // JSON: the fields the man page lists, the comm as valid JSON.
  std::string json = top_json(fr);
  INFO(json);
  CHECK(json.find("{\"cpu\": 3, \"node\": 0, \"core\": 1, \"busy\": 60.0, \"irqs_per_s\": 1100.0, "
                  "\"marks\": [\"isolated\", \"nohz_full\"], \"threads\": [{\"pid\": 100, \"tid\": 101, "
                  "\"comm\": \"spin\\u001b\", \"percent\": 75.0}]}") != std::string::npos);
  CHECK(json.find("{\"pid\": 100, \"comm\": \"server\", \"percent\": 75.0, \"threads\": 2, \"migrations_per_s\": "
                  "{\"smt\": 0.000, \"core\": 0.500, \"llc\": 0.000, \"node\": 0.000, \"socket\": 0.000}, "
                  "\"pages\": {\"0\": 75, \"3\": 25}, \"remote_share\": 0.250, \"ran_on_nodes\": \"0\", \"allowed\": \"3\", "
                  "\"pinned\": true}") !=
        std::string::npos);
  CHECK(json.find("{\"cpu\": 31, \"node\": 3, \"core\": 15, \"busy\": null, \"irqs_per_s\": null, "
                  "\"marks\": [\"offline\"], \"threads\": []}") != std::string::npos);
  // Text: the name escaped, the CPU under its node, socket and LLC.
  std::string text = top_text(fr);
  CHECK(text.find("spin\\e") != std::string::npos);
  CHECK(text.find("spin\x1b") == std::string::npos);
  CHECK(text.find("node 1, socket 0\n llc 2\n") != std::string::npos);
}

TEST_CASE("a process whose threads ran on two nodes has no remote share (not 0.0%), and says where they ran", "[top]") {
  FakeProc f;
  write_stat(f, 1000, 0, 0, 0, 0, 0);
  write_interrupts(f, 100, 1000);
  f.process(100, "server", 2, 100, 50);
  f.thread(100, 100, 0, {0, 10, 1, 5000000}, "server");
  f.thread(100, 101, 3, {0, 20, 2, 7000000}, "worker");
  f.root.write("proc/100/status", "Name:\tserver\nTgid:\t100\nCpus_allowed_list:\t0-30\nMems_allowed_list:\t0-3\n");
  f.root.write("proc/100/numa_maps", "7f00 default anon=100 N0=60 N1=40\n");
  FakeAffinity lists;
  TopSampler s(SysRoot(f.root.path()), top_machine(), lists, TopFilter{});
  s.set_clock(fake_clock);
  g_now_ns = 5000000000;
  s.next();
  // Both ran: 100 on CPU 9 (node 1), 101 on CPU 3 (node 0).
  write_stat(f, 1000, 60, 30, 20, 10, 80, 200);
  write_interrupts(f, 300, 3000);
  f.process(100, "server", 2, 100, 200);
  f.thread(100, 100, 9, {1, 20, 2, 505000000}, "server");
  f.thread(100, 101, 3, {0, 30, 3, 507000000}, "worker");
  g_now_ns += 2000000000;
  TopFrame fr = s.next();
  REQUIRE(fr.processes.size() == 1);
  const TopProcess& p = fr.processes[0];
  CHECK(format_cpulist(p.ran_nodes) == "0-1");
  CHECK_FALSE(p.remote_share);
  std::string json = top_json(fr);
  INFO(json);
  CHECK(json.find("\"remote_share\": null, \"ran_on_nodes\": \"0-1\"") != std::string::npos);
}

TEST_CASE("the cost rule: a process whose CPU total did not move has none of its threads read", "[top]") {
  FakeProc f;
  write_stat(f, 1000, 0, 0, 0, 0, 0);
  write_interrupts(f, 0, 0);
  f.process(100, "busy", 2, 100, 50);
  f.thread(100, 100, 0, {0, 1, 0, 5000000}, "busy");
  f.thread(100, 101, 1, {0, 1, 0, 5000000});
  f.process(200, "idle", 3, 100, 70);
  f.thread(200, 200, 5, {0, 1, 0, 1000000}, "idle");
  f.thread(200, 201, 5, {0, 1, 0, 1000000});
  f.thread(200, 202, 6, {0, 1, 0, 1000000});
  FakeAffinity lists;
  TopSampler s(SysRoot(f.root.path()), top_machine(), lists, TopFilter{});
  s.set_clock(fake_clock);
  g_now_ns = 1000000000;
  s.next();
  // 100's total moves (thread 101 ran 0.5 s); 200's thread 201 ran 3 ms,
  // less than a tick: its total did not move, so none of 200's threads is read.
  f.process(100, "busy", 2, 100, 100);
  f.thread(100, 101, 1, {0, 1, 1, 505000000});
  f.thread(200, 201, 5, {0, 1, 1, 4000000});
  g_now_ns += 1000000000;
  TopFrame fr = s.next();
  CHECK(s.threads_read() == 2);
  CHECK(s.threads_skipped() == 3);
  REQUIRE(fr.processes.size() == 1);
  CHECK(fr.processes[0].pid == 100);
  CHECK(cpu_of(fr, 5).threads.empty());
  REQUIRE(cpu_of(fr, 1).threads.size() == 1);
  CHECK(cpu_of(fr, 1).threads[0].percent == Approx(50.0));
  // Its total moves a tick later: the 3 ms are counted then, with this interval's.
  f.process(200, "idle", 3, 100, 71);
  f.thread(200, 201, 5, {0, 1, 2, 9000000});
  g_now_ns += 1000000000;
  fr = s.next();
  CHECK(s.threads_read() == 3);  // 200's; 100's total did not move this time
  CHECK(s.threads_skipped() == 2);
  REQUIRE(cpu_of(fr, 5).threads.size() == 1);
  CHECK(cpu_of(fr, 5).threads[0].tid == 201);
  CHECK(cpu_of(fr, 5).threads[0].percent == Approx(0.8));  // 8 ms of 1 s
  // A thread count that changed is read though the total did not move.
  f.process(200, "idle", 4, 100, 71);
  f.thread(200, 203, 7, {0, 0, 0, 0});
  g_now_ns += 1000000000;
  s.next();
  CHECK(s.threads_read() == 3);
  CHECK(s.threads_skipped() == 2);
}

TEST_CASE("filters: WHERE's CPUs, --name, --tree, --pid", "[top]") {
  FakeProc f;
  write_stat(f, 1000, 0, 0, 0, 0, 0);
  write_interrupts(f, 0, 0);
  f.process(100, "nginx", 1, 100, 0);
  f.thread(100, 100, 0, {0, 1, 0, 0}, "nginx");
  f.root.write("proc/101/stat", stat_line(101, "nginx-worker", 1, 9, 100, 0));  // parent 1
  f.process(101, "nginx-worker", 1, 100, 0);
  f.thread(101, 101, 9, {0, 1, 0, 0}, "nginx-worker");
  f.process(300, "redis", 1, 100, 0);
  f.thread(300, 300, 9, {0, 1, 0, 0}, "redis");
  uint64_t round = 0;
  bool parent_100 = false;  // 101's parent: 100 (else 1, as for the others)
  auto run = [&](TopFilter filter) {
    FakeAffinity lists;
    TopSampler s(SysRoot(f.root.path()), top_machine(), lists, filter);
    s.set_clock(fake_clock);
    g_now_ns = 1000000000;
    s.next();
    ++round;
    for (pid_t pid : {100, 101, 300}) {
      std::string comm = pid == 100 ? "nginx" : pid == 101 ? "nginx-worker" : "redis";
      f.process(pid, comm, 1, 100, round * 10);
      f.thread(pid, pid, pid == 100 ? 0 : 9, {0, 1, round, round * 100000000}, comm);
    }
    if (parent_100)
      f.root.write("proc/101/stat", fmt::format("101 (nginx-worker) S 100 101 101 0 -1 4194560 0 0 0 0 {} 0 0 0 20 0 1 "
                                                "0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 9 0 0\n",
                                                round * 10));
    g_now_ns += 1000000000;
    TopFrame fr = s.next();
    std::vector<pid_t> pids;
    for (const auto& p : fr.processes) pids.push_back(p.pid);
    std::sort(pids.begin(), pids.end());
    return std::make_pair(pids, fr.cpus.size());
  };
  CHECK(run(TopFilter{}).first == std::vector<pid_t>{100, 101, 300});
  TopFilter where;
  where.cpus = CpuSet::range(8, 15);
  auto [pids, cpus] = run(where);
  CHECK(pids == std::vector<pid_t>{101, 300});
  CHECK(cpus == 8);
  TopFilter name;
  name.name = "^nginx";
  CHECK(run(name).first == std::vector<pid_t>{100, 101});
  TopFilter pid;
  pid.pids = {300};
  CHECK(run(pid).first == std::vector<pid_t>{300});
  parent_100 = true;
  TopFilter tree;
  tree.tree = 100;
  CHECK(run(tree).first == std::vector<pid_t>{100, 101});
  TopFilter bad;
  bad.name = "(";
  FakeAffinity lists;
  CHECK_THROWS_WITH(TopSampler(SysRoot(f.root.path()), top_machine(), lists, bad),
                    Catch::StartsWith("invalid --name '(': not a regular expression"));
}

namespace {

// Switch events made up by the test: take() gives `records` once, and
// says whether they are whole.
struct FakeSwitchEvents : SwitchEvents {
  std::vector<SwitchRecord> records;
  bool whole = true;
  bool take(std::vector<SwitchRecord>& out) override {
    out.insert(out.end(), records.begin(), records.end());
    records.clear();
    return whole;
  }
  bool wait_until(uint64_t) override { return true; }
};

}  // namespace

TEST_CASE("--once from switch events: no thread read at the start, the same frame, every CPU visited", "[top]") {
  FakeProc f;
  write_stat(f, 1000, 0, 0, 0, 0, 0);
  write_interrupts(f, 0, 0);
  two_threads(f);  // process 100: threads 100 and 101, "server"
  f.process(200, "idle", 1);
  f.thread(200, 200, 5, {}, "idle");
  FakeAffinity lists;
  lists.affinity[0] = top_machine().online;
  TopSampler s(SysRoot(f.root.path()), top_machine(), lists, TopFilter{});
  s.set_clock(fake_clock);
  auto events = std::make_unique<FakeSwitchEvents>();
  FakeSwitchEvents* ev = events.get();
  s.use_events(true);
  s.give_events(std::move(events));
  g_now_ns = 1000000000;
  f.remove("proc/100/task/101/stat");  // nothing of a thread is read at the start
  s.next();
  CHECK(s.events_used());
  f.thread(100, 101, 0, {}, "worker");
  // Thread 101: CPU 0 (running at the start) to 1.1 s, CPU 8 (a node away)
  // from 1.2 to 1.5 s, CPU 9 from 1.6 s to the end.
  ev->records = {SwitchRecord{1100000000, 0, true, 100, 101}, SwitchRecord{1200000000, 8, false, 100, 101},
                 SwitchRecord{1500000000, 8, true, 100, 101}, SwitchRecord{1600000000, 9, false, 100, 101}};
  write_stat(f, 1000, 60, 10, 0, 0, 30);  // CPU 3: 70 of 100 ticks busy
  g_now_ns = 2000000000;
  lists.set_affinity_calls.clear();
  TopFrame fr = s.next();
  CHECK(fr.source == "events");
  // Each CPU visited by a thread of its own (tid 0: the caller).
  CHECK(lists.set_affinity_calls == std::vector<pid_t>(top_machine().online.count(), 0));
  CHECK(lists.affinity[0] == CpuSet::range(30, 30));  // the last online CPU
  REQUIRE(fr.processes.size() == 1);
  const TopProcess& p = fr.processes[0];
  CHECK(p.pid == 100);
  CHECK(p.comm == "server");
  CHECK(p.threads == 2);
  CHECK(p.percent == Approx(80.0));  // 0.1 + 0.3 + 0.4 s of 1 s
  CHECK(p.migrations[Crossing::Node] == 1);
  CHECK(p.migrations[Crossing::Smt] == 1);
  CHECK(p.migrations.total() == 2);
  REQUIRE(cpu_of(fr, 9).threads.size() == 1);
  CHECK(cpu_of(fr, 9).threads[0].tid == 101);
  CHECK(cpu_of(fr, 9).threads[0].comm == "worker");
  CHECK(cpu_of(fr, 9).threads[0].percent == Approx(80.0));
  CHECK(cpu_of(fr, 0).threads.empty());
  REQUIRE(cpu_of(fr, 3).busy.has_value());  // the CPUs' figures as ever
  CHECK(*cpu_of(fr, 3).busy == Approx(70.0));
  CHECK(parse_json(top_json(fr))["source"].string == "events");
}

// The machine of the switch-event tests: idle CPUs, no IRQs, process 100
// ("server") with threads 100 and 101.
static void events_machine(FakeProc& f) {
  write_stat(f, 1000, 0, 0, 0, 0, 0);
  write_interrupts(f, 0, 0);
  two_threads(f);
}

// The sampler takes its events from a fake that holds one switch (thread
// 101 off CPU 0 at 1.1 s), `whole` or not.
static void one_switch(TopSampler& s, bool whole) {
  auto events = std::make_unique<FakeSwitchEvents>();
  events->whole = whole;
  events->records = {SwitchRecord{1100000000, 0, true, 100, 101}};
  s.use_events(true);
  s.give_events(std::move(events));
}

TEST_CASE("--once from switch events that lost records: not whole, then every thread read", "[top]") {
  FakeProc f;
  events_machine(f);
  FakeAffinity lists;
  lists.affinity[0] = top_machine().online;
  TopSampler s(SysRoot(f.root.path()), top_machine(), lists, TopFilter{});
  s.set_clock(fake_clock);
  one_switch(s, false);
  g_now_ns = 1000000000;
  s.next();
  g_now_ns = 2000000000;
  TopFrame fr = s.next();
  CHECK(s.events_lost() == "the scheduler's events lost records");
  CHECK(fr.processes.empty());
  s.restart();
  g_now_ns = 3000000000;
  s.next();
  CHECK_FALSE(s.events_used());
  CHECK(s.why_no_events() == "the scheduler's events lost records");
  CHECK(s.events_lost().empty());
  f.thread(100, 101, 0, {0, 21, 2, 507000000});  // ran 0.5 s
  f.process(100, "server", 2, 100, 50);
  g_now_ns = 4000000000;
  fr = s.next();
  CHECK(fr.source == "proc");
  REQUIRE(fr.processes.size() == 1);
  CHECK(fr.processes[0].percent == Approx(50.0));
}

namespace {

// A machine where moving onto a CPU never ends (a CPU taken by a realtime
// thread that never yields): each set_affinity waits until the test lets
// it go. `done` counts the calls that returned; nothing of the object is
// touched after that count, so the test may end once all have.
struct StuckAffinity : FakeAffinity {
  std::mutex m;
  std::condition_variable cv;
  bool released = false;
  std::atomic<unsigned> done{0};
  int set_affinity(pid_t, const CpuSet&) override {
    {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [this] { return released; });
    }
    done.fetch_add(1);
    return 0;
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(m);
      released = true;
    }
    cv.notify_all();
  }
};

}  // namespace

TEST_CASE("--once from switch events where a CPU cannot be visited in time: not whole, then the /proc way", "[top]") {
  FakeProc f;
  events_machine(f);
  StuckAffinity lists;
  lists.affinity[0] = top_machine().online;
  const unsigned cpus = static_cast<unsigned>(top_machine().online.count());
  {
    TopSampler s(SysRoot(f.root.path()), top_machine(), lists, TopFilter{});
    s.set_clock(fake_clock);
    one_switch(s, true);
    g_now_ns = 1000000000;
    s.next();
    g_now_ns = 2000000000;
    auto start = std::chrono::steady_clock::now();
    TopFrame fr = s.next();
    auto waited = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const unsigned limit = TopSampler::k_visit_ms + 2 * cpus;
    CHECK(s.events_lost() == fmt::format("a CPU could not be visited within {} ms", limit));
    CHECK(waited >= limit);  // it waited its whole limit (a lower bound: no timing is asserted above it)
    CHECK(fr.processes.empty());
    CHECK(lists.done.load() == 0);  // the visit is still stuck on its first CPU
    s.restart();
    CHECK(s.why_no_events() == fmt::format("a CPU could not be visited within {} ms", limit));
    g_now_ns = 3000000000;
    s.next();
    CHECK_FALSE(s.events_used());
  }
  // The visiting thread, let go, visits the rest and ends before `lists` does.
  lists.release();
  while (lists.done.load() < cpus) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(lists.done.load() == cpus);
}

TEST_CASE("--name: a pattern that is not a regular expression, or that libstdc++ would overflow reading, is refused", "[top]") {
  FakeProc f;
  FakeAffinity lists;
  auto refused = [&](const std::string& name) {
    TopFilter filter;
    filter.name = name;
    try {
      TopSampler s(SysRoot(f.root.path()), top_machine(), lists, filter);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused("a\\8888888888888888888") ==
        "invalid --name 'a\\8888888888888888888': not a regular expression ('\\\\8888888888888888888...': a count "
        "or a back-reference of more than 9 digits)");
  CHECK(refused("x{2,99999999999}") ==
        "invalid --name 'x{2,99999999999}': not a regular expression ('{2,99999999999...': a count or a "
        "back-reference of more than 9 digits)");
  CHECK_THAT(refused("(x"), Catch::StartsWith("invalid --name '(x': not a regular expression ("));
  CHECK(refused("^nginx|x{2,5}") == "accepted");
}
