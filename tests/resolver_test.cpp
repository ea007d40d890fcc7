#include <catch2/catch.hpp>

#include <map>

#include "error.hpp"
#include "fixtures.hpp"
#include "resolver.hpp"
#include "topo_builder.hpp"

using namespace affix;
using affix::test::env_of;
using namespace affix::test;

namespace {

PlacementRequest req(const std::string& where) {
  PlacementRequest r;
  r.where = where;
  return r;
}

Placement resolve_on(const Topology& t, const PlacementRequest& r, const Allowed& a,
                     const EnvLookup& env = env_of({})) {
  return resolve(r, t, a, env);
}

std::string cpus_of(const Topology& t, const std::string& where) {
  return format_cpulist(resolve_on(t, req(where), allow_all(t)).cpus);
}

std::string error_of(const Topology& t, const PlacementRequest& r, const Allowed& a,
                     ErrorKind kind = ErrorKind::Resolution, const EnvLookup& env = env_of({})) {
  try {
    resolve(r, t, a, env);
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    return e.what();
  }
  return "no error";
}

std::string hint_of(const Topology& t, const PlacementRequest& r, const Allowed& a) {
  try {
    resolve(r, t, a, env_of({}));
  } catch (const Error& e) {
    return e.hint();
  }
  return "no error";
}

std::string dropped(const Placement& p) {
  std::string out;
  for (const auto& d : p.dropped) out += (out.empty() ? "" : " ") + d.reason + ":" + format_cpulist(d.cpus);
  return out;
}

// 2 sockets, 1 node each, 4 cores per socket, 2 threads per core, Intel
// numbering: core k has CPUs k and k+8.
Topology two_sockets() { return build(TopoSpec{2, 1, 4, 2, 1, Numbering::Linear, {}, true, {}}); }

}  // namespace

TEST_CASE("resolver: first steps take kernel numbers and machine-wide indexes") {
  auto t = two_sockets();
  CHECK(cpus_of(t, "socket:1") == "4-7,12-15");
  CHECK(cpus_of(t, "package:0") == "0-3,8-11");
  CHECK(cpus_of(t, "node:1") == "4-7,12-15");
  CHECK(cpus_of(t, "numa:0,1") == "0-15");
  CHECK(cpus_of(t, "die:1") == "4-7,12-15");
  CHECK(cpus_of(t, "llc:0") == "0-3,8-11");
  CHECK(cpus_of(t, "core:0-3") == "0-3,8-11");
  CHECK(cpus_of(t, "core:5") == "5,13");
  CHECK(cpus_of(t, "core:0-7:3") == "0,3,6,8,11,14");
  CHECK(cpus_of(t, "cpu:0-15:4") == "0,4,8,12");
  CHECK(cpus_of(t, "3,9-10") == "3,9-10");
  CHECK(cpus_of(t, "all") == "0-15");
  CHECK(cpus_of(t, "cpu:all") == "0-15");
  CHECK(cpus_of(t, "socket:all") == "0-15");
  CHECK(cpus_of(t, "socket:0+core:7+15") == "0-3,7-11,15");
}

TEST_CASE("resolver: later steps index among the children of the step before") {
  auto t = two_sockets();
  CHECK(cpus_of(t, "socket:1.core:0-1") == "4-5,12-13");
  CHECK(cpus_of(t, "core:5.cpu:1") == "13");
  CHECK(cpus_of(t, "core:5.thread:0") == "5");
  CHECK(cpus_of(t, "node:0.cpu:0-3") == "0-1,8-9");
  CHECK(cpus_of(t, "socket:1.cpu:all") == "4-7,12-15");
  CHECK(cpus_of(t, "socket:1.core:all.cpu:0") == "4-7");
  CHECK(cpus_of(t, "socket:1.core:3.cpu:1") == "15");
  CHECK(cpus_of(t, "core:3.socket:0") == "3,11");
  // Each unit of a step is narrowed on its own (as hwloc does).
  CHECK(cpus_of(t, "socket:all.core:0") == "0,4,8,12");
  CHECK(cpus_of(t, "socket:0-1.core:1-2.cpu:1") == "9-10,13-14");
  CHECK(error_of(t, req("socket:0-1.core:1.cpu:2"), allow_all(t)) ==
        "no cpu 2 in socket:0.core:1 (cpus: 0-1)");
  CHECK(cpus_of(t, "socket:0.core:1-3:2+socket:1.core:0") == "1,3-4,9,11-12");
}

