// read_topology: the order of units on captured machines, and the edge
// cases of the kernel's files on hand-made roots.
#include <catch2/catch.hpp>

#include <cstdio>

#include "corpus.hpp"
#include "error.hpp"
#include "root_builders.hpp"
#include "temp_root.hpp"
#include "topology_checks.hpp"
#include "topology.hpp"

using namespace affix;
using namespace affix::test;

namespace {

Topology corpus(const std::string& name) { return read_topology(SysRoot(corpus_root(name))); }

std::string error_of(const std::string& root) {
  try {
    read_topology(SysRoot(root));
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    return e.what();
  }
  return "no error";
}

// The error on a 2-CPU machine whose FILE holds CONTENT, with the root's
// path written as "ROOT".
std::string error_with(const std::string& file, const std::string& content) {
  TempRoot r;
  simple_machine(r, 2, 1);
  r.write(file, content);
  std::string e = error_of(r.path());
  if (e.rfind(r.path(), 0) == 0) e = "ROOT" + e.substr(r.path().size());
  return e;
}

}  // namespace

TEST_CASE("CPUs numbered alternately across sockets: cores and threads in topology order") {
  Topology t = corpus("16em64t-4s2c2t");
  CHECK(unit_ids(t.sockets) == std::vector<long>{0, 1, 2, 3});
  CHECK(unit_lists(t.sockets) == std::vector<std::string>{"0,4,8,12", "1,5,9,13", "2,6,10,14", "3,7,11,15"});
  CHECK(unit_lists(t.cores) ==
        std::vector<std::string>{"0,8", "4,12", "1,9", "5,13", "2,10", "6,14", "3,11", "7,15"});
  std::vector<long> threads = unit_ids(t.threads);
  CHECK(std::vector<long>(threads.begin(), threads.begin() + 6) == std::vector<long>{0, 8, 4, 12, 1, 9});
  CHECK(t.cpus[8].core == 0);
  CHECK(t.cpus[8].thread == 1);
  CHECK(t.cpus[0].thread == 0);
  CHECK(format_cpulist(t.cpus[4].siblings) == "4,12");
  CHECK(t.smt == 2);
  CHECK(t.cpus[5].llc == 1);
}

TEST_CASE("dies, and an L3 domain that spans two nodes is indexed where the walk meets it") {
  Topology t = corpus("fakecpuid1f-64intel64-2p4d2n2c2t");
  CHECK(t.sockets.size() == 4);
  CHECK(t.dies.size() == 8);
  CHECK(format_cpulist(t.dies[1].cpus) == "8-15");
  CHECK(format_cpulist(t.llcs[0].cpus) == "0-7");
  CHECK(unit_ids(t.numa)[1] == 1);
  CHECK(format_cpulist(t.numa[1].cpus) == "4-7");
  CHECK(t.cpus[5].llc == 0);
  CHECK(t.cpus[5].node == 1);
  CHECK(t.cpus[5].die_id == 0);
  CHECK(t.cores.size() == 32);
}

TEST_CASE("sparse node numbers, distances and memory") {
  Topology t = corpus("48amd64-4pa2n6c-sparse");
  CHECK(unit_ids(t.numa) == std::vector<long>{0, 1, 2, 33, 34, 45, 72, 73});
  CHECK(format_cpulist(t.node_set()) == "0-2,33-34,45,72-73");
  REQUIRE(t.node(33) != nullptr);
  CHECK(t.node(3) == nullptr);
  CHECK(format_cpulist(t.node(33)->cpus) == "18-23");
  CHECK(t.distance(33, 0) == 22u);
  CHECK(t.distance(0, 0) == 10u);
  CHECK(t.distance(0, 3) == std::nullopt);
  CHECK(t.node(0)->memory_total_kb.has_value());
  CHECK(t.node(0)->has_memory());
}

