// The pin engine's roll back (pin_rollback.cpp) on paths no other test
// holds, on the recording fake (fake_os.hpp) and its kernel rules
// (fake_sched.hpp): a --tid whose thread exited and whose TID was reused
// before the roll back, and a SCHED_DEADLINE thread put back (its CPUs
// before its policy).
#include <catch2/catch.hpp>

#include <cerrno>

#include "error.hpp"
#include "fake_os.hpp"
#include "fake_pin_world.hpp"
#include "fixtures.hpp"
#include "pin.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::set_of;
using affix::test::add_process;
using affix::test::k_no_proc;
using affix::test::to;

namespace {

constexpr uint64_t k_ms = 1000000;

// The error pin_threads throws, with its hint after " | ".
std::string failure(FakeOs& os, const std::vector<PinRequest>& requests, const PinResolver& resolve,
                    const PinOptions& options = {}) {
  try {
    pin_threads(os, k_no_proc, requests, resolve, options);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    return e.hint().empty() ? e.what() : std::string(e.what()) + " | " + e.hint();
  }
  FAIL("pin_threads did not fail");
  return {};
}

// The calls that change something, in order: "set_sched 10", "set_affinity 10 1".
std::vector<std::string> changes(const FakeOs& os) {
  std::vector<std::string> out;
  size_t a = 0, s = 0;
  for (const auto& c : os.calls) {
    if (c == "set_affinity") {
      const auto& call = os.set_affinity_calls[a++];
      out.push_back("set_affinity " + std::to_string(call.tid) + " " + format_cpulist(call.cpus));
    }
    if (c == "set_sched") {
      const auto& call = os.set_sched_calls[s++];
      out.push_back("set_sched " + std::to_string(call.tid) + " " + sched_attr_text(call.attr));
    }
  }
  return out;
}

std::string state(FakeOs& os, const std::vector<pid_t>& tids) {
  std::string out;
  for (pid_t tid : tids)
    out += (out.empty() ? "" : "; ") + format_cpulist(os.affinity.at(tid)) + " " + sched_attr_text(os.sched_of(tid));
  return out;
}

SchedAttr deadline_1_10() {
  SchedAttr a;
  a.policy = SchedPolicy::Deadline;
  a.runtime_ns = k_ms;
  a.deadline_ns = a.period_ns = 10 * k_ms;
  return a;
}

PinOptions batch_nice(int nice) {
  PinOptions o;
  o.sched.policy = PolicyRequest{SchedPolicy::Batch};
  o.sched.nice = nice;
  return o;
}

}  // namespace

TEST_CASE("pin --tid rolled back: a moved thread whose TID was reused before the roll back is not touched, and named",
          "[rollback]") {
  FakeOs os;
  add_process(os, 10, {10, 11, 12, 13}, "0-3");
  os.set_affinity_errors[13] = EPERM;
  // Before 13 refuses: thread 11 (moved to CPU 1) exits, and a thread that
  // 12 (moved there too) creates gets TID 11: on CPU 1, but started later.
  size_t reused_at = 0;
  os.on_set_affinity = [&](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
    if (tid != 13) return;
    o.affinity[11] = o.affinity.at(12);
    o.start_times[11] = 250;
    reused_at = o.calls.size();
  };
  const std::vector<PinRequest> tids{{11, PinScope::Thread}, {12, PinScope::Thread}, {13, PinScope::Thread}};
  CHECK(failure(os, tids, to("1")) ==
        "cannot move thread 13: permission denied; not every thread was put back | moving another user's process "
        "needs CAP_SYS_NICE; thread 11 stays as it is (it exited during the move, and its TID is another thread's "
        "now)");
  // Thread 12 went back; nothing reached the new thread 11.
  CHECK(changes(os) == std::vector<std::string>{"set_affinity 11 1", "set_affinity 12 1", "set_affinity 13 1",
                                                "set_affinity 12 0-3"});
  CHECK(state(os, {10, 11, 12, 13}) == "0-3 other; 1 other; 0-3 other; 0-3 other");
  REQUIRE(reused_at > 0);
  size_t a = 0;
  for (size_t i = 0; i < os.calls.size(); ++i) {
    if (os.calls[i] != "set_affinity") continue;
    if (i >= reused_at) CHECK(os.set_affinity_calls[a].tid != 11);
    ++a;
  }

  SECTION("with a scheduling request, neither its CPUs nor its policy") {
    FakeOs o2;
    add_process(o2, 10, {10, 11, 12, 13}, "0-3");
    o2.set_affinity_errors[13] = EPERM;
    o2.on_set_affinity = [](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
      if (tid != 13) return;
      o.affinity[11] = o.affinity.at(12);
      o.sched[11] = o.sched_of(12);  // batch nice 5, from its creator
      o.start_times[11] = 250;
    };
    CHECK(failure(o2, tids, to("1"), batch_nice(5)) ==
          "cannot move thread 13: permission denied; not every thread was put back | moving another user's process "
          "needs CAP_SYS_NICE; thread 11 stays as it is (it exited during the move, and its TID is another thread's "
          "now)");
    CHECK(state(o2, {11, 12, 13}) == "1 batch nice 5; 0-3 other; 0-3 other");
    CHECK(changes(o2) == std::vector<std::string>{"set_sched 11 batch nice 5", "set_affinity 11 1",
                                                  "set_sched 12 batch nice 5", "set_affinity 12 1",
                                                  "set_sched 13 batch nice 5", "set_affinity 13 1",
                                                  "set_sched 12 other", "set_affinity 12 0-3", "set_sched 13 other"});
  }

  SECTION("a moved thread that exited, its TID not reused: nothing to name") {
    FakeOs o3;
    add_process(o3, 10, {10, 11, 12, 13}, "0-3");
    o3.set_affinity_errors[13] = EPERM;
    o3.on_set_affinity = [](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
      if (tid != 13) return;
      std::erase(o.threads[10], 11);
      o.affinity.erase(11);
      o.start_times.erase(11);
    };
    CHECK(failure(o3, tids, to("1")) ==
          "cannot move thread 13: permission denied; nothing was changed | moving another user's process needs "
          "CAP_SYS_NICE");
    CHECK(state(o3, {10, 12, 13}) == "0-3 other; 0-3 other; 0-3 other");
  }
}