TEST_CASE("resolver: alternate numbering across sockets keeps the tree order") {
  // cpu = thread*8 + core_in_socket*2 + socket.
  auto t = build(TopoSpec{2, 1, 4, 2, 1, Numbering::Alternate, {}, true, {}});
  CHECK(cpus_of(t, "socket:0") == "0,2,4,6,8,10,12,14");
  CHECK(cpus_of(t, "core:0-3") == "0,2,4,6,8,10,12,14");
  CHECK(cpus_of(t, "node:0.cpu:0-3") == "0,2,8,10");
  CHECK(cpus_of(t, "socket:1.core:1") == "3,11");
  auto p = resolve_on(t, req("socket:1"), allow_all(t));
  CHECK(p.sequence == std::vector<unsigned>{1, 3, 5, 7, 9, 11, 13, 15});
}

TEST_CASE("resolver: llc domains, several per node") {
  auto t = build(TopoSpec{2, 2, 4, 1, 2, Numbering::Packed, {}, true, {}});
  // 2 sockets x 2 nodes x 4 cores, 2 llcs of 2 cores per node: llc k = CPUs 2k, 2k+1.
  CHECK(cpus_of(t, "llc:3") == "6-7");
  CHECK(cpus_of(t, "node:1.llc:1") == "6-7");
  CHECK(cpus_of(t, "socket:1.llc:0-1") == "8-11");
  CHECK(cpus_of(t, "socket:1.node:1.core:3") == "15");
  CHECK(cpus_of(t, "l3:all.core:0") == "0,2,4,6,8,10,12,14");
}

TEST_CASE("resolver: units that do not exist are errors that say what exists") {
  auto t = two_sockets();
  auto a = allow_all(t);
  CHECK(error_of(t, req("socket:7"), a) == "no socket 7 on this machine (sockets: 0-1)");
  CHECK(error_of(t, req("socket:0-2"), a) == "no socket 2 on this machine (sockets: 0-1)");
  CHECK(error_of(t, req("node:5"), a) == "no node 5 on this machine (nodes: 0-1)");
  CHECK(error_of(t, req("core:8"), a) == "no core 8 on this machine (cores: 0-7)");
  CHECK(error_of(t, req("llc:2"), a) == "no llc 2 on this machine (llcs: 0-1)");
  CHECK(error_of(t, req("die:9"), a) == "no die 9 on this machine (dies: 0-1)");
  CHECK(error_of(t, req("cpu:99"), a) == "no cpu 99 on this machine (cpus: 0-15)");
  CHECK(error_of(t, req("16"), a) == "no cpu 16 on this machine (cpus: 0-15)");
  CHECK(error_of(t, req("socket:1.core:4"), a) == "no core 4 in socket:1 (cores: 0-3)");
  CHECK(error_of(t, req("core:2.cpu:2"), a) == "no cpu 2 in core:2 (cpus: 0-1)");
  CHECK(error_of(t, req("socket:0.core:0.cpu:0.core:1"), a) ==
        "no core 1 in socket:0.core:0.cpu:0 (cores: 0)");
  CHECK(error_of(t, req("socket:0+socket:9"), a) == "no socket 9 on this machine (sockets: 0-1)");
  CHECK(error_of(t, req("socket:1-0"), a, ErrorKind::Spec) ==
        "invalid location 'socket:1-0': reversed range\n  socket:1-0\n           ^");
}

