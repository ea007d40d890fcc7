// WHERE resolved against the whole machine (pin --irq): near:DEVICE reads
// the device first, so `affix pin --irq near:eth1 eth1` places eth1's IRQs
// on eth1's CPUs (issue 33, item 14); and the message of a device that a
// command forgot to read names no code.
#include <catch2/catch.hpp>

#include <cctype>

#include "corpus.hpp"
#include "error.hpp"
#include "near.hpp"
#include "resolver.hpp"
#include "topology.hpp"

using namespace affix;
using affix::test::corpus_root;

namespace {

EnvLookup no_env() {
  return [](const std::string&) { return std::optional<std::string>(); };
}

// A word like read_location_devices or check_pin: letters joined by '_'
// (kernel file names such as smp_affinity_list are not in these messages).
bool names_code(const std::string& text) {
  for (size_t i = 1; i + 1 < text.size(); ++i)
    if (text[i] == '_' && std::islower(static_cast<unsigned char>(text[i - 1])) &&
        std::islower(static_cast<unsigned char>(text[i + 1])))
      return true;
  return false;
}

}  // namespace

TEST_CASE("resolve_on_machine: near:eth1 reads eth1 and takes its CPUs, on every online CPU") {
  SysRoot root(corpus_root("fakepcilocalities"));
  Topology topo = read_topology(root);
  PlacementRequest request;
  request.where = "near:eth1";
  Placement p = resolve_on_machine(root, request, topo, no_env());
  CHECK(format_cpulist(p.cpus) == "0,4,8,12,16,20,24,28,32,36");
  REQUIRE(p.near.size() == 1);
  CHECK(p.near[0].device.name == "eth1");
  // Two devices, one of them a PCI address.
  request.where = "near:eth1+near:43:00.0";
  Topology again = read_topology(root);
  CHECK(format_cpulist(resolve_on_machine(root, request, again, no_env()).cpus) ==
        "0-1,4-5,8-9,12-13,16-17,20-21,24-25,28-29,32-33,36-37");
}

TEST_CASE("resolve_on_machine: a device that is not there is the device's error, a bad spec the resolver's") {
  SysRoot root(corpus_root("fakepcilocalities"));
  Topology topo = read_topology(root);
  PlacementRequest request;
  request.where = "near:eth9";
  try {
    resolve_on_machine(root, request, topo, no_env());
    FAIL("near:eth9 resolved");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Resolution);
    CHECK(std::string(e.what()).find("eth9") != std::string::npos);
    CHECK_FALSE(names_code(e.hint()));
  }
  request.where = "near:";
  CHECK_THROWS_AS(resolve_on_machine(root, request, topo, no_env()), Error);
}

TEST_CASE("resolve: a near: device no command read is a defect said in words, no code named") {
  SysRoot root(corpus_root("fakepcilocalities"));
  Topology topo = read_topology(root);
  Allowed machine{topo.online, topo.node_set(), std::nullopt, "all-online", "all-nodes"};
  PlacementRequest request;
  request.where = "near:eth1";
  try {
    resolve(request, topo, machine, no_env());
    FAIL("near:eth1 resolved unread");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "affix placed near device 'eth1' without reading it first");
    CHECK(e.hint() ==
          "a defect of affix: please report the command line; 'affix explain near:eth1' shows where the device is");
    CHECK_FALSE(names_code(e.what()));
    CHECK_FALSE(names_code(e.hint()));
  }
}
