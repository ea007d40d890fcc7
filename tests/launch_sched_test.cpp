// run's scheduling policy (launch.hpp, launch_sched.hpp): set on affix
// itself before the exec, in the order the kernel admits, read back; a
// refusal explained and nothing started; -v and --dry-run say it in order.
#include <catch2/catch.hpp>

#include <cerrno>
#include <sstream>

#include "error.hpp"
#include "fake_os.hpp"
#include "fixtures.hpp"
#include "launch.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::set_of;

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


LaunchRequest command(const SchedRequest& sched, bool dry_run = false, bool verbose = false) {
  LaunchRequest r;
  r.argv = {"server"};
  r.sched = sched;
  r.dry_run = dry_run;
  r.verbose = verbose;
  return r;
}

SchedRequest fifo(unsigned p) {
  SchedRequest r;
  r.policy = PolicyRequest{SchedPolicy::Fifo, p};
  return r;
}

SchedRequest deadline() {
  SchedRequest r;
  r.policy = PolicyRequest{SchedPolicy::Deadline, 0, 2 * k_ms, 10 * k_ms, 10 * k_ms};
  return r;
}

// The error launch throws, with its hint after " | ".
std::string failure(FakeOs& os, const char* cpus, const LaunchRequest& req) {
  std::ostringstream out, err;
  try {
    launch(os, affix::test::placement_of(cpus), req, out, err);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    return e.hint().empty() ? e.what() : std::string(e.what()) + " | " + e.hint();
  }
  FAIL("launch did not fail");
  return {};
}

}  // namespace

TEST_CASE("run --policy: the policy, then the CPUs, read back, then exec") {
  FakeOs os;
  std::ostringstream out, err;
  CHECK(launch(os, affix::test::placement_of("0-1", MemPolicy::Bind, "0"), command(fifo(50), false, true), out, err) ==
        0);
  CHECK(os.calls == std::vector<std::string>{"sched_support", "get_sched", "set_mempolicy",
                                             "set_sched", "get_sched", "set_affinity", "exec"});
  REQUIRE(os.set_sched_calls.size() == 1);
  CHECK(os.set_sched_calls[0].tid == 0);
  CHECK(sched_attr_text(os.sched_of(0)) == "fifo:50");
  CHECK(err.str() == "affix: set memory policy bind on node 0\n"
                     "affix: set policy fifo:50\n"
                     "affix: bind to CPUs 0-1 (2 CPUs; socket 0; node 0)\n"
                     "affix: exec: server\n");
}

TEST_CASE("run --policy deadline: the CPUs first, then the policy") {
  FakeOs os;
  os.root_domain = set_of("0-1");
  std::ostringstream out, err;
  CHECK(launch(os, affix::test::placement_of("0-1"), command(deadline(), false, true), out, err) == 0);
  CHECK(os.calls == std::vector<std::string>{"sched_support", "get_sched", "set_affinity", "set_sched", "get_sched",
                                             "exec"});
  CHECK(sched_attr_text(os.sched_of(0)) == "deadline:2ms/10ms/10ms");
  CHECK(err.str() == "affix: bind to CPUs 0-1 (2 CPUs; socket 0; node 0)\n"
                     "affix: set policy deadline:2ms/10ms/10ms (then the command cannot create threads or processes: "
                     "the kernel refuses clone to a deadline thread)\n"
                     "affix: exec: server\n");
}

TEST_CASE("run --policy deadline without -v: a warning that the command cannot create threads") {
  FakeOs os;
  std::ostringstream out, err;
  CHECK(launch(os, affix::test::placement_of("0"), command(deadline()), out, err) == 0);
  CHECK(err.str() == "affix: warning: the command runs under SCHED_DEADLINE, which cannot create threads or processes "
                     "(the kernel refuses clone: EAGAIN); a program that does gets its policy once its threads run: "
                     "'affix pin --policy deadline:... PID'\n");
  std::ostringstream out2, err2;
  CHECK(launch(os, affix::test::placement_of("0"), command(fifo(1)), out2, err2) == 0);
  CHECK(err2.str().empty());
}