TEST_CASE("resolver: CPUs named by number must be online and allowed") {
  auto t = build(TopoSpec{2, 1, 4, 2, 1, Numbering::Linear, {5, 13}, true, {}});
  auto a = allow_all(t);
  a.cpus -= CpuSet::range(2, 3);
  a.source = "cgroup1:/sys/fs/cgroup/cpuset/job/cpuset.effective_cpus";
  CHECK(error_of(t, req("cpu:5"), a) == "CPU 5 is offline");
  CHECK(error_of(t, req("4-6"), a) == "CPU 5 is offline");
  CHECK(error_of(t, req("cpu:3"), a) ==
        "CPU 3 is not allowed (allowed: 0-1,4,6-12,14-15, from "
        "cgroup1:/sys/fs/cgroup/cpuset/job/cpuset.effective_cpus)");
  // A cpu index in a later step is not a CPU number: it is intersected.
  auto later = resolve_on(t, req("socket:0.cpu:4-7"), a);
  CHECK(format_cpulist(later.cpus) == "10-11");
  CHECK(dropped(later) == "not-allowed:2-3");
  CHECK(error_of(t, req("socket:0.cpu:6"), a) ==
        "'socket:0.cpu:6' selects no CPU that is online and allowed (allowed: 0-1,4,6-12,14-15, "
        "from cgroup1:/sys/fs/cgroup/cpuset/job/cpuset.effective_cpus)");
  // Larger units and `all` are intersected, and say what they dropped.
  auto p = resolve_on(t, req("socket:0+socket:1"), a);
  CHECK(format_cpulist(p.cpus) == "0-1,4,6-12,14-15");
  CHECK(dropped(p) == "offline:5,13 not-allowed:2-3");
  auto q = resolve_on(t, req("all"), a);
  CHECK(format_cpulist(q.cpus) == "0-1,4,6-12,14-15");
  CHECK(dropped(q) == "offline:5,13 not-allowed:2-3");
  // An offline core is not counted among the children of socket 1.
  CHECK(cpus_of(t, "socket:1.core:1") == "6,14");
  auto r = resolve_on(t, req("core:1"), a);
  CHECK(dropped(r) == "");
}

TEST_CASE("resolver: an offline CPU inside a nested step is said to be offline") {
  // Core 5 is CPUs 5 and 13; 13 is offline (its place known).
  auto t = build(TopoSpec{2, 1, 4, 2, 1, Numbering::Linear, {13}, true, {}});
  auto a = allow_all(t);
  CHECK(cpus_of(t, "core:5.cpu:0") == "5");
  CHECK(error_of(t, req("core:5.cpu:1"), a) == "no cpu 1 in core:5 (cpus: 0); CPU 13 of core:5 is offline");
  CHECK(error_of(t, req("socket:1.core:1.cpu:1"), a) ==
        "no cpu 1 in socket:1.core:1 (cpus: 0); CPU 13 of socket:1.core:1 is offline");
  // A whole core offline: not among socket 1's cores, and said so.
  auto u = build(TopoSpec{2, 1, 4, 2, 1, Numbering::Linear, {5, 13}, true, {}});
  CHECK(error_of(u, req("socket:1.core:3"), allow_all(u)) ==
        "no core 3 in socket:1 (cores: 0-2); CPUs 5,13 of socket:1 are offline");
  // Offline CPUs whose place is unknown may be what is missing: said too.
  auto v = build(TopoSpec{2, 1, 4, 2, 1, Numbering::Linear, {13}, false, {}});
  CHECK(error_of(v, req("core:5.cpu:1"), allow_all(v)) ==
        "no cpu 1 in core:5 (cpus: 0); CPU 13 is offline, and the kernel no longer says where it belongs");
  // Where nothing is offline, only what is missing.
  CHECK(error_of(u, req("socket:0.core:4"), allow_all(u)) == "no core 4 in socket:0 (cores: 0-3)");
}

TEST_CASE("resolver: offline CPUs whose place is unknown are left out of the dropped list") {
  auto t = build(TopoSpec{1, 1, 4, 1, 1, Numbering::Linear, {2}, false, {}});
  auto p = resolve_on(t, req("all"), allow_all(t));
  CHECK(format_cpulist(p.cpus) == "0-1,3");
  CHECK(dropped(p) == "");
  auto q = resolve_on(t, req("socket:0"), allow_all(t));
  CHECK(dropped(q) == "");
  CHECK(error_of(t, req("cpu:2"), allow_all(t)) == "CPU 2 is offline");
}