TEST_CASE("a SCHED_DEADLINE thread rolled back: its CPUs go back before its policy", "[rollback]") {
  // The kernel refuses SCHED_DEADLINE on fewer CPUs than its root domain
  // (fake_sched.hpp): a thread taken off deadline and narrowed must get its
  // CPUs back first, then deadline.
  FakeOs os;
  os.root_domain = set_of("0-3");
  add_process(os, 10, {10, 11, 12}, "0-3");
  for (pid_t tid : {10, 11, 12}) os.sched[tid] = deadline_1_10();
  os.set_affinity_errors[12] = EINVAL;  // the third thread refuses its CPUs
  CHECK(failure(os, {{10, PinScope::Process}}, to("1"), batch_nice(5)) ==
        "cannot move thread 12 of process 10: the kernel refused CPUs 1: Invalid argument; nothing was changed | the "
        "CPUs must be in the target's own cpuset");
  CHECK(state(os, {10, 11, 12}) ==
        "0-3 deadline:1ms/10ms/10ms; 0-3 deadline:1ms/10ms/10ms; 0-3 deadline:1ms/10ms/10ms");
  // Forward, away from deadline: the policy first, then the CPUs (12's
  // refused). Back to deadline: the CPUs first, then the policy; 12 only its
  // policy (its CPUs were never changed).
  CHECK(changes(os) == std::vector<std::string>{
                           "set_sched 10 batch nice 5", "set_affinity 10 1",                    //
                           "set_sched 11 batch nice 5", "set_affinity 11 1",                    //
                           "set_sched 12 batch nice 5", "set_affinity 12 1",                    //
                           "set_affinity 10 0-3", "set_sched 10 deadline:1ms/10ms/10ms",        //
                           "set_affinity 11 0-3", "set_sched 11 deadline:1ms/10ms/10ms",        //
                           "set_sched 12 deadline:1ms/10ms/10ms"});
}

TEST_CASE("a SCHED_DEADLINE thread rolled back after a later thread refuses its policy", "[rollback]") {
  FakeOs os;
  os.root_domain = set_of("0-3");
  add_process(os, 10, {10, 11}, "0-3");
  os.sched[10] = deadline_1_10();
  os.set_sched_errors[11] = EPERM;
  CHECK(failure(os, {{10, PinScope::Process}}, to("2"), batch_nice(5)) ==
        "cannot set policy batch, nice 5 on thread 11 of process 10: permission denied; nothing was changed | "
        "changing another user's thread needs CAP_SYS_NICE");
  CHECK(state(os, {10, 11}) == "0-3 deadline:1ms/10ms/10ms; 0-3 other");
  CHECK(changes(os) == std::vector<std::string>{"set_sched 10 batch nice 5", "set_affinity 10 2",
                                                "set_sched 11 batch nice 5", "set_affinity 10 0-3",
                                                "set_sched 10 deadline:1ms/10ms/10ms"});
}
