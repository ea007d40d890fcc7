// pin --tree and forks under way (pin.cpp, run; PinOptions::forks): a
// thread affix moved is watched until /proc or the kernel's fork events show
// it past any fork it began before, and the move ends only at a pass and a
// scan after that, so that a fork that copied the old list is found.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>

#include "error.hpp"
#include "fake_os.hpp"
#include "pin.hpp"

using namespace affix;
using affix::test::FakeOs;

namespace {

CpuSet cpus(const char* list) { return *parse_cpulist(list).value; }

PinResolver to(const char* list) {
  PinPlace place{cpus(list), {}};
  return [place](const PinRequest&) { return place; };
}

const SysRoot k_no_proc("/nonexistent-affix-root");

void add_process(FakeOs& os, pid_t pid, std::vector<pid_t> tids, const CpuSet& list, pid_t parent) {
  os.threads[pid] = tids;
  for (pid_t tid : tids) {
    os.affinity[tid] = list;
    os.start_times[tid] = 100;
  }
  os.start_times[pid] = 100;
  os.parents[pid] = parent;
}

// The fork watch of a test: clone_state from a function of the TID and the
// times it was asked; events handed out once each, as queued.
class FakeForkWatch : public ForkWatchOs {
public:
  bool subscribe = true;
  std::string why = "subscribing to the process events connector needs CAP_NET_ADMIN";
  std::function<CloneState(pid_t tid, unsigned asked)> state = [](pid_t, unsigned) { return CloneState::Outside; };
  std::function<void(unsigned asked)> on_events;  // before events() hands out the queue
  std::vector<ProcEvent> queue;
  std::map<pid_t, unsigned> asked;
  std::vector<std::string> calls;
  uint64_t clock_ns = 1000;

  bool watch(std::string& w) override {
    calls.emplace_back("watch");
    if (!subscribe) w = why;
    return subscribe;
  }
  void events(std::vector<ProcEvent>& out) override {
    calls.emplace_back("events");
    if (on_events) on_events(m_events_n++);
    out.insert(out.end(), queue.begin(), queue.end());
    queue.clear();
  }
  uint64_t now_ns() override { return clock_ns += 10; }
  CloneState clone_state(pid_t, pid_t tid) override {
    calls.emplace_back("clone_state");
    return state(tid, asked[tid]++);
  }

private:
  unsigned m_events_n = 0;
};

ProcEvent fork_event(pid_t parent, pid_t child, uint64_t time_ns) {
  ProcEvent e;
  e.kind = ProcEvent::Kind::Fork;
  e.pid = e.tgid = parent;
  e.child_pid = e.child_tgid = child;
  e.time_ns = time_ns;
  return e;
}

}  // namespace

TEST_CASE("--tree: a fork under way when the root moved, ending after the passes, is waited for and moved") {
  FakeOs os;
  FakeForkWatch forks;
  add_process(os, 10, {10}, cpus("0-3"), 1);
  // Thread 10 is inside clone (the fork copied 0-3 before affix set it)
  // the first three times it is read; then the fork ends: process 50 on
  // the old list, and 10 is back in nanosleep.
  forks.state = [&](pid_t tid, unsigned asked) {
    if (tid != 10) return CloneState::Outside;
    if (asked < 3) return CloneState::Inside;
    if (!os.threads.count(50)) add_process(os, 50, {50}, cpus("0-3"), 10);
    return CloneState::Outside;
  };
  PinOptions options;
  options.forks = &forks;
  auto report = pin_threads(os, k_no_proc, {{10, PinScope::Tree}}, to("2"), options);
  CHECK(format_cpulist(os.affinity.at(10)) == "2");
  CHECK(format_cpulist(os.affinity.at(50)) == "2");
  CHECK(forks.asked[10] == 4);
  CHECK(forks.calls.front() == "watch");
  CHECK(report.no_fork_events.empty());
  CHECK(report.clone_unproven == 0);
  REQUIRE(report.targets.size() == 1);
  CHECK(report.targets[0].processes.size() == 2);
}

