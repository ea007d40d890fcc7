// topo_json / topo_text on hand-made machines: the fields of affix(1) OUTPUT, nulls
// where the topology is unknown, and the compact text.
#include <catch2/catch.hpp>

#include <cstdio>

#include "fake_os.hpp"
#include "mini_json.hpp"
#include "root_builders.hpp"
#include "temp_root.hpp"
#include "topo_output.hpp"

using namespace affix;
using namespace affix::test;

TEST_CASE("memory sizes for people") {
  CHECK(format_kb(512) == "512 KiB");
  CHECK(format_kb(1536) == "1.5 MiB");
  CHECK(format_kb(65536000) == "62.5 GiB");
}

TEST_CASE("topo --json: the documented fields; an offline CPU has nulls") {
  TempRoot r;
  simple_machine(r, 4, 2);
  r.write("sys/devices/system/cpu/online", "0-2\n");
  std::remove((r.path() + "/sys/devices/system/cpu/cpu3/topology/physical_package_id").c_str());
  std::remove((r.path() + "/sys/devices/system/cpu/cpu3/topology/core_id").c_str());
  std::remove((r.path() + "/sys/devices/system/cpu/cpu3/topology/die_id").c_str());
  SysRoot root(r.path());
  Topology topo = read_topology(root);
  test::FakeAffinity lists;  // never asked: the root is not this machine's
  Allowed allowed = read_allowed(root, topo, lists);
  Json doc = parse_json(topo_json(topo, allowed));
  REQUIRE(doc["cpus"].array.size() == 4);
  const Json& c1 = doc["cpus"][1];
  CHECK(c1["cpu"].number == 1);
  CHECK(c1["online"].boolean);
  CHECK(c1["allowed"].boolean);
  CHECK(c1["socket"].number == 0);
  CHECK(c1["die"].number == 0);
  CHECK(c1["node"].number == 0);
  CHECK(c1["llc"].number == 0);
  CHECK(c1["core"].number == 0);
  CHECK(c1["thread"].number == 1);
  CHECK(c1["siblings"].string == "0-1");
  CHECK(c1["kind"].is_null());
  const Json& c3 = doc["cpus"][3];
  CHECK_FALSE(c3["online"].boolean);
  CHECK_FALSE(c3["allowed"].boolean);
  CHECK(c3["socket"].is_null());
  CHECK(c3["core"].is_null());
  CHECK(c3["thread"].is_null());
  CHECK(c3["siblings"].is_null());
  CHECK(doc["cpus"][2]["siblings"].string == "2");  // its sibling 3 is offline
  const Json& n0 = doc["nodes"][0];
  CHECK(n0["node"].number == 0);
  CHECK(n0["cpus"].string == "0-3");
  CHECK(n0["memory_total_kb"].number == 16384000);
  CHECK(n0["memory_free_kb"].number == 8192000);
  CHECK(n0["distances"].array.size() == 1);
  CHECK(doc["allowed"]["cpus"].string == "0-2");
  CHECK(doc["allowed"]["nodes"].string == "0");
  CHECK(doc["allowed"]["source"].string == "all-online");
  CHECK(doc["isolated"].string == "");
  CHECK(doc["smt"].number == 2);
}

TEST_CASE("topo text: summary, tree with shared lines, offline CPUs") {
  TempRoot r;
  simple_machine(r, 4, 2);
  r.write("sys/devices/system/cpu/online", "0-2\n");
  SysRoot root(r.path());
  Topology topo = read_topology(root);
  test::FakeAffinity lists;  // never asked: the root is not this machine's
  Allowed allowed = read_allowed(root, topo, lists);
  CHECK(topo_text(topo, allowed) ==
        "machine    4 CPUs (3 online), 1 socket, 1 node, 2 cores, SMT 2, 1 llc\n"
        "allowed    cpus 0-2, nodes 0 (from all-online)\n"
        "isolated   none\n"
        "offline    3\n"
        "\n"
        "socket 0 / node 0 / llc 0    cpus 0-2  cores 0 x2, 1  mem 15.6 GiB (7.8 GiB free)\n");
}
