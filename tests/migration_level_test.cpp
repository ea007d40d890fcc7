#include <catch2/catch.hpp>

#include "migration_level.hpp"
#include "topo_builder.hpp"

using namespace affix;
using affix::test::build;
using affix::test::Numbering;
using affix::test::TopoSpec;

namespace {

// 2 sockets x 2 nodes x 4 cores x 2 threads, two L3 per node, threads of a
// core consecutive: CPUs 0-1 core 0, 0-3 llc 0, 0-7 node 0, 0-15 socket 0.
Topology machine() {
  TopoSpec spec;
  spec.sockets = 2;
  spec.nodes_per_socket = 2;
  spec.cores_per_node = 4;
  spec.llcs_per_node = 2;
  spec.smt = 2;
  spec.numbering = Numbering::Packed;
  return build(spec);
}

}  // namespace

TEST_CASE("a move counts once, at the largest boundary between the two CPUs") {
  LevelMap levels(machine());
  CHECK(levels.crossing(0, 0) == std::nullopt);
  CHECK(levels.crossing(0, 1) == Crossing::Smt);
  CHECK(levels.crossing(1, 2) == Crossing::Core);
  CHECK(levels.crossing(3, 4) == Crossing::Llc);
  CHECK(levels.crossing(7, 8) == Crossing::Node);
  CHECK(levels.crossing(15, 16) == Crossing::Socket);
  CHECK(levels.crossing(16, 0) == Crossing::Socket);
  CHECK(levels.crossing(0, 999) == Crossing::Core);  // a CPU the topology does not know
}

TEST_CASE("levels follow the topology, not the CPU numbers") {
  TopoSpec spec;  // Linear: 0-3 first threads of cores 0-3, 4-7 their siblings
  spec.cores_per_node = 4;
  spec.smt = 2;
  LevelMap levels(build(spec));
  CHECK(levels.crossing(0, 4) == Crossing::Smt);
  CHECK(levels.crossing(0, 1) == Crossing::Core);
}

TEST_CASE("widest boundary and holder of a set of CPUs") {
  LevelMap levels(machine());
  CHECK(levels.widest(CpuSet{}) == std::nullopt);
  CHECK(levels.widest(CpuSet::range(5, 5)) == std::nullopt);
  CHECK(levels.widest(CpuSet::range(0, 1)) == Crossing::Smt);
  CHECK(levels.widest(CpuSet::range(0, 3)) == Crossing::Core);
  CHECK(levels.widest(CpuSet::range(2, 5)) == Crossing::Llc);
  CHECK(levels.widest(CpuSet::range(6, 9)) == Crossing::Node);
  CHECK(levels.widest(CpuSet::range(0, 31)) == Crossing::Socket);
  CHECK(levels.holder(CpuSet::range(0, 1)) == "llc:0");
  CHECK(levels.holder(CpuSet::range(4, 5)) == "llc:1");
  CHECK(levels.holder(CpuSet::range(6, 9)) == "socket:0");
  CHECK(levels.holder(CpuSet::range(8, 15)) == "node:1");
  CHECK(levels.holder(CpuSet::range(15, 16)).empty());
  CHECK(levels.holder(CpuSet{}).empty());
  CHECK(levels.describe(CpuSet::range(8, 15)) == "node:1");
  CHECK(levels.describe(CpuSet::range(8, 9)) == "8-9 in llc:2");
  CHECK(levels.describe(CpuSet::range(15, 16)) == "15-16");
  CHECK(levels.describe(CpuSet{}).empty());
}

TEST_CASE("narrowest boundary: the closest pair of CPUs of a set") {
  LevelMap levels(machine());
  CHECK(levels.narrowest(CpuSet::range(3, 3)) == std::nullopt);
  CHECK(levels.narrowest(CpuSet::range(0, 31)) == Crossing::Smt);
  CpuSet far;
  far.set(0);
  far.set(16);
  CHECK(levels.narrowest(far) == Crossing::Socket);
  far.set(9);  // 0 and 9: another node of socket 0
  CHECK(levels.narrowest(far) == Crossing::Node);
  far.set(4);  // 0 and 4: another llc of node 0
  CHECK(levels.narrowest(far) == Crossing::Llc);
  far.set(3);  // 3 and 0: another core of llc 0
  CHECK(levels.narrowest(far) == Crossing::Core);
}

TEST_CASE("a level the machine does not list is crossed by no pair, in crossing and narrowest alike") {
  Topology t = machine();  // as a machine without cache files in sysfs
  for (auto& c : t.cpus) c.llc = -1;
  t.llcs.clear();
  LevelMap levels(t);
  CHECK(levels.crossing(3, 4) == Crossing::Core);
  CHECK(levels.narrowest(CpuSet::range(3, 4)) == Crossing::Core);
  CHECK(levels.widest(CpuSet::range(3, 4)) == Crossing::Core);
  CpuSet far;
  far.set(0);
  far.set(16);
  CHECK(levels.narrowest(far) == Crossing::Socket);
  far.set(9);
  CHECK(levels.narrowest(far) == Crossing::Node);
  far.set(4);  // 0 and 4: another core of node 0 (no L3 known between them)
  CHECK(levels.narrowest(far) == Crossing::Core);
  far.set(5);  // 4 and 5: one core
  CHECK(levels.narrowest(far) == Crossing::Smt);
}

TEST_CASE("on a tie the wider unit names the set") {
  TopoSpec spec;  // one socket, one node, one L3
  LevelMap levels(build(spec));
  CHECK(levels.holder(CpuSet::range(0, 1)) == "socket:0");
}

TEST_CASE("migration counts add up by level") {
  Migrations a, b;
  a[Crossing::Socket] = 2;
  a[Crossing::Core] = 3;
  b[Crossing::Core] = 1;
  a += b;
  CHECK(a.total() == 6);
  CHECK(a[Crossing::Core] == 4);
  CHECK(std::string(crossing_name(Crossing::Llc)) == "llc");
}
