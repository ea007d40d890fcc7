#include <catch2/catch.hpp>

#include "error.hpp"
#include "memnodes.hpp"
#include "resolver.hpp"
#include "topo_builder.hpp"

using namespace affix;
using namespace affix::test;

namespace {

// 2 sockets x 2 nodes x 2 cores: node n has CPUs 2n, 2n+1; distances 10 / 20
// (same socket) / 30.
Topology four_nodes() { return build(TopoSpec{2, 2, 2, 1, 1, Numbering::Linear, {}, true, {}}); }

Placement with_mem(const Topology& t, const std::string& where, MemRequest mem, const Allowed& a) {
  PlacementRequest r;
  r.where = where;
  r.mem = mem;
  return resolve(r, t, a, [](const std::string&) { return std::optional<std::string>(); });
}

std::string mem_error(const Topology& t, const std::string& where, MemRequest mem,
                      const Allowed& a, ErrorKind kind = ErrorKind::Resolution) {
  try {
    with_mem(t, where, mem, a);
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    return e.what();
  }
  return "no error";
}

// NODES of --mem POLICY:NODES, parsed as the command line parses them.
MemSelector nodes(const std::string& text) {
  auto parsed = parse_mem_selector(text);
  REQUIRE(parsed);
  return *parsed.value;
}

std::string mem_hint(const Topology& t, const std::string& where, MemRequest mem, const Allowed& a) {
  try {
    with_mem(t, where, mem, a);
  } catch (const Error& e) {
    return e.hint();
  }
  return "no error";
}

}  // namespace

TEST_CASE("memnodes: default nodes are the nodes of the selected CPUs") {
  auto t = four_nodes();
  auto p = with_mem(t, "cpu:1-2", MemRequest{MemPolicy::Bind, std::nullopt}, allow_all(t));
  REQUIRE(p.mem_policy.has_value());
  CHECK(*p.mem_policy == MemPolicy::Bind);
  CHECK(format_cpulist(p.mem_nodes) == "0-1");
  p = with_mem(t, "socket:1", MemRequest{MemPolicy::Interleave, std::nullopt}, allow_all(t));
  CHECK(format_cpulist(p.mem_nodes) == "2-3");
  CHECK(p.warnings.empty());
}

TEST_CASE("memnodes: a memoryless node stands for its nearest node with memory") {
  auto t = four_nodes();
  t.nodes[3].memory_total_kb = 0;
  auto p = with_mem(t, "node:3", MemRequest{MemPolicy::Preferred, std::nullopt}, allow_all(t));
  CHECK(format_cpulist(p.mem_nodes) == "2");
  CHECK(p.warnings == std::vector<std::string>{"memory nodes 2 differ from the CPUs' nodes 3"});
  // Ties go to the lowest node number.
  t.nodes[3].distances = {20, 20, 20, 10};
  p = with_mem(t, "node:3", MemRequest{MemPolicy::Bind, std::nullopt}, allow_all(t));
  CHECK(format_cpulist(p.mem_nodes) == "0");
  // By the memoryless node's own row, not the others'.
  t.nodes[3].distances = {40, 25, 30, 10};
  t.nodes[1].distances = {20, 10, 30, 90};
  p = with_mem(t, "node:3", MemRequest{MemPolicy::Bind, std::nullopt}, allow_all(t));
  CHECK(format_cpulist(p.mem_nodes) == "1");
  // Only allowed nodes count.
  auto a = allow_all(t);
  a.mems.reset(1);
  p = with_mem(t, "node:3", MemRequest{MemPolicy::Bind, std::nullopt}, a);
  CHECK(format_cpulist(p.mem_nodes) == "2");
  // Unknown memory size counts as memory.
  t.nodes[3].memory_total_kb = std::nullopt;
  p = with_mem(t, "node:3", MemRequest{MemPolicy::Bind, std::nullopt}, allow_all(t));
  CHECK(format_cpulist(p.mem_nodes) == "3");
}

TEST_CASE("memnodes: default nodes keep only allowed memory nodes") {
  auto t = four_nodes();
  auto a = allow_all(t);
  a.mems = CpuSet::range(0, 0);
  auto p = with_mem(t, "node:0-1", MemRequest{MemPolicy::Bind, std::nullopt}, a);
  CHECK(format_cpulist(p.mem_nodes) == "0");
  a.mems = CpuSet::range(3, 3);
  a.mems_source = "cgroup2:/sys/fs/cgroup/j/cpuset.mems.effective";
  for (auto& n : t.nodes) n.memory_total_kb = n.node == 3 ? 0 : 1024;
  CHECK(mem_error(t, "node:3", MemRequest{MemPolicy::Bind, std::nullopt}, a) ==
        "no allowed memory node for the CPUs' nodes 3 (allowed: 3, from "
        "cgroup2:/sys/fs/cgroup/j/cpuset.mems.effective)");
}

TEST_CASE("memnodes: explicit nodes must exist, have memory and be allowed") {
  auto t = four_nodes();
  auto a = allow_all(t);
  a.mems = CpuSet::range(0, 2);
  // The refusal names the file the memory nodes came from, not the CPUs'.
  a.source = "cgroup1:/sys/fs/cgroup/cpuset/x/cpuset.effective_cpus";
  a.mems_source = "cgroup1:/sys/fs/cgroup/cpuset/x/cpuset.effective_mems";
  auto p = with_mem(t, "node:0", MemRequest{MemPolicy::Interleave, nodes("0-2")}, a);
  CHECK(format_cpulist(p.mem_nodes) == "0-2");
  CHECK(mem_error(t, "node:0", MemRequest{MemPolicy::Bind, nodes("9")}, a) ==
        "no node 9 on this machine (nodes: 0-3)");
  CHECK(mem_error(t, "node:0", MemRequest{MemPolicy::Bind, nodes("1,3")}, a) ==
        "memory node 3 is not allowed (allowed: 0-2, from "
        "cgroup1:/sys/fs/cgroup/cpuset/x/cpuset.effective_mems)");
  // A memoryless node (MemTotal 0 kB) says so, and names the nearest node
  // with memory by its distance row; a node of unknown size counts as memory.
  t.nodes[1].memory_total_kb = 0;
  t.nodes[1].distances = {20, 10, 15, 90};
  CHECK(mem_error(t, "node:0", MemRequest{MemPolicy::Bind, nodes("1")}, a) == "node 1 has no memory");
  CHECK(mem_hint(t, "node:0", MemRequest{MemPolicy::Bind, nodes("1")}, a) ==
        "the nearest node with memory is 2");
  CHECK(mem_error(t, "node:0", MemRequest{MemPolicy::Interleave, nodes("0-1")}, a) ==
        "node 1 has no memory");
  t.nodes[1].memory_total_kb = std::nullopt;
  CHECK(format_cpulist(with_mem(t, "node:0", MemRequest{MemPolicy::Bind, nodes("1")}, a).mem_nodes) ==
        "1");
}

TEST_CASE("memnodes: local has no nodes") {
  auto t = four_nodes();
  auto p = with_mem(t, "node:1", MemRequest{MemPolicy::Local, std::nullopt}, allow_all(t));
  CHECK(*p.mem_policy == MemPolicy::Local);
  CHECK(p.mem_nodes.empty());
  CHECK(p.warnings.empty());
  CHECK(mem_error(t, "node:1", MemRequest{MemPolicy::Local, nodes("0")}, allow_all(t),
                  ErrorKind::Usage) == "--mem local:0: local takes no nodes");
}

