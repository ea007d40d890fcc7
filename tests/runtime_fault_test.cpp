// Runtime faults through the recording fake OS: every refusal of the
// kernel's placement calls ends the launch before the command starts, with
// a message that says which call failed and why, and nothing half-applied.
#include <catch2/catch.hpp>

#include <cerrno>
#include <sstream>

#include "error.hpp"
#include "fake_os.hpp"
#include "temp_root.hpp"
#include "fixtures.hpp"
#include "launch.hpp"
#include "migrate.hpp"
#include "pin.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::set_of;

namespace {

Placement bound(const char* cpus, std::optional<MemPolicy> policy, const char* mem_nodes) {
  return affix::test::placement_of(cpus, policy, mem_nodes);
}

struct Failure {
  std::string message, hint;
};

// Runs launch expecting an affix::Error; the command must not have run.
Failure launch_failure(FakeOs& os, const Placement& p) {
  LaunchRequest req;
  req.argv = {"touch", "marker"};
  req.env = {{"AFFIX_CPUS", format_cpulist(p.cpus)}};
  std::ostringstream out, err;
  try {
    launch(os, p, req, out, err);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    CHECK(os.exec_calls.empty());
    CHECK(os.env_calls.empty());
    return {e.what(), e.hint()};
  }
  FAIL("launch did not fail");
  return {};
}

}  // namespace

TEST_CASE("sched_setaffinity failing: EINVAL, EPERM, ESRCH") {
  FakeOs os;
  SECTION("EINVAL: the CPUs went offline or out of the cpuset") {
    os.set_affinity_errors[0] = EINVAL;
    Failure f = launch_failure(os, bound("1", std::nullopt, ""));
    CHECK(f.message == "cannot bind to CPUs 1: Invalid argument");
    CHECK(f.hint == "the CPUs may have gone offline or out of affix's cpuset");
  }
  SECTION("EPERM: refused by a seccomp filter or security policy") {
    os.set_affinity_errors[0] = EPERM;
    Failure f = launch_failure(os, bound("0-1", std::nullopt, ""));
    CHECK(f.message == "cannot bind to CPUs 0-1: Operation not permitted");
    CHECK(f.hint == "sched_setaffinity is refused by a seccomp filter or security policy (container policy)");
  }
  SECTION("ESRCH") {
    os.set_affinity_errors[0] = ESRCH;
    Failure f = launch_failure(os, bound("0", std::nullopt, ""));
    CHECK(f.message == "cannot bind to CPUs 0: No such process");
    CHECK(f.hint.empty());
  }
  CHECK(os.calls == std::vector<std::string>{"set_affinity"});
}

TEST_CASE("set_mempolicy failing: EPERM names the seccomp filter; the affinity is never set") {
  FakeOs os;
  SECTION("EPERM, as under a container's seccomp profile") {
    os.set_mempolicy_error = EPERM;
    Failure f = launch_failure(os, bound("0-1", MemPolicy::Bind, "0"));
    CHECK(f.message ==
          "cannot set memory policy bind on node 0: Operation not permitted: set_mempolicy is "
          "refused by a seccomp filter (container policy)");
    CHECK(f.hint == "allow set_mempolicy in the container's seccomp profile (or grant "
                    "CAP_SYS_NICE), or leave out --mem");
  }
  SECTION("EINVAL") {
    os.set_mempolicy_error = EINVAL;
    Failure f = launch_failure(os, bound("0-1", MemPolicy::Interleave, "0-1"));
    CHECK(f.message == "cannot set memory policy interleave on nodes 0-1: Invalid argument");
    CHECK(f.hint.empty());
  }
  CHECK(os.calls == std::vector<std::string>{"set_mempolicy"});
  CHECK(os.set_affinity_calls.empty());
}

TEST_CASE("migrate_pages failing after a pin: every thread goes back, as pin --migrate does") {
  affix::test::TempRoot root;
  root.write("proc/10/numa_maps", "1000 default anon=30 N0=10 N1=20\n");
  SysRoot sys(root.path());
  for (int error : {EPERM, EINVAL, ENOMEM}) {
    FakeOs os;
    os.threads[10] = {10, 11, 12};
    for (pid_t tid : {10, 11, 12}) {
      os.affinity[tid] = set_of("0-3");
      os.start_times[tid] = 100;
    }
    os.affinity[12] = set_of("1");  // one thread had its own list
    PinReport report = pin_threads(os, sys, {{10, PinScope::Process}},
                                   [](const PinRequest&) { return PinPlace{set_of("0"), {}}; });
    CHECK(format_cpulist(os.affinity[10]) == "0");
    CHECK(format_cpulist(os.affinity[12]) == "0");
    os.migrate_error = error;
    // The plan checks that the pages may move (moving none) and is refused.
    CHECK_THROWS_AS(plan_migration(os, sys, 10, MemPolicy::Bind, set_of("0"), set_of("0-1")), Error);
    REQUIRE(os.migrate_calls.size() == 1);
    CHECK(os.migrate_calls[0].from.empty());
    CHECK(roll_back(os, os, os, report).empty());
    CHECK(format_cpulist(os.affinity[10]) == "0-3");
    CHECK(format_cpulist(os.affinity[11]) == "0-3");
    CHECK(format_cpulist(os.affinity[12]) == "1");
  }
}

TEST_CASE("a thread that vanishes while it is being moved (ESRCH) is not a failure") {
  FakeOs os;
  os.threads[10] = {10, 11, 12};
  for (pid_t tid : {10, 11, 12}) {
    os.affinity[tid] = set_of("0-3");
    os.start_times[tid] = 100;
  }
  // Thread 11 exits just as affix moves it: the kernel answers ESRCH and
  // /proc no longer lists it.
  os.on_set_affinity = [](FakeOs& o, pid_t tid, const CpuSet&, unsigned) {
    if (tid != 11) return;
    o.set_affinity_errors[11] = ESRCH;
    std::erase(o.threads[10], 11);
    o.affinity.erase(11);
    o.start_times.erase(11);
  };
  PinReport report = pin_threads(os, SysRoot("/nonexistent-affix-root"), {{10, PinScope::Process}},
                                 [](const PinRequest&) { return PinPlace{set_of("1"), {}}; });
  CHECK(format_cpulist(os.affinity[10]) == "1");
  CHECK(format_cpulist(os.affinity[12]) == "1");
  REQUIRE(report.targets.size() == 1);
  CHECK_FALSE(report.targets[0].exited);
  bool vanished = false;
  for (auto& t : report.targets[0].processes[0].threads)
    if (t.tid == 11) vanished = t.gone;
  CHECK(vanished);
}
