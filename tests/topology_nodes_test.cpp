// read_nodes: distance rows indexed by the nodes the kernel counts, also
// where node 0 is offline or has no directory; the node of a CPU from the
// node directories alone (read_node_cpus).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "root_builders.hpp"
#include "temp_root.hpp"
#include "topology_checks.hpp"
#include "topology.hpp"

using namespace affix;
using namespace affix::test;

namespace {

const std::string k_node = "sys/devices/system/node/";

}  // namespace

TEST_CASE("distance rows have one entry per online node: node 0 absent or offline") {
  // Node 0 is online but the root has no directory for it (a dump, a
  // container's partial /sys): the rows still count it.
  TempRoot absent;
  simple_machine(absent, 4, 1);
  absent.remove(k_node + "node0");
  absent.write(k_node + "online", "0-2\n");
  absent.write(k_node + "node1/cpulist", "0-1\n");
  absent.write(k_node + "node1/distance", "20 10 30\n");
  absent.write(k_node + "node2/cpulist", "2-3\n");
  absent.write(k_node + "node2/distance", "20 30 10\n");
  Topology a = read_topology(SysRoot(absent.path()));
  CHECK(a.warnings.empty());
  CHECK(unit_ids(a.numa) == std::vector<long>{1, 2});
  CHECK(a.distance(1, 2) == 30u);
  CHECK(a.distance(2, 2) == 10u);
  CHECK(a.distance(1, 0) == std::nullopt);
  // Node 0 offline, the rows over node/possible (no entry matches online).
  TempRoot offline;
  simple_machine(offline, 4, 1);
  offline.remove(k_node + "node0");
  offline.write(k_node + "possible", "0-2\n");
  offline.write(k_node + "online", "1-2\n");
  offline.write(k_node + "node1/cpulist", "0-1\n");
  offline.write(k_node + "node1/distance", "255 10 21\n");
  offline.write(k_node + "node2/cpulist", "2-3\n");
  offline.write(k_node + "node2/distance", "255 21 10\n");
  Topology o = read_topology(SysRoot(offline.path()));
  CHECK(o.warnings.empty());
  CHECK(o.distance(1, 2) == 21u);
  CHECK(o.distance(2, 1) == 21u);
  CHECK(o.nodes[0].distances == std::vector<unsigned>{10, 21});
}

TEST_CASE("CPU to node from the node directories alone") {
  TempRoot root;
  root.write(k_node + "node0/cpulist", "0-1,4\n");
  root.write(k_node + "node2/cpulist", "2-3\n");
  root.write(k_node + "possible", "0,2\n");
  auto nodes = read_node_cpus(SysRoot(root.path()));
  CHECK(node_of_cpu(nodes, 4) == 0);
  CHECK(node_of_cpu(nodes, 3) == 2);
  CHECK(node_of_cpu(nodes, 5) == -1);
  CHECK(node_of_cpu(nodes, -1) == -1);
  TempRoot flat;  // no node directory: every CPU on node 0
  CHECK(node_of_cpu(read_node_cpus(SysRoot(flat.path())), 7) == 0);
}