TEST_CASE("--tree without the watch ends before such a fork does (the window the watch closes)") {
  FakeOs os;
  add_process(os, 10, {10}, cpus("0-3"), 1);
  auto report = pin_threads(os, k_no_proc, {{10, PinScope::Tree}}, to("2"), PinOptions{});
  // The fork that had copied 0-3 ends now: its child keeps the old list.
  add_process(os, 50, {50}, cpus("0-3"), 10);
  CHECK(format_cpulist(os.affinity.at(10)) == "2");
  CHECK(format_cpulist(os.affinity.at(50)) == "0-3");
  CHECK(report.targets[0].processes.size() == 1);
}

TEST_CASE("--tree: a fork event sent after the move clears a thread that is always running, and names its child") {
  FakeOs os;
  FakeForkWatch forks;
  add_process(os, 10, {10}, cpus("0-3"), 1);
  forks.state = [](pid_t tid, unsigned) { return tid == 10 ? CloneState::Unknown : CloneState::Outside; };
  // At the second look (after the first pass set 10 at clock 1010), 10
  // forks 50, on the old list; the event comes before the children file
  // shows it.
  forks.on_events = [&](unsigned n) {
    if (n != 1) return;
    add_process(os, 50, {50}, cpus("0-3"), 10);
    forks.queue.push_back(fork_event(10, 50, forks.clock_ns + 5));
  };
  PinOptions options;
  options.forks = &forks;
  auto report = pin_threads(os, k_no_proc, {{10, PinScope::Tree}}, to("2"), options);
  CHECK(format_cpulist(os.affinity.at(50)) == "2");
  CHECK(report.clone_unproven == 0);
  CHECK(report.targets[0].processes.size() == 2);
  // Ended long before clone_wait_ms: the event cleared 10.
  CHECK(os.clock_ms < options.clone_wait_ms);
}

TEST_CASE("--tree: an event sent before the move proves nothing; a thread running all along is let go after clone_wait_ms") {
  FakeOs os;
  FakeForkWatch forks;
  add_process(os, 10, {10}, cpus("0-3"), 1);
  forks.state = [](pid_t tid, unsigned) { return tid == 10 ? CloneState::Unknown : CloneState::Outside; };
  forks.queue.push_back(fork_event(10, 77, 1));  // before the move; 77 is gone
  PinOptions options;
  options.forks = &forks;
  auto report = pin_threads(os, k_no_proc, {{10, PinScope::Tree}}, to("2"), options);
  CHECK(report.clone_unproven == 1);
  CHECK(os.clock_ms >= options.clone_wait_ms);
  CHECK(report.targets[0].processes.size() == 1);
}

TEST_CASE("--tree without the connector: /proc alone, and the report says why") {
  FakeOs os;
  FakeForkWatch forks;
  forks.subscribe = false;
  add_process(os, 10, {10}, cpus("0-3"), 1);
  PinOptions options;
  options.forks = &forks;
  auto report = pin_threads(os, k_no_proc, {{10, PinScope::Tree}}, to("2"), options);
  CHECK(report.no_fork_events == "subscribing to the process events connector needs CAP_NET_ADMIN");
  CHECK(std::count(forks.calls.begin(), forks.calls.end(), "events") == 0);
  CHECK(forks.asked[10] == 1);
}

TEST_CASE("--tree: a thread stuck inside clone past the limit fails the move, and everything is put back") {
  FakeOs os;
  FakeForkWatch forks;
  add_process(os, 10, {10}, cpus("0-3"), 1);
  forks.state = [](pid_t tid, unsigned) { return tid == 10 ? CloneState::Inside : CloneState::Outside; };
  PinOptions options;
  options.forks = &forks;
  options.limit_ms = 50;
  std::string what;
  try {
    pin_threads(os, k_no_proc, {{10, PinScope::Tree}}, to("2"), options);
  } catch (const Error& e) {
    what = e.what();
  }
  CHECK(what == "the threads of process 10 kept changing for 0.05 s; nothing was changed");
  CHECK(format_cpulist(os.affinity.at(10)) == "0-3");
}

TEST_CASE("pin without --tree, and --dry-run --tree, do not watch forks") {
  FakeOs os;
  FakeForkWatch forks;
  add_process(os, 10, {10}, cpus("0-3"), 1);
  PinOptions options;
  options.forks = &forks;
  pin_threads(os, k_no_proc, {{10, PinScope::Process}}, to("2"), options);
  options.dry_run = true;
  pin_threads(os, k_no_proc, {{10, PinScope::Tree}}, to("1"), options);
  CHECK(forks.calls.empty());
}
