// The memory of each node beyond its size (ReadScope::tiers): the kernel's
// memory tiers, HMAT figures, interleave weights; odd files leave one
// attribute out with a warning, never the machine.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "hmat.hpp"
#include "interleave_weights.hpp"
#include "memory_root.hpp"
#include "memory_tiers.hpp"
#include "topology.hpp"

using namespace affix;
using namespace affix::test;

namespace {

bool has_warning(const Topology& t, const std::string& text) {
  return std::any_of(t.warnings.begin(), t.warnings.end(), [&](const std::string& w) { return w == text; });
}

}  // namespace

TEST_CASE("memory tiers, HMAT figures and weights are read per node") {
  TempRoot root;
  cxl_machine(root);
  Topology t = read_topology(SysRoot(root.path()));
  CHECK(t.warnings.empty());
  CHECK(t.tiers_read);
  REQUIRE(t.tiers.size() == 2);
  CHECK(t.tiers[0].id == 4);
  CHECK(format_cpulist(t.tiers[0].nodes) == "0-1");
  CHECK(t.tiers[1].id == 16);
  CHECK(tiers_text(t.tiers) == "4 (nodes 0-1), 16 (node 2)");
  REQUIRE(t.nodes.size() == 3);
  CHECK(t.nodes[0].tier == 4u);
  CHECK(t.nodes[2].tier == 16u);
  const NodeHmat& h = t.nodes[2].hmat;
  CHECK(h.access == 1);
  CHECK(h.read_bandwidth == 10000u);
  CHECK(h.write_bandwidth == 8000u);
  CHECK(h.read_latency == 250u);
  CHECK(h.write_latency == 300u);
  CHECK(format_cpulist(h.initiators) == "0");
  CHECK(weight_bandwidth(h) == 8000u);
  CHECK(t.interleave.present);
  CHECK(t.interleave.weights == std::map<unsigned, unsigned>{{0, 1}, {1, 1}, {2, 1}});
  CHECK(!t.interleave.auto_mode);
  // Bandwidths within 2x of each other: hwloc names no kind.
  CHECK(t.nodes[2].kind == MemKind::Unknown);
}

TEST_CASE("access0 is read where there is no access1, and weights take the smaller of read and write") {
  TempRoot root;
  cxl_machine(root);
  root.remove("sys/devices/system/node/node2/access1");
  write_hmat(root, 2, 0, 9000, 7000, 300, 400, "1");
  Topology t = read_topology(SysRoot(root.path()));
  CHECK(t.nodes[2].hmat.access == 0);
  CHECK(format_cpulist(t.nodes[2].hmat.initiators) == "1");
  CHECK(weight_bandwidth(t.nodes[2].hmat) == 7000u);
  root.remove("sys/devices/system/node/node2/access0/initiators/write_bandwidth");
  Topology u = read_topology(SysRoot(root.path()));
  CHECK(u.warnings.empty());
  CHECK(u.nodes[2].hmat.read_bandwidth == 9000u);
  CHECK(!u.nodes[2].hmat.write_bandwidth);
  CHECK(!weight_bandwidth(u.nodes[2].hmat));
}

TEST_CASE("a tier with a bad nodelist, garbage HMAT figures and weights: left out with a warning") {
  TempRoot root;
  cxl_machine(root);
  write_tier(root, 16, "2-x");
  root.write("sys/devices/system/node/node1/access1/initiators/read_latency", "0\n");  // the kernel's "not given"
  root.write("sys/devices/system/node/node2/access1/initiators/read_bandwidth", "fast\n");
  root.write("sys/kernel/mm/mempolicy/weighted_interleave/node1", "0\n");
  root.write("sys/kernel/mm/mempolicy/weighted_interleave/auto", "maybe\n");
  Topology t = read_topology(SysRoot(root.path()));
  std::string base = root.path() + "/";
  REQUIRE(t.tiers.size() == 1);
  CHECK(t.tiers[0].id == 4);
  CHECK(!t.nodes[2].tier);
  CHECK(has_warning(t, base + "sys/devices/virtual/memory_tiering/memory_tier16/nodelist: invalid cpulist '2-x': "
                           "unexpected 'x' at offset 2 (left out)"));
  CHECK(!t.nodes[2].hmat.read_bandwidth);
  CHECK(t.nodes[2].hmat.write_bandwidth == 8000u);
  CHECK(!t.nodes[1].hmat.read_latency);
  CHECK(t.nodes[1].hmat.write_latency == 100u);
  CHECK(has_warning(t, base + "sys/devices/system/node/node2/access1/initiators/read_bandwidth: expected a number "
                           "of MB/s, found 'fast' (left out)"));
  CHECK(t.interleave.weights == std::map<unsigned, unsigned>{{0, 1}, {2, 1}});
  CHECK(has_warning(t, base + "sys/kernel/mm/mempolicy/weighted_interleave/node1: expected a weight from 1 to 255, "
                           "found '0' (left out)"));
  CHECK(!t.interleave.auto_mode);
  CHECK(t.interleave.auto_file == "auto");
  CHECK(has_warning(t, base + "sys/kernel/mm/mempolicy/weighted_interleave/auto: expected true or false, found "
                           "'maybe' (left out)"));
  // The rest of the machine is whole.
  CHECK(t.nodes.size() == 3);
  CHECK(t.online.count() == 4);
}

TEST_CASE("a node listed by a second tier stays in the first") {
  TempRoot root;
  cxl_machine(root);
  write_tier(root, 5, "1");  // read after memory_tier4, which has node 1
  Topology t = read_topology(SysRoot(root.path()));
  REQUIRE(t.tiers.size() == 3);
  CHECK(t.tiers[1].id == 5);
  CHECK(t.tiers[1].nodes.empty());
  CHECK(t.nodes[1].tier == 4u);
  REQUIRE(t.warnings.size() == 1);
  CHECK(t.warnings[0] == root.path() + "/sys/devices/virtual/memory_tiering/memory_tier5/nodelist: nodes 1 are in "
                                       "another tier too (left out here)");
}

TEST_CASE("the auto mode file is found under Linux 6.18's name too") {
  TempRoot root;
  write_weights(root, {{0, 3}}, "true", "__auto_type");
  InterleaveWeights w = read_interleave_weights(SysRoot(root.path()));
  CHECK(w.present);
  CHECK(w.auto_mode == true);
  CHECK(w.auto_file == "__auto_type");
  CHECK(w.weights == std::map<unsigned, unsigned>{{0, 3}});
  CHECK(parse_weight("255\n") == 255u);
  CHECK(!parse_weight("256"));
  CHECK(!parse_weight("0"));
  CHECK(parse_auto_mode("false\n") == false);
  CHECK(parse_auto_mode("Y") == true);
  TempRoot none;  // before Linux 6.9
  CHECK(!read_interleave_weights(SysRoot(none.path())).present);
}

TEST_CASE("without ReadScope::tiers none of it is read") {
  TempRoot root;
  cxl_machine(root);
  ReadScope scope;
  scope.tiers = false;
  Topology t = read_topology(SysRoot(root.path()), scope);
  CHECK(!t.tiers_read);
  CHECK(t.tiers.empty());
  CHECK(!t.nodes[2].tier);
  CHECK(!t.nodes[2].hmat.any());
  CHECK(!t.interleave.present);
}
