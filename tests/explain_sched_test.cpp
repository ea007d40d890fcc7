// explain with the scheduling options (explain_sched.hpp): its "sched" line
// and JSON object, systemd's lines, and what each launcher's lines leave
// out, said on stderr.
#include <catch2/catch.hpp>

#include "explain_output.hpp"
#include "explain_sched.hpp"
#include "fixtures.hpp"

using namespace affix;
using affix::test::placement_of;

namespace {

constexpr uint64_t k_ms = 1000000;

Allowed allowed() {
  Allowed a;
  a.cpus = affix::test::set_of("0-3");
  a.mems = affix::test::set_of("0");
  a.source = "all-online";
  return a;
}

SchedRequest request(SchedPolicy p, unsigned priority = 0) {
  SchedRequest r;
  r.policy = PolicyRequest{p, priority};
  return r;
}

SchedRequest deadline() {
  SchedRequest r;
  r.policy = PolicyRequest{SchedPolicy::Deadline, 0, 2 * k_ms, 10 * k_ms, 10 * k_ms};
  return r;
}

}  // namespace

TEST_CASE("explain: a sched line after memory, only with a scheduling option") {
  SchedRequest r = request(SchedPolicy::Batch);
  r.nice = 5;
  CHECK(explain_text(placement_of("0-1"), allowed(), {}, r) ==
        "cpus      0-1 (2 CPUs)\n"
        "sockets   0\n"
        "nodes     0\n"
        "allowed   CPUs 0-3, nodes 0 (from all-online)\n"
        "memory    policy unchanged (no --mem)\n"
        "sched     policy batch, nice 5\n");
  CHECK(explain_text(placement_of("0-1"), allowed(), {}).find("sched") == std::string::npos);
  CHECK(explain_sched_line(deadline()) ==
        "policy deadline:2ms/10ms/10ms (set after the CPUs: the kernel admits a deadline thread only where it may run "
        "on every CPU of its root domain; it cannot create threads or processes)");
}

TEST_CASE("explain --json: a sched object, only with a scheduling option") {
  SchedRequest r = request(SchedPolicy::Fifo, 50);
  r.util_min = 128;
  r.util_max = 1024;
  std::string json = explain_json(placement_of("0-1"), allowed(), {}, r);
  CHECK(json.find("\"mem\": null, \"sched\": {\"policy\": \"fifo\", \"priority\": 50, \"runtime_ns\": null, "
                  "\"deadline_ns\": null, \"period_ns\": null, \"nice\": null, \"slice_ns\": null, \"uclamp\": "
                  "{\"min\": 128, \"max\": 1024}, \"cpus_first\": false}, \"dropped\": []") != std::string::npos);
  json = explain_json(placement_of("0-1"), allowed(), {}, deadline());
  CHECK(json.find("\"sched\": {\"policy\": \"deadline\", \"priority\": null, \"runtime_ns\": 2000000, "
                  "\"deadline_ns\": 10000000, \"period_ns\": 10000000, \"nice\": null, \"slice_ns\": null, \"uclamp\": "
                  "null, \"cpus_first\": true}") != std::string::npos);
  CHECK(explain_json(placement_of("0-1"), allowed(), {}).find("sched") == std::string::npos);
}

TEST_CASE("explain --as systemd: CPUSchedulingPolicy=, CPUSchedulingPriority=, Nice=") {
  auto p = placement_of("0-1", MemPolicy::Bind, "0");
  CHECK(explain_as(p, AsFormat::Systemd, 1, request(SchedPolicy::RR, 20)) ==
        "CPUAffinity=0-1\nNUMAPolicy=bind\nNUMAMask=0\nCPUSchedulingPolicy=rr\nCPUSchedulingPriority=20\n");
  SchedRequest r = request(SchedPolicy::Batch);
  r.nice = -3;
  CHECK(explain_as(p, AsFormat::Systemd, 1, r) ==
        "CPUAffinity=0-1\nNUMAPolicy=bind\nNUMAMask=0\nCPUSchedulingPolicy=batch\nNice=-3\n");
  SchedRequest nice;
  nice.nice = 7;
  CHECK(explain_as(placement_of("2"), AsFormat::Systemd, 1, nice) == "CPUAffinity=2\nNice=7\n");
  CHECK(explain_as_warnings(p, AsFormat::Systemd, 1, r).empty());
  CHECK(explain_as(placement_of("2"), AsFormat::Systemd, 1, request(SchedPolicy::Idle)) ==
        "CPUAffinity=2\nCPUSchedulingPolicy=idle\n");
}

TEST_CASE("explain --as: what the lines cannot say, on stderr") {
  auto p = placement_of("0-1");
  CHECK(explain_as(p, AsFormat::Systemd, 1, deadline()) == "CPUAffinity=0-1\n");
  CHECK(explain_as_warnings(p, AsFormat::Systemd, 1, deadline()) ==
        std::vector<std::string>{"systemd has no CPUSchedulingPolicy=deadline: these lines leave out policy "
                                 "deadline:2ms/10ms/10ms; start the service under 'affix --policy deadline:... WHERE "
                                 "COMMAND' (ExecStart=)"});
  SchedRequest r = request(SchedPolicy::Other);
  r.slice_ns = 3 * k_ms;
  r.util_min = 0;
  r.util_max = 512;
  CHECK(explain_as(p, AsFormat::Systemd, 1, r) == "CPUAffinity=0-1\nCPUSchedulingPolicy=other\n");
  CHECK(explain_as_warnings(p, AsFormat::Systemd, 1, r) ==
        std::vector<std::string>{
            "systemd has no setting for the EEVDF slice: these lines leave out --sched-slice 3ms "
            "(sched_attr.sched_runtime); start the service under 'affix --sched-slice ...' (ExecStart=)",
            "systemd has no setting for a thread's utilization clamps: these lines leave out --uclamp 0:512 "
            "(CPUQuota= and CPUWeight= are other things)"});
  CHECK(explain_as(p, AsFormat::Taskset, 1, request(SchedPolicy::Fifo, 5)) == "taskset -c 0-1\n");
  CHECK(explain_as_warnings(p, AsFormat::Taskset, 1, request(SchedPolicy::Fifo, 5)) ==
        std::vector<std::string>{"taskset cannot set a scheduling policy: these lines leave out policy fifo:5; start "
                                 "the program under affix with the same options instead ('affix [OPTIONS] WHERE "
                                 "COMMAND')"});
  CHECK(explain_as_warnings(p, AsFormat::Docker, 1, {}).empty());
}
