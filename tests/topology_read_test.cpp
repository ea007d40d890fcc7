// read_topology on machines outside the captures that affix once got wrong,
// each as a hand-made root: odd files left out with a warning, padding NULs,
// CPUs that tell nothing of their place. (Nodes: topology_nodes_test.cpp;
// hwloc's corrections: topology_quirks_test.cpp.)
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "error.hpp"
#include "root_builders.hpp"
#include "temp_root.hpp"
#include "topology_checks.hpp"
#include "topology.hpp"

using namespace affix;
using namespace affix::test;

namespace {

const std::string k_cpu = "sys/devices/system/cpu/";
const std::string k_node = "sys/devices/system/node/";

// A 2-CPU machine whose FILE holds CONTENT: what it reads, and its warnings.
struct Odd {
  Topology topo;
  std::vector<std::string> warnings;
};
Odd odd_file(const std::string& file, const std::string& content) {
  TempRoot r;
  simple_machine(r, 2, 1);
  r.write(file, content);
  Topology t = read_topology(SysRoot(r.path()));
  return Odd{t, warnings_of(t, r)};
}

using Warnings = std::vector<std::string>;

}  // namespace

TEST_CASE("an attribute that cannot be read or makes no sense is left out, with a warning naming the file") {
  Odd package = odd_file(k_cpu + "cpu1/topology/physical_package_id", "banana\n");
  CHECK(package.warnings == Warnings{"ROOT/sys/devices/system/cpu/cpu1/topology/physical_package_id: expected a "
                                     "number from -1 to 1048576, found 'banana' (left out)"});
  CHECK(format_cpulist(package.topo.online) == "0-1");
  CHECK(unit_lists(package.topo.sockets) == std::vector<std::string>{"0-1"});  // from the package masks
  CHECK(package.topo.cpus[1].core == 1);

  Odd siblings = odd_file(k_cpu + "cpu0/topology/thread_siblings", "zz\n");
  CHECK(siblings.warnings == Warnings{"ROOT/sys/devices/system/cpu/cpu0/topology/thread_siblings: invalid cpu mask "
                                      "'zz': unexpected 'z' at offset 0 (left out)"});
  CHECK(unit_lists(siblings.topo.cores) == std::vector<std::string>{"1"});  // cpu0 has no core
  CHECK(siblings.topo.cpus[0].core == -1);

  Odd present = odd_file(k_cpu + "present", "0-99999\n");
  CHECK(present.warnings == Warnings{"ROOT/sys/devices/system/cpu/present: CPU number 99999 is beyond the supported "
                                     "65535 (left out)"});
  CHECK(format_cpulist(present.topo.possible) == "0-1");

  Odd distance = odd_file(k_node + "node0/distance", "10 x\n");
  CHECK(distance.warnings == Warnings{"ROOT/sys/devices/system/node/node0/distance: 'x' is not a distance (0 to "
                                      "1000) (left out)"});
  CHECK(distance.topo.nodes[0].distances.empty());
  CHECK(distance.topo.distance(0, 0) == std::nullopt);

  Odd row = odd_file(k_node + "node0/distance", "10 20\n");
  CHECK(row.warnings == Warnings{"ROOT/sys/devices/system/node/node0/distance: 2 distances for 1 nodes (left out)"});

  Odd meminfo = odd_file(k_node + "node0/meminfo", "Node 0 MemTotal: lots kB\nNode 0 MemFree: 5 kB\n");
  CHECK(meminfo.warnings == Warnings{"ROOT/sys/devices/system/node/node0/meminfo: MemTotal is not a number of kB: "
                                     "'lots' (left out)"});
  CHECK_FALSE(meminfo.topo.nodes[0].memory_total_kb.has_value());
  CHECK(meminfo.topo.nodes[0].memory_free_kb == 5u);
  CHECK(meminfo.topo.nodes[0].has_memory());  // unknown size: the kernel decides

  Odd cache = odd_file(k_cpu + "cpu1/cache/index3/shared_cpu_list", "1-\n");
  REQUIRE(cache.warnings.size() == 1);
  CHECK(cache.warnings[0].rfind("ROOT/sys/devices/system/cpu/cpu1/cache/index3/shared_cpu_list: invalid cpulist", 0) == 0);
  CHECK(cache.topo.cpus[1].llc == 0);  // cpu0's mask still holds it

  Odd level = odd_file(k_cpu + "cpu0/cache/index3/level", "three\n");
  CHECK(level.warnings == Warnings{"ROOT/sys/devices/system/cpu/cpu0/cache/index3/level: expected a number from -1 to "
                                   "1048576, found 'three' (left out)"});

  Odd node = odd_file(k_node + "node0/cpulist", "0-1,x\n");
  REQUIRE(node.warnings.size() == 1);
  CHECK(node.topo.nodes[0].cpus.empty());
  CHECK(node.topo.cpus[0].node == -1);
}

