// The pin engine with a scheduling request (pin.hpp, PinOptions::sched):
// every thread's policy with its CPUs, in the order the kernel admits, all
// or nothing (the roll back puts both back), --check and --dry-run, on the
// recording fake and its kernel rules (fake_sched.hpp).
#include <catch2/catch.hpp>

#include <cerrno>

#include "error.hpp"
#include "fake_os.hpp"
#include "fake_pin_world.hpp"
#include "fixtures.hpp"
#include "pin.hpp"
#include "pin_check.hpp"
#include "pin_output.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::set_of;
using affix::test::add_process;
using affix::test::k_no_proc;
using affix::test::to;

namespace {

constexpr uint64_t k_ms = 1000000;

// Attributes of a policy, a nice value and a priority.
SchedAttr attr(SchedPolicy policy, int nice = 0, unsigned priority = 0) {
  SchedAttr a;
  a.policy = policy;
  a.nice = nice;
  a.priority = priority;
  return a;
}


SchedRequest batch_nice(int nice) {
  SchedRequest r;
  r.policy = PolicyRequest{SchedPolicy::Batch};
  r.nice = nice;
  return r;
}

SchedRequest deadline_1_10() {
  SchedRequest r;
  r.policy = PolicyRequest{SchedPolicy::Deadline, 0, k_ms, 10 * k_ms, 10 * k_ms};
  return r;
}

PinOptions with(const SchedRequest& sched) {
  PinOptions o;
  o.sched = sched;
  return o;
}

std::string failure(FakeOs& os, const PinResolver& resolve, const PinOptions& options) {
  try {
    pin_threads(os, k_no_proc, {{10, PinScope::Process}}, resolve, options);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    return e.hint().empty() ? e.what() : std::string(e.what()) + " | " + e.hint();
  }
  FAIL("pin_threads did not fail");
  return {};
}

// The calls that change something, in order: "set_sched 10", "set_affinity 10".
std::vector<std::string> changes(const FakeOs& os) {
  std::vector<std::string> out;
  size_t a = 0, s = 0;
  for (const auto& c : os.calls) {
    if (c == "set_affinity") out.push_back("set_affinity " + std::to_string(os.set_affinity_calls[a++].tid));
    if (c == "set_sched") out.push_back("set_sched " + std::to_string(os.set_sched_calls[s++].tid));
  }
  return out;
}

std::string state(FakeOs& os, const std::vector<pid_t>& tids) {
  std::string out;
  for (pid_t tid : tids)
    out += (out.empty() ? "" : "; ") + format_cpulist(os.affinity.at(tid)) + " " + sched_attr_text(os.sched_of(tid));
  return out;
}

}  // namespace

TEST_CASE("pin --policy: each thread's policy first, then its CPUs, and read back") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, "0-3");
  auto report = pin_threads(os, k_no_proc, {{10, PinScope::Process}}, to("2"), with(batch_nice(5)));
  CHECK(state(os, {10, 11, 12}) == "2 batch nice 5; 2 batch nice 5; 2 batch nice 5");
  CHECK(changes(os) == std::vector<std::string>{"set_sched 10", "set_affinity 10", "set_sched 11", "set_affinity 11",
                                                "set_sched 12", "set_affinity 12"});
  REQUIRE(os.set_sched_calls.size() == 3);
  CHECK(os.set_sched_calls[0].attr.policy == SchedPolicy::Batch);
  CHECK(os.set_sched_calls[0].attr.nice == 5);
  const auto& m = report.targets[0].processes[0].threads[1];
  CHECK((m.changed && m.sched_changed));
  CHECK(sched_attr_text(m.sched_before) == "other");
  CHECK(sched_attr_text(m.sched_after) == "batch nice 5");
  CHECK(format_target(k_no_proc, report.targets[0], true, false, report.sched) ==
        "10: 3 threads on CPUs 2, policy batch, nice 5 (3 changed)\n"
        "  thread 10: 0-3 -> 2, other -> batch nice 5\n"
        "  thread 11: 0-3 -> 2, other -> batch nice 5\n"
        "  thread 12: 0-3 -> 2, other -> batch nice 5\n");
  // A second pin finds every thread as asked, and sets nothing.
  os.set_sched_calls.clear();
  os.set_affinity_calls.clear();
  pin_threads(os, k_no_proc, {{10, PinScope::Process}}, to("2"), with(batch_nice(5)));
  CHECK(os.set_sched_calls.empty());
  CHECK(os.set_affinity_calls.empty());
}