TEST_CASE("physical_package_id -1: sockets made from the package masks, numbered by lowest CPU") {
  Topology t = corpus("20s390-2g6s4c");
  CHECK(unit_lists(t.sockets) ==
        std::vector<std::string>{"0-2", "3-6", "7-9", "10-12", "13-14", "15", "16", "17-19"});
  CHECK(unit_ids(t.sockets) == std::vector<long>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(t.cpus[11].socket == 3);
  CHECK(t.llcs.empty());  // no cache directories
  CHECK(t.cpus[0].llc == -1);
}

TEST_CASE("offline CPUs: not in any unit, topology unknown") {
  Topology t = corpus("16em64t-4s2c2t-offlines");
  CHECK(format_cpulist(t.online) == "0-1,3-4,6-12,15");
  CHECK(format_cpulist(t.possible) == "0-15");
  CHECK_FALSE(t.cpus[2].online);
  CHECK(t.cpus[2].core == -1);
  CHECK(t.cpus[2].llc == -1);
  CHECK(format_cpulist(t.cpus[6].siblings) == "6");  // its sibling 14 is offline
  CHECK(t.cpus[6].thread == 0);
  CHECK(t.threads.size() == 12);
}

TEST_CASE("overlapping node masks: a later node that overlaps is CPU-less, as in hwloc") {
  Topology t = corpus("fakeheterocpunuma");
  CHECK(format_cpulist(t.node(3)->cpus) == "20-23");
  CHECK(t.node(4)->cpus.empty());
  CHECK(t.node(5)->cpus.empty());
  CHECK(t.node(2)->has_memory());
  CHECK(t.cpus[4].node == -1);  // in no node's mask
  // CPU-less nodes come after the walk, by number, with no CPUs.
  CHECK(unit_ids(t.numa) == std::vector<long>{0, 1, 3, 2, 4, 5});
  CHECK(t.numa[3].cpus.empty());
}

TEST_CASE("no node directory: one node 0 with every CPU; no package files: no socket") {
  Topology t = corpus("2ps3-2t");
  REQUIRE(t.nodes.size() == 1);
  CHECK(t.nodes[0].node == 0);
  CHECK(format_cpulist(t.nodes[0].cpus) == "0-1");
  CHECK(t.nodes[0].distances == std::vector<unsigned>{10});
  CHECK(t.sockets.empty());
  CHECK(t.cpus[0].socket == -1);
  CHECK(format_cpulist(t.cpus[1].siblings) == "0-1");
  CHECK(t.cpus[1].thread == 1);
  CHECK(t.smt == 2);
}

TEST_CASE("last-level cache: the machine's largest level; an empty ia64 mask means the core") {
  Topology asym = corpus("8em64t-2s4c-asymcaches");
  CHECK(asym.cpus[0].llc == -1);  // cpu0 and cpu4 report only L1
  CHECK(asym.cpus[4].llc == -1);
  CHECK(format_cpulist(asym.llcs[asym.cpus[1].llc < 0 ? 0 : static_cast<size_t>(asym.cpus[1].llc)].cpus) == "1,5");
  Topology ia64 = corpus("8ia64-2n2s2c");
  CHECK(ia64.llcs.size() == 8);
  CHECK(format_cpulist(ia64.llcs[static_cast<size_t>(ia64.cpus[5].llc)].cpus) == "5");
  // 128ia64's cpu0/online is an empty file: online.
  CHECK(corpus("128ia64-17n4s2c").online.count() == 128);
}

TEST_CASE("a hand-made machine: lists without masks, hybrid kinds, isolated, a memory-only node") {
  TempRoot r;
  simple_machine(r, 8, 2);
  r.write("sys/devices/system/cpu/isolated", "6-7\n");
  r.write("sys/devices/cpu_core/cpus", "0-3\n");
  r.write("sys/devices/cpu_atom/cpus", "4-7\n");
  r.write("sys/devices/system/node/node0/distance", "10 20\n");
  write_node(r, 1, "", 1024, 512, "20 10");
  Topology t = read_topology(SysRoot(r.path()));
  CHECK(t.cores.size() == 4);
  CHECK(t.smt == 2);
  CHECK(format_cpulist(t.isolated) == "6-7");
  CHECK(t.hybrid);
  CHECK(t.cpus[3].kind == 0);  // cpu_core: the most performant kind
  CHECK(t.cpus[4].kind == 1);  // cpu_atom
  CHECK(t.node(1)->cpus.empty());
  CHECK(t.node(1)->memory_total_kb == 1024u);
  CHECK(t.node(1)->memory_free_kb == 512u);
  CHECK(t.distance(1, 0) == 20u);
  CHECK(unit_ids(t.numa) == std::vector<long>{0, 1});
  CHECK(t.llcs.size() == 1);
  CHECK(t.dies.size() == 1);  // die_id 0 everywhere: one die per socket
  CHECK(format_cpulist(t.cpus[7].siblings) == "6-7");
}

TEST_CASE("a 1024-CPU machine: many CPUs sharing few distinct masks") {
  TempRoot r;
  const unsigned n = 1024;
  r.write("sys/devices/system/cpu/online", "0-1023\n");
  for (unsigned c = 0; c < n; ++c) {
    std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    unsigned first = c - c % 2;
    r.write(dir + "physical_package_id", c < n / 2 ? "0\n" : "1\n");
    r.write(dir + "thread_siblings_list", std::to_string(first) + "-" + std::to_string(first + 1) + "\n");
    r.write(dir + "core_siblings_list", c < n / 2 ? "0-511\n" : "512-1023\n");
  }
  Topology t = read_topology(SysRoot(r.path()));
  CHECK(t.online.count() == n);
  CHECK(unit_lists(t.sockets) == std::vector<std::string>{"0-511", "512-1023"});
  CHECK(t.cores.size() == n / 2);
  CHECK(format_cpulist(t.cores[511].cpus) == "1022-1023");
  CHECK(t.cpus[1023].thread == 1);
  CHECK(t.cpus[1023].core == 511);
  CHECK(t.nodes.size() == 1);
  CHECK(format_cpulist(t.nodes[0].cpus) == "0-1023");
}

TEST_CASE("bad roots: an error that names the file and the problem") {
  CHECK(error_of("/nonexistent-affix-root") == "/nonexistent-affix-root: no such directory");
  {
    TempRoot r;
    r.mkdir("sys");
    CHECK(error_of(r.path()) == r.path() + "/sys/devices/system/cpu: no such directory");
  }
  {
    TempRoot r;
    r.mkdir("sys/devices/system/cpu");
    CHECK(error_of(r.path()) == r.path() + "/sys/devices/system/cpu: no CPUs found");
  }
  CHECK(error_with("sys/devices/system/cpu/online", "0-1,\n").rfind("ROOT/sys/devices/system/cpu/online: ", 0) ==
        0);
  CHECK(error_with("sys/devices/system/cpu/online", "") ==
        "ROOT/sys/devices/system/cpu/online: no CPUs online");
  CHECK(error_with("sys/devices/system/cpu/online", "0-99999\n") ==
        "ROOT/sys/devices/system/cpu/online: CPU number 99999 is beyond the supported 65535");
  {
    // Without the global list, each CPU's own file says (cpu0 has none).
    TempRoot r;
    simple_machine(r, 3, 1);
    std::remove((r.path() + "/sys/devices/system/cpu/online").c_str());
    r.write("sys/devices/system/cpu/cpu1/online", "0\n");
    r.write("sys/devices/system/cpu/cpu2/online", "1\n");
    CHECK(format_cpulist(read_topology(SysRoot(r.path())).online) == "0,2");
  }
}

TEST_CASE("level names and units by level") {
  CHECK(std::string(level_name(Level::Llc)) == "llc");
  CHECK(std::string(level_name(Level::Cpu)) == "cpu");
  Topology t = corpus("16em64t-4s2c2t");
  CHECK(&t.units(Level::Core) == &t.cores);
  CHECK(&t.units(Level::Node) == &t.numa);
  CHECK(&t.units(Level::Cpu) == &t.threads);
}
