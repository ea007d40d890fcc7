// The corrections hwloc's Linux backend makes, on its conditions: packages
// split by their masks merged on x86, AMD compute units made cores on
// family 21 and 22 only; the other side of each condition too.
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

const std::string k_cpu = "sys/devices/system/cpu/";

using Warnings = std::vector<std::string>;

// Two sockets of 4 CPUs whose package masks split each socket in halves
// (0-1 | 2-3, 4-5 | 6-7), all with physical_package_id 0 or 1.
void split_packages(const TempRoot& r) {
  simple_machine(r, 8, 1);
  for (unsigned c = 0; c < 8; ++c) {
    std::string topo = k_cpu + "cpu" + std::to_string(c) + "/topology/";
    r.write(topo + "physical_package_id", c < 4 ? "0\n" : "1\n");
    unsigned half = c / 2 * 2;
    r.write(topo + "core_siblings_list", std::to_string(half) + "-" + std::to_string(half + 1) + "\n");
  }
}

// 4 CPUs, siblings 0-1 and 2-3, each CPU with its own core_id (as AMD
// compute units and some other machines show them).
void siblings_with_own_core_ids(const TempRoot& r) {
  simple_machine(r, 4, 2);
  for (unsigned c = 0; c < 4; ++c) r.write(k_cpu + "cpu" + std::to_string(c) + "/topology/core_id", std::to_string(c) + "\n");
}

std::string cpuinfo(const std::string& vendor, unsigned family) {
  std::string out;
  for (unsigned c = 0; c < 2; ++c)
    out += "processor\t: " + std::to_string(c) + "\nvendor_id\t: " + vendor + "\ncpu family\t: " +
           std::to_string(family) + "\nmodel\t\t: 1\n\n";
  return out;
}

}  // namespace

TEST_CASE("packages that share a physical_package_id but whose masks split them are merged on x86") {
  TempRoot r;
  split_packages(r);
  r.write("proc/cpuinfo", cpuinfo("GenuineIntel", 6));
  Topology t = read_topology(SysRoot(r.path()));
  CHECK(unit_lists(t.sockets) == std::vector<std::string>{"0-3", "4-7"});
  CHECK(unit_ids(t.sockets) == std::vector<long>{0, 1});
  CHECK(t.cpus[3].socket == 0);
  CHECK(warnings_of(t, r) ==
        Warnings{"CPUs 0-1 and 2-3 have the same physical_package_id 0 but different package masks: taken as one "
                 "socket, as hwloc does",
                 "CPUs 4-5 and 6-7 have the same physical_package_id 1 but different package masks: taken as one "
                 "socket, as hwloc does"});
}

TEST_CASE("packages split by their masks are merged on ia64 too") {
  TempRoot r;
  split_packages(r);
  r.write("proc/cpuinfo", "processor  : 0\nvendor     : GenuineIntel\narch       : IA-64\nfamily     : Itanium 2\n\n");
  Topology t = read_topology(SysRoot(r.path()));
  CHECK(unit_lists(t.sockets) == std::vector<std::string>{"0-3", "4-7"});
  CHECK(unit_ids(t.sockets) == std::vector<long>{0, 1});
  CHECK(warnings_of(t, r).size() == 2);
}

TEST_CASE("elsewhere packages split by their masks stay apart, numbered after the largest id") {
  TempRoot r;
  split_packages(r);  // no proc/cpuinfo: not known to be x86 or ia64
  Topology t = read_topology(SysRoot(r.path()));
  CHECK(unit_lists(t.sockets) == std::vector<std::string>{"0-1", "2-3", "4-5", "6-7"});
  CHECK(unit_ids(t.sockets) == std::vector<long>{0, 2, 1, 3});
  CHECK(t.warnings.empty());
}

TEST_CASE("compute units: siblings with their own core_ids are separate cores on AMD family 21 and 22 only") {
  for (unsigned family : {21u, 22u}) {
    TempRoot r;
    siblings_with_own_core_ids(r);
    r.write("proc/cpuinfo", cpuinfo("AuthenticAMD", family));
    Topology t = read_topology(SysRoot(r.path()));
    INFO(family);
    CHECK(unit_lists(t.cores) == std::vector<std::string>{"0", "1", "2", "3"});
    CHECK(t.smt == 1);
  }
}

TEST_CASE("compute units: everywhere else siblings are threads of one core, whatever their core_ids") {
  for (std::string info : {std::string(), cpuinfo("AuthenticAMD", 23), cpuinfo("AuthenticAMD", 15),
                           cpuinfo("GenuineIntel", 21), std::string("processor\t: 0\nvendor\t: AuthenticAMD\nfamily\t: 21\n")}) {
    TempRoot r;
    siblings_with_own_core_ids(r);
    if (!info.empty()) r.write("proc/cpuinfo", info);
    Topology t = read_topology(SysRoot(r.path()));
    INFO(info);
    CHECK(unit_lists(t.cores) == std::vector<std::string>{"0-1", "2-3"});
    CHECK(t.smt == 2);
  }
}