TEST_CASE("a SCHED_DEADLINE policy goes after the CPUs; away from deadline, before them") {
  FakeOs os;
  os.root_domain = set_of("0-3");
  add_process(os, 10, {10, 11}, "0");
  pin_threads(os, k_no_proc, {{10, PinScope::Process}}, to("0-3"), with(deadline_1_10()));
  CHECK(changes(os) == std::vector<std::string>{"set_affinity 10", "set_sched 10", "set_affinity 11", "set_sched 11"});
  CHECK(state(os, {10, 11}) == "0-3 deadline:1ms/10ms/10ms; 0-3 deadline:1ms/10ms/10ms");
  // The other way round the kernel refuses: a deadline thread's CPUs cannot
  // be narrowed (EBUSY) until it is given another policy.
  os.calls.clear();
  os.set_affinity_calls.clear();
  os.set_sched_calls.clear();
  SchedRequest other;
  other.policy = PolicyRequest{SchedPolicy::Other};
  pin_threads(os, k_no_proc, {{10, PinScope::Process}}, to("1"), with(other));
  CHECK(changes(os) == std::vector<std::string>{"set_sched 10", "set_affinity 10", "set_sched 11", "set_affinity 11"});
  CHECK(state(os, {10, 11}) == "1 other; 1 other");
}

TEST_CASE("deadline on fewer CPUs than the root domain: refused, and nothing was changed") {
  FakeOs os;
  os.root_domain = set_of("0-3");
  os.facts.cap_sys_nice = true;
  add_process(os, 10, {10, 11}, "0-3");
  CHECK(failure(os, to("2"), with(deadline_1_10())) ==
        "cannot set policy deadline:1ms/10ms/10ms on thread 10 of process 10: a SCHED_DEADLINE thread must be allowed "
        "every CPU of its root domain (0-3), and CPUs 2 are not all of it; nothing was changed | give it all of CPUs "
        "0-3, or make CPUs 2 a root domain of their own and start the thread there: 'affix shield', or a cgroup v2 "
        "cpuset partition (cpuset.cpus.partition=root)");
  CHECK(state(os, {10, 11}) == "0-3 other; 0-3 other");
  // Its CPUs were set (first), then put back; its policy was never taken.
  CHECK(changes(os) == std::vector<std::string>{"set_affinity 10", "set_sched 10", "set_affinity 10"});
}

TEST_CASE("the k-th thread refused: every thread's CPUs and policy put back") {
  FakeOs os;
  os.root_domain = set_of("0-1");
  os.deadline_capacity = 2;  // admission control takes two
  os.facts.rt_runtime_us = 950000;
  os.facts.rt_period_us = 1000000;
  add_process(os, 10, {10, 11, 12}, "0");
  CHECK(failure(os, to("0-1"), with(deadline_1_10())) ==
        "cannot set policy deadline:1ms/10ms/10ms on thread 12 of process 10: deadline admission control refused it: "
        "the CPUs of its root domain (0-1) have not 1ms of every 10ms left for another deadline thread; nothing was "
        "changed | each CPU gives deadline threads at most kernel.sched_rt_runtime_us of every sched_rt_period_us "
        "(950000 of 1000000), shared by every deadline thread of the root domain; ask for less runtime or a longer "
        "period");
  CHECK(state(os, {10, 11, 12}) == "0 other; 0 other; 0 other");
  // Forward: CPUs then policy (10, 11 taken; 12 refused). Back: the policy
  // first (it is not deadline), then the CPUs; 12 only its CPUs.
  CHECK(changes(os) == std::vector<std::string>{"set_affinity 10", "set_sched 10", "set_affinity 11", "set_sched 11",
                                                "set_affinity 12", "set_sched 12", "set_sched 10", "set_affinity 10",
                                                "set_sched 11", "set_affinity 11", "set_affinity 12"});
}