TEST_CASE("resolver: empty selections are errors") {
  auto t = two_sockets();
  auto a = allow_all(t);
  a.cpus = CpuSet::range(0, 1);
  a.source = "status:/proc/self/status";
  CHECK(error_of(t, req("socket:1"), a) ==
        "'socket:1' selects no CPU that is online and allowed (allowed: 0-1, from "
        "status:/proc/self/status)");
  CHECK(error_of(t, req("socket:1.core:all"), a) ==
        "'socket:1.core:all' selects no CPU that is online and allowed (allowed: 0-1, from "
        "status:/proc/self/status)");
  auto full = allow_all(t);
  PlacementRequest r = req("core:0");
  r.exclude = "cpu:0,8";
  CHECK(error_of(t, r, full) == "--exclude 'cpu:0,8' removes every CPU of 'core:0' (0,8)");
  // A node without CPUs exists but selects nothing: the error says why (not
  // "not allowed"), and a memory-only node's hint points at --mem.
  t.nodes.push_back(NodeInfo{2, {}, 1024, 1024, {30, 30, 10}});
  CHECK(error_of(t, req("node:2"), full) == "node 2 has no CPUs");
  CHECK(hint_of(t, req("node:2"), full) == "a node without CPUs only holds memory: '--mem bind:2' puts "
                                            "memory there, with CPUs from another node");
  t.nodes.push_back(NodeInfo{3, {}, 0, 0, {30, 30, 20, 10}});
  CHECK(error_of(t, req("node:2-3"), full) == "nodes 2-3 have no CPUs");
  CHECK(error_of(t, req("node:3"), full) == "node 3 has no CPUs");
  CHECK(hint_of(t, req("node:3"), full).empty());  // no memory either: nothing to suggest
  // Where CPUs were dropped as well, the empty selection is blamed on them.
  CHECK(error_of(t, req("node:2+socket:1"), a) ==
        "'node:2+socket:1' selects no CPU that is online and allowed (allowed: 0-1, from "
        "status:/proc/self/status)");
  CHECK(error_of(t, req("node:2.core:0"), full) == "no core 0 in node:2 (it has no cores)");
  CHECK(cpus_of(t, "node:1-2") == "4-7,12-15");
}

TEST_CASE("resolver: --exclude, --no-smt, --slice, --count apply in that order") {
  auto t = two_sockets();
  auto a = allow_all(t);
  PlacementRequest r = req("all");
  r.exclude = "core:0";
  r.no_smt = true;
  r.slice = SliceRequest{false, 1, 2};
  r.count = 2;
  auto p = resolve_on(t, r, a);
  // all minus core 0 -> cores 1-7; one thread each -> 1-7; slice 1/2 of 7 cores
  // (4+3) -> cores 5-7; count 2 -> 5,6.
  CHECK(format_cpulist(p.cpus) == "5-6");
  CHECK(p.sequence == std::vector<unsigned>{5, 6});
  CHECK(dropped(p) == "excluded:0,8 smt:9-15 slice:1-4 count:7");
}

TEST_CASE("resolver: --exclude is lenient about what it names, strict about what exists") {
  auto t = build(TopoSpec{1, 1, 4, 2, 1, Numbering::Linear, {7}, true, {}});
  auto a = allow_all(t);
  a.cpus.reset(6);
  PlacementRequest r = req("all");
  r.exclude = "6-7+core:0";
  auto p = resolve_on(t, r, a);
  CHECK(format_cpulist(p.cpus) == "1-3,5");
  CHECK(dropped(p) == "offline:7 not-allowed:6 excluded:0,4");
  r.exclude = "socket:3";
  CHECK(error_of(t, r, a) == "no socket 3 on this machine (sockets: 0)");
  r.exclude = "socket:";
  CHECK(error_of(t, r, a, ErrorKind::Spec) ==
        "invalid location 'socket:': missing number\n  socket:\n         ^");
}

TEST_CASE("resolver: --no-smt keeps the lowest selected CPU of each core") {
  auto t = two_sockets();
  PlacementRequest r = req("socket:0");
  r.no_smt = true;
  auto p = resolve_on(t, r, allow_all(t));
  CHECK(format_cpulist(p.cpus) == "0-3");
  CHECK(dropped(p) == "smt:8-11");
  r.where = "cpu:8,1,9";
  CHECK(format_cpulist(resolve_on(t, r, allow_all(t)).cpus) == "1,8");
}

