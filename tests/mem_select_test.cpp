// The nodes of --mem POLICY:NODES (mem_select.hpp): node lists, tier: and
// mem: terms joined with '+', parsed once; what each gives; weighted's
// default nodes; what explain says of them.
#include <catch2/catch.hpp>

#include "command_line.hpp"
#include "error.hpp"
#include "explain_output.hpp"
#include "fixtures.hpp"
#include "launch_env.hpp"
#include "mem_select.hpp"
#include "memory_text.hpp"
#include "memory_root.hpp"
#include "resolver.hpp"

using namespace affix;
using namespace affix::test;

namespace {

Topology machine(const TempRoot& root) { return read_topology(SysRoot(root.path())); }

Allowed allow_all(const Topology& t) {
  Allowed a;
  a.cpus = t.online;
  a.mems = t.node_set();
  a.source = a.mems_source = "all-online";
  return a;
}

Placement resolve_mem(const Topology& t, const std::string& where, const std::string& mem,
                      const std::optional<Allowed>& allowed = std::nullopt) {
  PlacementRequest r;
  r.where = where;
  r.mem = parse_mem_option(mem);
  return resolve(r, t, allowed.value_or(allow_all(t)), env_of({}));
}

std::string mem_error(const Topology& t, const std::string& mem, const std::optional<Allowed>& allowed = std::nullopt) {
  try {
    resolve_mem(t, "0", mem, allowed);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string parse_error(const std::string& text) {
  auto parsed = parse_mem_selector(text);
  return parsed ? "no error" : parsed.error.message;
}

}  // namespace

TEST_CASE("memory selectors: terms joined with '+', parsed once") {
  auto parsed = parse_mem_selector("0,2+tier:4-5+mem:cxl");
  REQUIRE(parsed);
  const MemSelector& s = *parsed.value;
  REQUIRE(s.terms.size() == 3);
  CHECK(s.terms[0].type == MemTerm::Type::Nodes);
  CHECK(format_cpulist(s.terms[0].ids) == "0,2");
  CHECK(s.terms[1].type == MemTerm::Type::Tier);
  CHECK(format_cpulist(s.terms[1].ids) == "4-5");
  CHECK(s.terms[2].type == MemTerm::Type::Kind);
  CHECK(s.terms[2].kind == "cxl");
  CHECK(s.needs_tiers());
  CHECK(!parse_mem_selector("0-1").value->needs_tiers());
  CHECK(parse_error("mem:fast") == "unknown memory kind 'fast' (expected hbm, dram, cxl, nvm or gpu)");
  CHECK(parse_error("tier:x") == "bad tier list: unexpected 'x' at offset 0");
  CHECK(parse_error("0+") == "missing nodes after '+'");
  CHECK(parse_error("+0") == "missing nodes before '+'");
  CHECK(parse_error("") == "bad node list: empty list at offset 0");
  try {
    parse_mem_option("weighted:tier:");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "invalid --mem 'weighted:tier:': bad tier list: empty list at offset 0");
  }
}

TEST_CASE("tier: names the kernel's tiers by their numbers") {
  TempRoot root;
  cxl_machine(root);
  Topology t = machine(root);
  Placement p = resolve_mem(t, "0", "bind:tier:16");
  CHECK(format_cpulist(p.mem_nodes) == "2");
  REQUIRE(p.mem_terms.size() == 1);
  CHECK(p.mem_terms[0].first == "tier:16");
  p = resolve_mem(t, "0", "interleave:0+tier:16");
  CHECK(format_cpulist(p.mem_nodes) == "0,2");
  CHECK(mem_error(t, "bind:tier:5") == "no memory tier 5 on this machine (tiers: 4,16)");
  Allowed a = allow_all(t);
  a.mems = *parse_cpulist("0-1").value;
  a.mems_source = "cgroup2:/sys/fs/cgroup/a/cpuset.mems.effective";
  CHECK(mem_error(t, "bind:tier:16", a) == "memory tier 16 has no node affix may use (its nodes: 2; allowed: 0-1, from "
                                          "cgroup2:/sys/fs/cgroup/a/cpuset.mems.effective)");
  root.remove("sys/devices/virtual/memory_tiering");
  CHECK(mem_error(machine(root), "bind:tier:4") ==
        "no memory tiers on this machine: the kernel lists none (Linux 6.1 and later list them in "
        "/sys/devices/virtual/memory_tiering)");
}

TEST_CASE("mem: names the nodes the machine says are of a kind") {
  TempRoot root;
  cxl_machine(root);
  Topology t = machine(root);
  CHECK(mem_error(t, "bind:mem:dram") == "the machine does not say which memory is dram: no node's kind is known");
  t.nodes[0].kind = t.nodes[1].kind = MemKind::Dram;
  t.nodes[2].kind = MemKind::CxlDram;
  Placement p = resolve_mem(t, "0", "weighted:mem:dram+mem:cxl");
  CHECK(format_cpulist(p.mem_nodes) == "0-2");
  CHECK(memory_policy_text(p) == "weighted interleave on nodes 0-2 (mem:dram: nodes 0-1, mem:cxl: node 2)");
  CHECK(mem_error(t, "bind:mem:hbm") == "no hbm memory on this machine (kinds: CXL-DRAM 2, DRAM 0-1)");
  Allowed a = allow_all(t);
  a.mems = *parse_cpulist("0-1").value;
  CHECK(mem_error(t, "bind:mem:cxl", a) == "no cxl memory that affix may use (nodes 2; allowed: 0-1, from all-online)");
}

TEST_CASE("weighted without nodes: the CPUs' nodes and the memory their CPUs are the initiators of") {
  TempRoot root;
  cxl_machine(root);
  Topology t = machine(root);
  Placement p = resolve_mem(t, "node:0", "weighted");
  CHECK(format_cpulist(p.mem_nodes) == "0,2");
  CHECK(p.warnings.empty());  // the CPU-less node is what weighted is for
  REQUIRE(p.weights);
  CHECK(p.weights->source == WeightSource::Kernel);
  p = resolve_mem(t, "node:1", "weighted");
  CHECK(format_cpulist(p.mem_nodes) == "1");  // node 2's initiators are node 0's CPUs
  // GPU memory is never a default.
  t.nodes[2].kind = MemKind::Gpu;
  CHECK(format_cpulist(resolve_mem(t, "node:0", "weighted").mem_nodes) == "0");
  // Named, it is warned of.
  p = resolve_mem(t, "node:0", "interleave:0,2");
  REQUIRE(p.warnings.size() == 2);
  CHECK(p.warnings[1] == "node 2 is GPU memory: the pages the policy puts there are across the bus from the CPUs");
}

TEST_CASE("explain names the selector's nodes and the weights") {
  TempRoot root;
  cxl_machine(root);
  Topology t = machine(root);
  PlacementRequest r;
  r.where = "node:0";
  r.mem = parse_mem_option("weighted:0+tier:16");
  r.weights = parse_weights_option("0=3,2=1");
  Allowed a = allow_all(t);
  Placement p = resolve(r, t, a, env_of({}));
  std::string text = explain_text(p, a, launch_env(p, env_of({})));
  CHECK(text.find("memory    weighted interleave on nodes 0,2 (0: node 0, tier:16: node 2)\n"
                  "weights   node 0: 3 (now 1), node 2: 1 (given with --weights)\n") != std::string::npos);
  std::string json = explain_json(p, a, launch_env(p, env_of({})));
  CHECK(json.find("\"mem\": {\"policy\": \"weighted\", \"nodes\": \"0,2\", \"terms\": [{\"term\": \"0\", \"nodes\": "
                  "\"0\"}, {\"term\": \"tier:16\", \"nodes\": \"2\"}], \"weights\": {\"source\": \"given\", "
                  "\"kernel_has_weights\": true, \"auto_mode\": null, \"turn_auto_on\": false, \"nodes\": [{\"node\": "
                  "0, \"now\": 1, \"weight\": 3, \"bandwidth_mbs\": null}, {\"node\": 2, \"now\": 1, \"weight\": 1, "
                  "\"bandwidth_mbs\": null}]}}") != std::string::npos);
  CHECK(explain_as(p, AsFormat::Numactl) == "numactl --physcpubind=0-1 --weighted-interleave=0,2\n");
  CHECK_THROWS_WITH(explain_as(p, AsFormat::Systemd), "systemd's NUMAPolicy= has no weighted interleave");
}