TEST_CASE("a policy refused on the k-th thread: the others' policies and CPUs put back") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, "0-3");
  os.set_sched_errors[12] = EPERM;
  CHECK(failure(os, to("1"), with(batch_nice(5))) ==
        "cannot set policy batch, nice 5 on thread 12 of process 10: permission denied; nothing was changed | "
        "changing another user's thread needs CAP_SYS_NICE");
  CHECK(state(os, {10, 11, 12}) == "0-3 other; 0-3 other; 0-3 other");
}

TEST_CASE("a policy that cannot be put back is named, with where the thread stays") {
  FakeOs os;
  add_process(os, 10, {10, 11}, "0-3");
  os.set_affinity_errors[11] = EINVAL;  // the second thread visited refuses its CPUs
  // Putting thread 10's policy back is refused (an unprivileged user leaving
  // nice 5 needs RLIMIT_NICE).
  os.on_set_sched = [](affix::test::FakeSched& s, pid_t tid, const SchedAttr& a, unsigned) {
    if (tid == 10 && a.policy == SchedPolicy::Other) s.set_sched_errors[10] = EPERM;
  };
  CHECK(failure(os, to("1"), with(batch_nice(5))) ==
        "cannot move thread 11 of process 10: the kernel refused CPUs 1: Invalid argument; not every thread was put "
        "back | the CPUs must be in the target's own cpuset; thread 10 stays on CPUs 0-3, policy batch nice 5 (its "
        "policy could not be put back: Operation not permitted)");
  // Thread 11's policy had been set before its CPUs were refused: put back.
  CHECK(state(os, {10, 11}) == "0-3 batch nice 5; 0-3 other");
}

TEST_CASE("a thread whose policy was already as asked gets its CPUs back, and its policy is left alone") {
  FakeOs os;
  add_process(os, 10, {10, 11}, "0-3");
  os.sched[10] = attr(SchedPolicy::Batch, 5);
  os.set_affinity_errors[11] = EINVAL;
  CHECK(failure(os, to("1"), with(batch_nice(5))) ==
        "cannot move thread 11 of process 10: the kernel refused CPUs 1: Invalid argument; nothing was changed | the "
        "CPUs must be in the target's own cpuset");
  CHECK(state(os, {10, 11}) == "0-3 batch nice 5; 0-3 other");
  CHECK(changes(os) == std::vector<std::string>{"set_affinity 10", "set_sched 11", "set_affinity 11", "set_affinity 10",
                                                "set_sched 11"});
}

TEST_CASE("--nice on a thread that stays fifo is refused before anything is set on it") {
  FakeOs os;
  add_process(os, 10, {10, 11}, "0-3");
  os.sched[10] = attr(SchedPolicy::Fifo, 0, 20);
  SchedRequest nice;
  nice.nice = 5;
  CHECK(failure(os, to("0-3"), with(nice)) ==
        "cannot set nice 5 on thread 10 of process 10: it runs under fifo, which has no nice value; --nice and "
        "--sched-slice apply to the other and batch policies; nothing was changed | add --policy other (or batch) to "
        "change the policy too");
  CHECK(state(os, {10, 11}) == "0-3 fifo:20; 0-3 other");
}

TEST_CASE("threads created during the move come with their creator's policy: not set again") {
  FakeOs os;
  add_process(os, 10, {10, 11}, "0-3");
  os.on_sleep = [](FakeOs& o, unsigned) {
    if (o.threads[10].size() == 2) {  // after the first pass: 11 clones 12, with its list and policy
      o.threads[10].push_back(12);
      o.affinity[12] = o.affinity[11];
      o.sched[12] = o.sched[11];
      o.start_times[12] = 100;
    }
  };
  auto report = pin_threads(os, k_no_proc, {{10, PinScope::Process}}, to("1"), with(batch_nice(5)));
  CHECK(state(os, {10, 11, 12}) == "1 batch nice 5; 1 batch nice 5; 1 batch nice 5");
  const auto& t12 = report.targets[0].processes[0].threads[2];
  CHECK(t12.tid == 12);
  CHECK((t12.inherited && !t12.sched_changed && !t12.changed));
  // A roll back after the move (a failing --migrate) puts all three back.
  CHECK(roll_back(os, os, os, report).empty());
  CHECK(state(os, {10, 11, 12}) == "0-3 other; 0-3 other; 0-3 other");
}

