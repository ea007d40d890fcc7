#include <catch2/catch.hpp>

#include "explain_output.hpp"

using namespace affix;

namespace {

CpuSet set_of(const char* list) { return *parse_cpulist(list).value; }

struct Sample {
  Placement placement;
  Allowed allowed;
  EnvVars env;
};

Sample sample() {
  Sample s;
  auto& p = s.placement;
  p.cpus = set_of("0-3");
  p.sequence = {0, 2, 1, 3};
  p.sockets = set_of("0");
  p.nodes = set_of("0-1");
  p.mem_policy = MemPolicy::Bind;
  p.mem_nodes = set_of("0-1");
  p.dropped = {{set_of("4-5"), "offline"}, {set_of("6"), "not-allowed"}};
  p.warnings = {"the selection spans 2 nodes while it fits in one"};
  s.allowed.cpus = set_of("0-3,6-7");
  s.allowed.mems = set_of("0-1");
  s.allowed.source = "cgroup1:/sys/fs/cgroup/cpuset/cpuset.effective_cpus";
  s.env = {{"AFFIX_CPUS", "0-3"}, {"OMP_PLACES", "{0},{2},{1},{3}"}};
  return s;
}

}  // namespace

TEST_CASE("explain text") {
  auto s = sample();
  CHECK(explain_text(s.placement, s.allowed, s.env) ==
        "cpus      0-3 (4 CPUs)\n"
        "order     0,2,1,3\n"
        "sockets   0\n"
        "nodes     0-1\n"
        "allowed   CPUs 0-3,6-7, nodes 0-1 (from cgroup1:/sys/fs/cgroup/cpuset/cpuset.effective_cpus)\n"
        "memory    bind on nodes 0-1\n"
        "dropped   4-5 offline\n"
        "          6 not-allowed\n"
        "env       AFFIX_CPUS=0-3\n"
        "          OMP_PLACES={0},{2},{1},{3}\n"
        "warning   the selection spans 2 nodes while it fits in one\n");

  s.placement.cpus = set_of("5");
  s.placement.sequence = {5};
  s.placement.mem_policy.reset();
  s.placement.dropped.clear();
  s.placement.warnings.clear();
  s.env.clear();
  CHECK(explain_text(s.placement, s.allowed, s.env) ==
        "cpus      5 (1 CPU)\n"
        "sockets   0\n"
        "nodes     0-1\n"
        "allowed   CPUs 0-3,6-7, nodes 0-1 (from cgroup1:/sys/fs/cgroup/cpuset/cpuset.effective_cpus)\n"
        "memory    policy unchanged (no --mem)\n");
  s.placement.mem_policy = MemPolicy::Local;
  CHECK(explain_text(s.placement, s.allowed, s.env).find("memory    local\n") != std::string::npos);
}

TEST_CASE("explain json has the contract's fields") {
  auto s = sample();
  CHECK(explain_json(s.placement, s.allowed, s.env) ==
        "{\"cpus\": \"0-3\", \"count\": 4, \"sequence\": [0, 2, 1, 3], \"sockets\": \"0\", "
        "\"nodes\": \"0-1\", \"allowed\": {\"cpus\": \"0-3,6-7\", \"nodes\": \"0-1\", "
        "\"source\": \"cgroup1:/sys/fs/cgroup/cpuset/cpuset.effective_cpus\"}, "
        "\"mem\": {\"policy\": \"bind\", \"nodes\": \"0-1\"}, "
        "\"dropped\": [{\"cpus\": \"4-5\", \"reason\": \"offline\"}, {\"cpus\": \"6\", \"reason\": \"not-allowed\"}], "
        "\"env\": {\"AFFIX_CPUS\": \"0-3\", \"OMP_PLACES\": \"{0},{2},{1},{3}\"}, "
        "\"warnings\": [\"the selection spans 2 nodes while it fits in one\"]}\n");

  s.placement.mem_policy.reset();
  s.placement.dropped.clear();
  s.placement.warnings.clear();
  s.env.clear();
  auto json = explain_json(s.placement, s.allowed, s.env);
  CHECK(json.find("\"mem\": null, \"dropped\": [], \"env\": {}, \"warnings\": []}") != std::string::npos);
}