TEST_CASE("run: a refused policy is explained, and nothing is started") {
  FakeOs os;
  os.root_domain = set_of("0-3");
  os.facts.cap_sys_nice = true;
  CHECK(failure(os, "1", command(deadline())) ==
        "cannot set policy deadline:2ms/10ms/10ms: a SCHED_DEADLINE thread must be allowed every CPU of its root "
        "domain (0-3), and CPUs 1 are not all of it | give it all of CPUs 0-3, or make CPUs 1 a root domain of their "
        "own and start the thread there: 'affix shield', or a cgroup v2 cpuset partition (cpuset.cpus.partition=root)");
  CHECK(os.exec_calls.empty());

  FakeOs plain;
  plain.set_sched_errors[0] = EPERM;
  CHECK(failure(plain, "0", command(fifo(99))) ==
        "cannot set policy fifo:99: permission denied: fifo:99 needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least 99 "
        "| run affix as root, or raise the thread's limit first (prlimit --rtprio, ulimit -r, LimitRTPRIO= of a "
        "systemd unit)");
  CHECK(plain.set_affinity_calls.empty());  // the policy goes first
  CHECK(plain.exec_calls.empty());

  FakeOs old;
  old.support = SchedSupport{false, false, "6.1.0-27-amd64"};
  SchedRequest slice;
  slice.slice_ns = k_ms;
  CHECK(failure(old, "0", command(slice)) ==
        "--sched-slice needs Linux 6.12 or later: this kernel (6.1.0-27-amd64) keeps no EEVDF slice of a thread's "
        "own | the slice is sched_attr.sched_runtime of an other or batch thread, which kernels before 6.12 ignore; "
        "leave out --sched-slice");
  CHECK(old.calls == std::vector<std::string>{"sched_support"});
  // A kernel that says it keeps the slice, and does not: the read back tells.
  FakeOs liar;
  liar.support = SchedSupport{true, true, "6.12.0"};
  liar.on_set_sched = [](affix::test::FakeSched& s, pid_t, const SchedAttr&, unsigned) { s.support.slice = false; };
  CHECK(failure(liar, "0", command(slice)) ==
        "cannot set slice 1ms: the kernel kept policy other, slice none | the command was not started");
  CHECK(liar.exec_calls.empty());

  FakeOs fifo_now;
  fifo_now.sched[0] = attr(SchedPolicy::Fifo, 0, 10);
  SchedRequest nice;
  nice.nice = 3;
  CHECK(failure(fifo_now, "0", command(nice)) ==
        "cannot set nice 3: it runs under fifo, which has no nice value; --nice and --sched-slice apply to the other "
        "and batch policies | add --policy other (or batch) to change the policy too");
}

TEST_CASE("run --dry-run: the order of the calls, and the refusal the real run would meet") {
  FakeOs os;
  std::ostringstream out, err;
  SchedRequest r;
  r.policy = PolicyRequest{SchedPolicy::Batch};
  r.nice = 5;
  CHECK(launch(os, affix::test::placement_of("0-1"), command(r, true), out, err) == 0);
  CHECK(out.str() == "affix: would set policy batch, nice 5\n"
                     "affix: would bind to CPUs 0-1 (2 CPUs; socket 0; node 0)\n"
                     "affix: would exec: server\n");
  CHECK(os.set_sched_calls.empty());
  CHECK(os.set_affinity_calls.empty());

  FakeOs narrow;
  narrow.root_domain = set_of("0-1");
  std::ostringstream out2, err2;
  try {
    launch(narrow, affix::test::placement_of("1"), command(deadline(), true), out2, err2);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "cannot set policy deadline:2ms/10ms/10ms: a SCHED_DEADLINE thread must be allowed "
                                   "every CPU of its root domain (0-1), and CPUs 1 are not all of it");
  }
  // The lines first: what the real run would do, up to where it would fail.
  CHECK(out2.str() == "affix: would bind to CPUs 1 (1 CPU; socket 0; node 0)\n"
                      "affix: would set policy deadline:2ms/10ms/10ms (then the command cannot create threads or "
                      "processes: the kernel refuses clone to a deadline thread)\n"
                      "affix: would exec: server\n");
  CHECK(narrow.set_sched_calls.empty());
}

TEST_CASE("run without a scheduling option reads nothing of it") {
  FakeOs os;
  std::ostringstream out, err;
  CHECK(launch(os, affix::test::placement_of("0"), command({}), out, err) == 0);
  CHECK(os.calls == std::vector<std::string>{"set_affinity", "exec"});
}