TEST_CASE("a CPU's own online file that is neither 0 nor 1 leaves that CPU offline, with a warning") {
  TempRoot r;
  simple_machine(r, 3, 1);
  r.remove(k_cpu + "online");
  r.write(k_cpu + "cpu1/online", "2\n");
  Topology t = read_topology(SysRoot(r.path()));
  CHECK(warnings_of(t, r) ==
        Warnings{"ROOT/sys/devices/system/cpu/cpu1/online: expected 0 or 1, found '2' (taken as offline)"});
  CHECK(format_cpulist(t.online) == "0,2");
}

TEST_CASE("thousands of odd files: a few warnings, then a count") {
  TempRoot r;
  simple_machine(r, 40, 1);
  for (unsigned c = 0; c < 40; ++c) r.write(k_cpu + "cpu" + std::to_string(c) + "/topology/core_id", "x\n");
  Topology t = read_topology(SysRoot(r.path()));
  REQUIRE(t.warnings.size() == 17);
  CHECK(t.warnings[16] == "24 more like these left out");
  CHECK(t.cores.size() == 40);  // cores come from the sibling masks
}

TEST_CASE("sysfs files with NUL bytes after their final newline read as without them") {
  TempRoot intact, padded;
  simple_machine(intact, 4, 2);
  simple_machine(padded, 4, 2);
  using namespace std::string_literals;
  padded.write(k_cpu + "online", "0-3\n\0\0"s);
  padded.write(k_cpu + "cpu2/topology/thread_siblings", "c\n\0"s);
  padded.write(k_cpu + "cpu2/topology/physical_package_id", "0\n\0"s);
  padded.write(k_node + "node0/cpumap", "f\n\0\0\0"s);
  padded.write(k_node + "node0/distance", "10\n\0"s);
  Topology a = read_topology(SysRoot(intact.path()));
  Topology b = read_topology(SysRoot(padded.path()));
  CHECK(b.warnings.empty());
  CHECK(format_cpulist(b.online) == "0-3");
  CHECK(unit_lists(b.cores) == unit_lists(a.cores));
  CHECK(unit_lists(b.cores) == std::vector<std::string>{"0-1", "2-3"});
  CHECK(b.nodes[0].distances == std::vector<unsigned>{10});
}

TEST_CASE("CPUs that tell nothing of their place are each their own core") {
  TempRoot r;
  r.write(k_cpu + "online", "0-3\n");
  for (unsigned c = 0; c < 4; ++c) r.mkdir(k_cpu + "cpu" + std::to_string(c));
  Topology t = read_topology(SysRoot(r.path()));
  CHECK(unit_lists(t.cores) == std::vector<std::string>{"0", "1", "2", "3"});
  CHECK(t.cpus[2].core == 2);
  CHECK(format_cpulist(t.cpus[2].siblings) == "2");
  CHECK(t.sockets.empty());
  CHECK(t.smt == 1);
  CHECK(t.warnings.empty());
}
