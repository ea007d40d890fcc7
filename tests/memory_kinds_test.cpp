// Memory kinds as hwloc decides them (memory_kinds.hpp): what DAX devices,
// CXL regions and NVIDIA GPUs say of a node, then hwloc's guess of DRAM and
// HBM from bandwidth.
#include <catch2/catch.hpp>

#include <map>

#include "memory_kinds.hpp"
#include "memory_root.hpp"
#include "topology.hpp"

using namespace affix;
using namespace affix::test;

namespace {

using Kinds = std::map<unsigned, MemKind>;

KindInput node(unsigned n, unsigned long long bw, unsigned long long lat = 0, MemKind kind = MemKind::Unknown) {
  return KindInput{n, kind, bw, lat};
}

// dax device NAME bound to kmem, making node `target`, its sysfs link `link`.
void kmem_dax(const TempRoot& root, const std::string& name, unsigned target, const std::string& link) {
  root.write("sys/bus/dax/drivers/kmem/" + name, "");
  root.write("sys" + link.substr(link.find("/devices/")) + "/target_node", std::to_string(target) + "\n");
  root.symlink(link, "sys/bus/dax/devices/" + name);
}

}  // namespace

TEST_CASE("two groups of unknown memory more than twice apart in bandwidth are DRAM and HBM") {
  CHECK(guess_memory_kinds({node(0, 100000), node(1, 100000), node(2, 400000)}) ==
        Kinds{{0, MemKind::Dram}, {1, MemKind::Dram}, {2, MemKind::Hbm}});
  // Twice is not more than twice: nothing is guessed.
  CHECK(guess_memory_kinds({node(0, 12000), node(1, 12000), node(2, 24000)}) ==
        Kinds{{0, MemKind::Unknown}, {1, MemKind::Unknown}, {2, MemKind::Unknown}});
  // Slower memory apart (a CXL expander as plain RAM): the faster is HBM by
  // hwloc's rule, the slower DRAM.
  CHECK(guess_memory_kinds({node(0, 30000), node(2, 10000)}) == Kinds{{0, MemKind::Hbm}, {2, MemKind::Dram}});
  // Within 10%: one group, nothing said.
  CHECK(guess_memory_kinds({node(0, 100000), node(1, 109000)}) ==
        Kinds{{0, MemKind::Unknown}, {1, MemKind::Unknown}});
  // Three groups (a latency apart makes the third): nothing guessed.
  CHECK(guess_memory_kinds({node(0, 100000, 100), node(1, 100000, 300), node(2, 400000, 100)}) ==
        Kinds{{0, MemKind::Unknown}, {1, MemKind::Unknown}, {2, MemKind::Unknown}});
  // A node without a bandwidth joins the group before it, and is not its
  // lowest bandwidth (hwloc's 0 there would make node 0 HBM).
  CHECK(guess_memory_kinds({node(0, 12000), node(2, 9000), node(5, 0)}) ==
        Kinds{{0, MemKind::Unknown}, {2, MemKind::Unknown}, {5, MemKind::Unknown}});
  // No bandwidth: nothing guessed.
  CHECK(guess_memory_kinds({node(0, 0), node(1, 0, 0, MemKind::Spm)}) ==
        Kinds{{0, MemKind::Unknown}, {1, MemKind::Spm}});
}

TEST_CASE("specific-purpose memory beside unknown memory is HBM where it is more than twice as fast") {
  CHECK(guess_memory_kinds({node(0, 90000), node(1, 300000, 0, MemKind::Spm)}) ==
        Kinds{{0, MemKind::Dram}, {1, MemKind::Hbm}});
  CHECK(guess_memory_kinds({node(0, 90000), node(1, 150000, 0, MemKind::Spm)}) ==
        Kinds{{0, MemKind::Unknown}, {1, MemKind::Spm}});
  // What the machine says is kept: no guess where a group is known.
  CHECK(guess_memory_kinds({node(0, 90000), node(1, 20000, 0, MemKind::CxlDram)}) ==
        Kinds{{0, MemKind::Unknown}, {1, MemKind::CxlDram}});
}

TEST_CASE("DAX kmem devices, CXL regions and NVIDIA GPUs name a node's memory") {
  TempRoot root;
  // CXL RAM: region0 whose first target is an endpoint under PCI.
  kmem_dax(root, "dax0.0", 2, "../../../devices/platform/ACPI0017:00/root0/decoder0.0/region0/dax_region0/dax0.0");
  root.write("sys/bus/cxl/devices/region0/target0", "decoder5.0\n");
  root.symlink("../../../devices/platform/ACPI0017:00/root0/port1/endpoint5/decoder5.0",
               "sys/bus/cxl/devices/decoder5.0");
  root.symlink("../../../devices/pci0000:0c/0000:0c:00.0/0000:0d:00.0/mem0", "sys/bus/cxl/devices/endpoint5/uport");
  // An NVDIMM, and soft-reserved memory, and a DAX device not bound to kmem.
  kmem_dax(root, "dax1.0", 3, "../../../devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0012:00/ndbus0/region1/dax1.0/dax1.0");
  kmem_dax(root, "dax2.0", 4, "../../../devices/platform/hmem.0/dax2.0");
  root.symlink("../../../devices/platform/hmem.1/dax3.0", "sys/bus/dax/devices/dax3.0");
  root.write("sys/devices/platform/hmem.1/dax3.0/target_node", "5\n");
  root.write("proc/driver/nvidia/gpus/0004:04:00.0/numa_status", "Node:      255\nStatus:    online\n");
  root.write("proc/driver/nvidia/gpus/0004:05:00.0/numa_status", "Node:      -1\n");
  auto kinds = read_memory_kinds(SysRoot(root.path()));
  CHECK(kinds == Kinds{{2, MemKind::CxlDram}, {3, MemKind::Nvm}, {4, MemKind::Spm}, {255, MemKind::Gpu}});
  // A region whose target is no endpoint is not CXL memory.
  root.symlink("../../../devices/platform/ACPI0017:00/root0/decoder5.0", "sys/bus/cxl/devices/decoder5.0");
  CHECK(read_memory_kinds(SysRoot(root.path())).at(2) == MemKind::Spm);
}

TEST_CASE("the words of mem: name kinds") {
  CHECK(kind_matches(MemKind::CxlDram, "cxl"));
  CHECK(kind_matches(MemKind::CxlNvm, "cxl"));
  CHECK(kind_matches(MemKind::CxlNvm, "nvm"));
  CHECK(!kind_matches(MemKind::CxlDram, "dram"));
  CHECK(kind_matches(MemKind::Hbm, "hbm"));
  CHECK(kind_matches(MemKind::Gpu, "gpu"));
  CHECK(!kind_matches(MemKind::Spm, "hbm"));
  CHECK(!kind_matches(MemKind::Unknown, "dram"));
  CHECK(std::string(mem_kind_name(MemKind::CxlDram)) == "CXL-DRAM");
}

TEST_CASE("a topology's nodes get their kinds from their files and HMAT figures") {
  TempRoot root;
  cxl_machine(root);
  write_hmat(root, 2, 1, 40000, 40000, 80, 80, "0");  // HBM-like: more than twice the DRAM's 12000
  Topology t = read_topology(SysRoot(root.path()));
  CHECK(t.nodes[0].kind == MemKind::Dram);
  CHECK(t.nodes[1].kind == MemKind::Dram);
  CHECK(t.nodes[2].kind == MemKind::Hbm);
}