TEST_CASE("resolver: --count in compact and scatter order") {
  auto t = two_sockets();
  auto a = allow_all(t);
  PlacementRequest r = req("all");
  auto p = resolve_on(t, r, a);
  CHECK(p.sequence == std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  r.count = 3;
  p = resolve_on(t, r, a);
  CHECK(format_cpulist(p.cpus) == "0-2");
  CHECK(dropped(p) == "count:3-15");
  r.count = 10;
  CHECK(format_cpulist(resolve_on(t, r, a).cpus) == "0-9");
  r.order = Order::Scatter;
  r.count = 4;
  p = resolve_on(t, r, a);
  CHECK(p.sequence == std::vector<unsigned>{0, 4, 1, 5});
  r.count = 10;
  p = resolve_on(t, r, a);
  CHECK(p.sequence == std::vector<unsigned>{0, 4, 1, 5, 2, 6, 3, 7, 8, 12});
  r.count = std::nullopt;
  p = resolve_on(t, r, a);
  CHECK(p.sequence == std::vector<unsigned>{0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15});
}

TEST_CASE("resolver: --count and --slice that cannot be met") {
  auto t = two_sockets();
  auto a = allow_all(t);
  PlacementRequest r = req("core:0-1");
  r.count = 5;
  CHECK(error_of(t, r, a) == "--count 5: the selection has only 4 CPUs (0-1,8-9)");
  r.count = 0;
  CHECK(error_of(t, r, a) == "--count 0: the count must be at least 1");
  r.count = std::nullopt;
  r.slice = SliceRequest{false, 0, 3};
  CHECK(error_of(t, r, a) == "--slice 0/3: the selection has 2 cores, fewer than 3 parts");
  r.slice = SliceRequest{false, 3, 3};
  CHECK(error_of(t, r, a) == "--slice 3/3: part 3 does not exist (parts are 0-2)");
  r.slice = SliceRequest{false, 0, 0};
  CHECK(error_of(t, r, a) == "--slice K/N: N must be at least 1");
  r.where = "core:0";
  r.slice = SliceRequest{false, 0, 2};
  CHECK(error_of(t, r, a) == "--slice 0/2: the selection has 1 core, fewer than 2 parts");
}

TEST_CASE("resolver: --slice K/N splits whole cores, the first C mod N parts one larger") {
  auto t = two_sockets();
  auto a = allow_all(t);
  PlacementRequest r = req("all");
  std::vector<std::string> parts;
  for (unsigned k = 0; k < 3; ++k) {
    r.slice = SliceRequest{false, k, 3};
    parts.push_back(format_cpulist(resolve_on(t, r, a).cpus));
  }
  CHECK(parts == std::vector<std::string>{"0-2,8-10", "3-5,11-13", "6-7,14-15"});
  r.slice = SliceRequest{false, 7, 8};
  CHECK(format_cpulist(resolve_on(t, r, a).cpus) == "7,15");
}

TEST_CASE("resolver: --slice rank reads the launcher's local rank and size") {
  auto t = two_sockets();
  auto a = allow_all(t);
  PlacementRequest r = req("all");
  r.slice = SliceRequest{true, 0, 1};
  auto ompi = env_of({{"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
  CHECK(format_cpulist(resolve_on(t, r, a, ompi).cpus) == "4-7,12-15");
  auto slurm = env_of({{"SLURM_LOCALID", "2"}, {"SLURM_STEP_TASKS_PER_NODE", "2(x3),4"},
                       {"SLURM_NODEID", "3"}});
  CHECK(format_cpulist(resolve_on(t, r, a, slurm).cpus) == "4-5,12-13");
  CHECK(error_of(t, r, a, ErrorKind::Resolution) ==
        "--slice rank: no launcher rank found (OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK, "
        "MPI_LOCALRANKID, PMI_LOCAL_RANK, SLURM_LOCALID, PMIX_LOCAL_RANK, PALS_LOCAL_RANKID, LOCAL_RANK are unset)");
}

TEST_CASE("resolver: sockets and nodes of the placement") {
  auto t = build(TopoSpec{2, 2, 2, 1, 1, Numbering::Linear, {}, true, {}});
  auto p = resolve_on(t, req("cpu:1-2"), allow_all(t));
  CHECK(format_cpulist(p.sockets) == "0");
  CHECK(format_cpulist(p.nodes) == "0-1");
  p = resolve_on(t, req("core:3-4"), allow_all(t));
  CHECK(format_cpulist(p.sockets) == "0-1");
  CHECK(format_cpulist(p.nodes) == "1-2");
  CHECK_FALSE(p.mem_policy.has_value());
  CHECK(p.mem_nodes.empty());
}

TEST_CASE("resolver: warnings") {
  auto t = build(TopoSpec{2, 2, 2, 1, 1, Numbering::Linear, {}, true, {6}});
  auto a = allow_all(t);
  // A span the user named is what they asked for: no warning.
  CHECK(resolve_on(t, req("cpu:3-4"), a).warnings.empty());
  CHECK(resolve_on(t, req("node:0+node:2"), a).warnings.empty());
  // A shape affix chose (--slice, --count) that spans units while it would fit in one.
  PlacementRequest sliced = req("all");
  sliced.slice = SliceRequest{false, 1, 3};  // cores 3-5 of 8
  CHECK(resolve_on(t, sliced, a).warnings ==
        std::vector<std::string>{"the selection spans sockets 0-1 while its 3 CPUs would fit in socket 0"});
  PlacementRequest counted = req("all");
  counted.exclude = "cpu:1-3";
  counted.count = 2;  // CPUs 0 and 4
  CHECK(resolve_on(t, counted, a).warnings == std::vector<std::string>{
                          "the selection spans sockets 0-1 while its 2 CPUs would fit in socket 0",
                          "the selection spans nodes 0,2 while its 2 CPUs would fit in node 0"});
  CHECK(resolve_on(t, req("all"), a).warnings ==
        std::vector<std::string>{"the selection includes isolated CPUs 6 (the scheduler does not "
                                 "balance load onto them)"});
  CHECK(resolve_on(t, req("node:0"), a).warnings.empty());
  PlacementRequest r = req("node:0");
  r.mem = MemRequest{MemPolicy::Bind, parse_mem_selector("1").value};
  CHECK(resolve_on(t, r, a).warnings ==
        std::vector<std::string>{"memory nodes 1 differ from the CPUs' nodes 0"});
  counted.order = Order::Scatter;  // scatter asks for the spread
  CHECK(resolve_on(t, counted, a).warnings.empty());
}

TEST_CASE("resolver: a 4096-CPU machine resolves every option without quadratic work") {
  // 8 sockets x 2 nodes x 128 cores x 2 threads.
  auto t = build(TopoSpec{8, 2, 128, 2, 1, Numbering::Linear, {}, true, {}});
  REQUIRE(t.online.count() == 4096);
  auto a = allow_all(t);
  PlacementRequest r = req("all");
  r.exclude = "core:0";
  r.no_smt = true;
  r.order = Order::Scatter;
  r.slice = SliceRequest{false, 2, 3};
  r.count = 100;
  r.mem = MemRequest{MemPolicy::Bind, std::nullopt};
  auto p = resolve_on(t, r, a);
  CHECK(p.cpus.count() == 100);
  CHECK(p.sequence.size() == 100);
  CHECK(resolve_on(t, req("cpu:all.core:0"), a).cpus.count() == 4096);
  CHECK(resolve_on(t, req("core:all.cpu:0"), a).cpus.count() == 2048);
  CHECK(resolve_on(t, req("cpu:0-4095"), a).cpus.count() == 4096);
  CHECK(format_cpulist(resolve_on(t, req("socket:all.node:1.core:127.cpu:1"), a).cpus) ==
        "2303,2559,2815,3071,3327,3583,3839,4095");
}

TEST_CASE("resolver: self is the inherited affinity within what is allowed") {
  auto t = two_sockets();  // CPUs 0-15; core k: k and k+8
  auto a = allow_all(t);
  CHECK(format_cpulist(resolve_on(t, req("self"), a).cpus) == "0-15");  // not known: all allowed
  a.inherited = set_of("1-2,9-10");
  CHECK(format_cpulist(resolve_on(t, req("self"), a).cpus) == "1-2,9-10");
  CHECK(format_cpulist(resolve_on(t, req("self.core:0"), a).cpus) == "1,9");
  CHECK(format_cpulist(resolve_on(t, req("self.core:1.cpu:1"), a).cpus) == "10");
  CHECK(format_cpulist(resolve_on(t, req("self+socket:1.core:0"), a).cpus) == "1-2,4,9-10,12");
  PlacementRequest sliced = req("self");
  sliced.slice = SliceRequest{false, 1, 2};
  CHECK(format_cpulist(resolve_on(t, sliced, a).cpus) == "2,10");
  // CPUs of self outside the cpuset do not count, and are dropped as not allowed.
  a.cpus = set_of("0-9");
  auto p = resolve_on(t, req("self"), a);
  CHECK(format_cpulist(p.cpus) == "1-2,9");
  CHECK(dropped(p) == "not-allowed:10");
  CHECK(error_of(t, req("self.core:2"), a) == "no core 2 in self (cores: 0-1)");
}

TEST_CASE("resolver: rule 5, the widening warning") {
  auto t = two_sockets();
  auto a = allow_all(t);
  a.inherited = set_of("1");  // taskset -c 1 affix ...
  auto p = resolve_on(t, req("0-1"), a);
  CHECK(p.widening == "CPUs 0 are outside the CPUs affix was started on (1); 'self' keeps to those");
  CHECK(p.warnings.back() == p.widening);
  p = resolve_on(t, req("all"), a);
  CHECK(p.widening == "CPUs 0,2-15 are outside the CPUs affix was started on (1); 'self' keeps to those");
  // Within self: no warning.
  CHECK(resolve_on(t, req("self"), a).widening.empty());
  CHECK(resolve_on(t, req("1"), a).widening.empty());
  CHECK(resolve_on(t, req("self"), a).warnings.empty());
  // Started on everything allowed (or unknown): never a warning.
  a.inherited = t.online;
  CHECK(resolve_on(t, req("all"), a).widening.empty());
  a.inherited.reset();
  CHECK(resolve_on(t, req("all"), a).warnings.empty());
  // Started on more than the cpuset allows: only the cpuset counts.
  a.cpus = set_of("0-3");
  a.inherited = set_of("2-15");
  CHECK(resolve_on(t, req("all"), a).widening ==
        "CPUs 0-1 are outside the CPUs affix was started on (2-3); 'self' keeps to those");
}

TEST_CASE("resolver: kind: in any step, kind 0 the most performant") {
  auto t = two_sockets();  // sockets 0 (0-3,8-11) and 1 (4-7,12-15)
  // Without kind information the machine has one kind: every CPU.
  CHECK(cpus_of(t, "kind:0") == "0-15");
  CHECK(cpus_of(t, "kind:performance") == "0-15");
  CHECK(cpus_of(t, "kind:efficiency") == "0-15");
  CHECK(cpus_of(t, "socket:1.kind:0") == "4-7,12-15");
  CHECK(error_of(t, req("kind:1"), allow_all(t)) ==
        "no kind 1 on this machine (its CPUs are all of one kind: kind:0)");
  // Three kinds: 0-1,8-9 (big), 2-3,10-11 and socket 1 (little).
  t.kinds = {set_of("0-1,8-9"), set_of("2-3,10-11"), set_of("4-7,12-15")};
  t.hybrid = true;
  CHECK(cpus_of(t, "kind:0") == "0-1,8-9");
  CHECK(cpus_of(t, "kind:performance") == "0-1,8-9");
  CHECK(cpus_of(t, "kind:1") == "2-3,10-11");
  CHECK(cpus_of(t, "kind:efficiency") == "4-7,12-15");
  CHECK(cpus_of(t, "kind:0-1") == "0-3,8-11");
  CHECK(cpus_of(t, "kind:all") == "0-15");
  CHECK(cpus_of(t, "kind:1.core:1") == "3,11");
  CHECK(cpus_of(t, "socket:0.kind:efficiency+socket:1.kind:efficiency") == "4-7,12-15");
  CHECK(cpus_of(t, "core:0-2.kind:1") == "2,10");
  CHECK(error_of(t, req("kind:3"), allow_all(t)) == "no kind 3 on this machine (kinds: 0-2)");
  CHECK(error_of(t, req("socket:0.kind:2"), allow_all(t)) ==
        "'socket:0.kind:2' selects no CPU that is online and allowed (allowed: 0-15, from all-online)");
  PlacementRequest r = req("all");
  r.exclude = "kind:efficiency";
  CHECK(format_cpulist(resolve_on(t, r, allow_all(t)).cpus) == "0-3,8-11");
}
