#include <catch2/catch.hpp>

#include "error.hpp"
#include "explain_output.hpp"

using namespace affix;

namespace {

CpuSet set_of(const char* list) { return *parse_cpulist(list).value; }

struct Sample {
  Placement placement;
  Allowed allowed;
  PlacementEnv env;
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
  s.env.exported = {{"AFFIX_CPUS", "0-3"}, {"OMP_PLACES", "{0},{2},{1},{3}"}};
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
  s.env = {};
  CHECK(explain_text(s.placement, s.allowed, s.env) ==
        "cpus      5 (1 CPU)\n"
        "sockets   0\n"
        "nodes     0-1\n"
        "allowed   CPUs 0-3,6-7, nodes 0-1 (from cgroup1:/sys/fs/cgroup/cpuset/cpuset.effective_cpus)\n"
        "memory    policy unchanged (no --mem)\n");
  s.placement.mem_policy = MemPolicy::Local;
  CHECK(explain_text(s.placement, s.allowed, s.env).find("memory    local\n") != std::string::npos);
}

TEST_CASE("explain json has the documented fields") {
  auto s = sample();
  CHECK(explain_json(s.placement, s.allowed, s.env) ==
        "{\"cpus\": \"0-3\", \"count\": 4, \"sequence\": [0, 2, 1, 3], \"sockets\": \"0\", "
        "\"nodes\": \"0-1\", \"allowed\": {\"cpus\": \"0-3,6-7\", \"nodes\": \"0-1\", "
        "\"source\": \"cgroup1:/sys/fs/cgroup/cpuset/cpuset.effective_cpus\"}, "
        "\"self\": \"0-3,6-7\", \"mem\": {\"policy\": \"bind\", \"nodes\": \"0-1\"}, "
        "\"dropped\": [{\"cpus\": \"4-5\", \"reason\": \"offline\"}, {\"cpus\": \"6\", \"reason\": \"not-allowed\"}], "
        "\"env\": {\"AFFIX_CPUS\": \"0-3\", \"OMP_PLACES\": \"{0},{2},{1},{3}\"}, \"env_kept\": {}, "
        "\"warnings\": [\"the selection spans 2 nodes while it fits in one\"]}\n");

  s.placement.mem_policy.reset();
  s.placement.dropped.clear();
  s.placement.warnings.clear();
  s.env = {};
  auto json = explain_json(s.placement, s.allowed, s.env);
  CHECK(json.find("\"mem\": null, \"dropped\": [], \"env\": {}, \"env_kept\": {}, \"warnings\": []}") !=
        std::string::npos);
}

TEST_CASE("explain: started on fewer CPUs than allowed, variables the user set") {
  auto s = sample();
  s.allowed.inherited = set_of("1,6-9");  // 8-9: outside the cpuset, not counted
  s.placement.widening = "CPUs 0,2-3 are outside the CPUs affix was started on (1,6-7); 'self' keeps to those";
  s.placement.warnings = {s.placement.widening};
  s.env.kept = {{"OMP_NUM_THREADS", "7"}, {"OMP_PROC_BIND", "a\nb"}};
  CHECK(explain_text(s.placement, s.allowed, s.env) ==
        "cpus      0-3 (4 CPUs)\n"
        "order     0,2,1,3\n"
        "sockets   0\n"
        "nodes     0-1\n"
        "allowed   CPUs 0-3,6-7, nodes 0-1 (from cgroup1:/sys/fs/cgroup/cpuset/cpuset.effective_cpus)\n"
        "self      CPUs 1,6-7 (affix was started on these)\n"
        "memory    bind on nodes 0-1\n"
        "dropped   4-5 offline\n"
        "          6 not-allowed\n"
        "env       AFFIX_CPUS=0-3\n"
        "          OMP_PLACES={0},{2},{1},{3}\n"
        "kept      OMP_NUM_THREADS=7 (set by the user)\n"
        "          OMP_PROC_BIND=a\\nb (set by the user)\n"
        "warning   CPUs 0,2-3 are outside the CPUs affix was started on (1,6-7); 'self' keeps to those\n");
  auto json = explain_json(s.placement, s.allowed, s.env);
  CHECK(json.find("\"self\": \"1,6-7\", \"mem\"") != std::string::npos);
  CHECK(json.find("\"env_kept\": {\"OMP_NUM_THREADS\": \"7\", \"OMP_PROC_BIND\": \"a\\nb\"}, "
                  "\"warnings\": [\"CPUs 0,2-3 are outside the CPUs affix was started on (1,6-7); 'self' "
                  "keeps to those\"]}") != std::string::npos);
  // Started on everything allowed: no self line.
  s.allowed.inherited = set_of("0-15");
  CHECK(explain_text(s.placement, s.allowed, s.env).find("\nself ") == std::string::npos);
}

TEST_CASE("explain --as: the placement in each launcher's words") {
  auto s = sample();  // CPUs 0-3 on nodes 0-1, --mem bind:0-1
  auto& p = s.placement;
  CHECK(explain_as(p, AsFormat::Systemd) == "CPUAffinity=0-3\nNUMAPolicy=bind\nNUMAMask=0-1\n");
  CHECK(explain_as(p, AsFormat::Docker) == "--cpuset-cpus=0-3\n--cpuset-mems=0-1\n");
  CHECK(explain_as(p, AsFormat::Taskset) == "taskset -c 0-3\n");
  CHECK(explain_as(p, AsFormat::Numactl) == "numactl --physcpubind=0-3 --membind=0-1\n");
  p.mem_policy = MemPolicy::Preferred;
  p.mem_nodes = set_of("1");
  CHECK(explain_as(p, AsFormat::Systemd) == "CPUAffinity=0-3\nNUMAPolicy=preferred\nNUMAMask=1\n");
  CHECK(explain_as(p, AsFormat::Docker) == "--cpuset-cpus=0-3\n--cpuset-mems=1\n");
  CHECK(explain_as(p, AsFormat::Numactl) == "numactl --physcpubind=0-3 --preferred=1\n");
  p.mem_nodes = set_of("0-1");
  CHECK(explain_as(p, AsFormat::Numactl) == "numactl --physcpubind=0-3 --preferred-many=0-1\n");
  p.mem_policy = MemPolicy::Interleave;
  CHECK(explain_as(p, AsFormat::Systemd) == "CPUAffinity=0-3\nNUMAPolicy=interleave\nNUMAMask=0-1\n");
  CHECK(explain_as(p, AsFormat::Numactl) == "numactl --physcpubind=0-3 --interleave=0-1\n");
  p.mem_policy = MemPolicy::Local;
  p.mem_nodes = {};
  CHECK(explain_as(p, AsFormat::Systemd) == "CPUAffinity=0-3\nNUMAPolicy=local\n");
  CHECK(explain_as(p, AsFormat::Docker) == "--cpuset-cpus=0-3\n--cpuset-mems=0-1\n");
  CHECK(explain_as(p, AsFormat::Numactl) == "numactl --physcpubind=0-3 --localalloc\n");
  // Without --mem: no memory lines; docker's memory nodes are the CPUs'.
  p.mem_policy.reset();
  p.cpus = set_of("1,5-6");
  p.nodes = set_of("0");
  CHECK(explain_as(p, AsFormat::Systemd) == "CPUAffinity=1,5-6\n");
  CHECK(explain_as(p, AsFormat::Docker) == "--cpuset-cpus=1,5-6\n--cpuset-mems=0\n");
  CHECK(explain_as(p, AsFormat::Taskset) == "taskset -c 1,5-6\n");
  CHECK(explain_as(p, AsFormat::Numactl) == "numactl --physcpubind=1,5-6\n");
}

TEST_CASE("explain --as nginx: a worker per CPU, in the sequence's order, one mask each") {
  Placement p;
  p.cpus = set_of("0-3");
  p.sequence = {0, 1, 2, 3};
  CHECK(explain_as(p, AsFormat::Nginx) == "worker_processes 4;\nworker_cpu_affinity 0001 0010 0100 1000;\n");
  // As wide as the highest CPU + 1, CPU 0 rightmost.
  p.cpus = set_of("0,2,5");
  p.sequence = {0, 2, 5};
  CHECK(explain_as(p, AsFormat::Nginx) == "worker_processes 3;\nworker_cpu_affinity 000001 000100 100000;\n");
  p.cpus = set_of("9");
  p.sequence = {9};
  CHECK(explain_as(p, AsFormat::Nginx) == "worker_processes 1;\nworker_cpu_affinity 1000000000;\n");
  // --spread=2: two consecutive workers on each CPU.
  p.cpus = set_of("0-1");
  p.sequence = {0, 1};
  CHECK(explain_as(p, AsFormat::Nginx, 2) == "worker_processes 4;\nworker_cpu_affinity 01 01 10 10;\n");
  CHECK(explain_as(p, AsFormat::Nginx, 1) == explain_as(p, AsFormat::Nginx));
  // --order scatter: worker k gets the k-th CPU of the sequence.
  p.cpus = set_of("0-3");
  p.sequence = {0, 2, 1, 3};
  CHECK(explain_as(p, AsFormat::Nginx) == "worker_processes 4;\nworker_cpu_affinity 0001 0100 0010 1000;\n");
  CHECK(explain_as(p, AsFormat::Nginx, 2) ==
        "worker_processes 8;\nworker_cpu_affinity 0001 0001 0100 0100 0010 0010 1000 1000;\n");
  // nginx takes no --mem: the lines are the same, a warning says so.
  CHECK(explain_as_warnings(p, AsFormat::Nginx).empty());
  p.mem_policy = MemPolicy::Bind;
  p.mem_nodes = set_of("0");
  CHECK(explain_as(p, AsFormat::Nginx) == "worker_processes 4;\nworker_cpu_affinity 0001 0100 0010 1000;\n");
  CHECK(explain_as_warnings(p, AsFormat::Nginx) ==
        std::vector<std::string>{"nginx has no memory policy directive: these lines leave --mem out; the workers "
                                 "inherit the master's policy, so start nginx under 'affix --mem ...' or "
                                 "systemd's NUMAPolicy="});
  CHECK(explain_as_warnings(p, AsFormat::Taskset).empty());
}

TEST_CASE("explain --as nginx: CPUs up to 1023, at most 1024 workers") {
  Placement p;
  p.sequence = {0, 1023};
  p.cpus = set_of("0,1023");
  std::string lines = explain_as(p, AsFormat::Nginx);
  CHECK(lines == "worker_processes 2;\nworker_cpu_affinity " + std::string(1023, '0') + "1 1" +
                     std::string(1023, '0') + ";\n");
  p.sequence = {0, 1024};
  p.cpus = set_of("0,1024");
  try {
    explain_as(p, AsFormat::Nginx);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Resolution);
    CHECK(std::string(e.what()) == "nginx's worker_cpu_affinity takes CPUs 0 to 1023 only: the selection has CPU 1024");
    CHECK(e.hint() == "its masks have at most 1024 digits (CPU_SETSIZE): leave out the CPUs from 1024 on (--exclude)");
  }
  // Other formats take CPU 1024.
  CHECK(explain_as(p, AsFormat::Taskset) == "taskset -c 0,1024\n");

  // 1024 workers start; a reload beside them would not.
  p.sequence = {0, 1};
  p.cpus = set_of("0-1");
  CHECK(explain_as(p, AsFormat::Nginx, 512).rfind("worker_processes 1024;\n", 0) == 0);
  CHECK(explain_as_warnings(p, AsFormat::Nginx, 256).empty());
  CHECK(explain_as_warnings(p, AsFormat::Nginx, 257) ==
        std::vector<std::string>{"514 workers: nginx runs at most 1024 processes and starts a reload's new workers "
                                 "before the old ones exit, so after 'nginx -s reload' only 510 would run"});
  try {
    explain_as(p, AsFormat::Nginx, 513);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Resolution);
    CHECK(std::string(e.what()) == "1026 workers are more than nginx runs: its master starts at most 1024 processes");
    CHECK(e.hint() == "take fewer CPUs (-n) or fewer workers per CPU (--spread=N)");
  }
  // --spread=N up to its limit: counted without overflow.
  CHECK_THROWS_WITH(explain_as(p, AsFormat::Nginx, 1u << 31),
                    "4294967296 workers are more than nginx runs: its master starts at most 1024 processes");
}