TEST_CASE("--check names every thread under another policy; --dry-run says what would change") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12}, "0-3");
  os.sched[11] = attr(SchedPolicy::Batch, 5);
  PinOptions o = with(batch_nice(5));
  o.dry_run = o.check = true;
  auto report = pin_threads(os, k_no_proc, {{10, PinScope::Process}}, to("0-3"), o);
  auto c = check_pin(k_no_proc, report, [](const TargetReport&) { return std::nullopt; });
  CHECK_FALSE(c.ok);
  CHECK(format_check(k_no_proc, c, false) ==
        "10: 3 threads within CPUs 0-3, 2 not with policy batch, nice 5\n"
        "  10: policy other, nice 0 (asked: policy batch, nice 5)\n"
        "  12: policy other, nice 0 (asked: policy batch, nice 5)\n");
  CHECK(format_check(k_no_proc, c, true) ==
        "10: 3 threads within CPUs 0-3, 2 not with policy batch, nice 5\n"
        "  10: cpus 0-3, within 0-3, policy other, nice 0 (asked: policy batch, nice 5)\n"
        "  11: cpus 0-3, within 0-3, policy batch, nice 5 as asked\n"
        "  12: cpus 0-3, within 0-3, policy other, nice 0 (asked: policy batch, nice 5)\n");
  CHECK(check_json(c) ==
        "{\"ok\": false, \"targets\": [{\"id\": 10, \"scope\": \"process\", \"cpus\": \"0-3\", \"spread\": null, "
        "\"exited\": false, \"ok\": false, \"processes\": 1, \"threads\": 3, \"outside\": [], \"policy\": \"policy "
        "batch, nice 5\", \"policy_off\": [{\"pid\": 10, \"tid\": 10, \"comm\": \"\", \"have\": \"policy other, nice "
        "0\"}, {\"pid\": 10, \"tid\": 12, \"comm\": \"\", \"have\": \"policy other, nice 0\"}], \"memory\": null, \"env\": null}], "
        "\"weights\": null, \"shields\": []}\n");
  os.sched[10] = os.sched[12] = os.sched[11];
  report = pin_threads(os, k_no_proc, {{10, PinScope::Process}}, to("0-3"), o);
  c = check_pin(k_no_proc, report, [](const TargetReport&) { return std::nullopt; });
  CHECK(c.ok);
  CHECK(format_check(k_no_proc, c, false) == "10: 3 threads within CPUs 0-3, with policy batch, nice 5\n");

  // --dry-run: what each thread would get; nothing set.
  os.sched.clear();
  o.check = false;
  report = pin_threads(os, k_no_proc, {{10, PinScope::Process}}, to("1"), o);
  CHECK(format_target(k_no_proc, report.targets[0], true, true, report.sched) ==
        "10: 3 threads on CPUs 1, policy batch, nice 5 (3 would change)\n"
        "  thread 10: 0-3 -> 1, other -> batch nice 5\n"
        "  thread 11: 0-3 -> 1, other -> batch nice 5\n"
        "  thread 12: 0-3 -> 1, other -> batch nice 5\n");
  CHECK(os.set_sched_calls.empty());
  CHECK(os.set_affinity_calls.empty());
  // ...and the refusal the real run would meet.
  os.root_domain = set_of("0-3");
  try {
    pin_threads(os, k_no_proc, {{10, PinScope::Process}}, to("1"), [&] {
      PinOptions d = with(deadline_1_10());
      d.dry_run = true;
      return d;
    }());
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "cannot set policy deadline:1ms/10ms/10ms on thread 10 of process 10: a "
                                   "SCHED_DEADLINE thread must be allowed every CPU of its root domain (0-3), and CPUs "
                                   "1 are not all of it; nothing was changed");
  }
  CHECK(os.set_sched_calls.empty());
}
