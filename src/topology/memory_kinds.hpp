#pragma once
// What kind of memory each node holds, decided as hwloc 2.10+ decides it
// (hwloc/memattrs.c: hwloc__group_memory_tiers and
// hwloc__guess_memory_tiers_kinds; hwloc/topology-linux.c: annotate_dax_nodes,
// annotate_cxl_dax and the NVIDIA GPU nodes), so that affix and lstopo name
// the same nodes alike:
//
//  1. What the machine says of a node itself: GPU memory, where
//     /proc/driver/nvidia/gpus/BDF/numa_status names the node ("Node: N");
//     else, where a DAX device bound to the kmem driver
//     (/sys/bus/dax/drivers/kmem/daxX.Y) makes the node (its target_node),
//     NVM where the device sits under an NVDIMM bus ("ndbus" in the path
//     its /sys/bus/dax/devices/daxX.Y link names), else SPM
//     (specific-purpose memory: "soft reserved", often HBM); and CXL where
//     that path names a CXL region whose first target is a CXL endpoint
//     under PCI (/sys/bus/cxl/devices/regionN/target0, the decoder's
//     endpoint, its uport): CXL-NVM, else CXL-DRAM.
//  2. hwloc's groups: the nodes sorted by kind (unknown first), then by
//     bandwidth (highest first); a new group starts where the kind changes,
//     or the bandwidth or the latency differs by more than 10% from the
//     node before (the average of read and write, where both are known).
//  3. Where no group is known DRAM or HBM: two unknown groups (and no SPM),
//     or one unknown and one SPM, where the faster group's lowest bandwidth
//     is more than twice the slower group's highest, are DRAM (the slower)
//     and HBM (the faster). Nothing else is guessed: a machine of one group
//     says nothing of its kind. (One difference: a node without a
//     bandwidth figure, which joins the group before it, is not that
//     group's lowest bandwidth; hwloc takes its 0 there and calls the other
//     group HBM whatever its bandwidth.)
//
// Only nodes with memory have a kind (a memoryless node holds none); hwloc
// counts every node, which changes nothing where memoryless nodes have no
// HMAT figures and no DAX device.

#include <map>
#include <string>
#include <vector>

#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// Step 1: the kinds the machine's files give, per node number.
std::map<unsigned, MemKind> read_memory_kinds(const SysRoot& root);

// One node for steps 2 and 3: its kind from step 1, its bandwidth and
// latency (0 where not known).
struct KindInput {
  unsigned node = 0;
  MemKind kind = MemKind::Unknown;
  unsigned long long bandwidth = 0;  // MB/s
  unsigned long long latency = 0;    // ns
};
// Steps 2 and 3: the kind of every node, where guessed.
std::map<unsigned, MemKind> guess_memory_kinds(std::vector<KindInput> nodes);

// Steps 1 to 3 over the topology's nodes with memory (their HMAT figures
// already read): sets each NodeInfo::kind.
void set_memory_kinds(const SysRoot& root, Topology& topo);

// The word of a `mem:` selector for a kind: "dram", "hbm", "gpu", "nvm",
// "cxl"; "" for Unknown and SPM. A word names its kinds (`cxl`: CXL-DRAM
// and CXL-NVM; `nvm`: NVM and CXL-NVM).
bool kind_matches(MemKind kind, std::string_view word);
// The words kind_matches knows, in the order the help lists them.
const std::vector<std::string>& mem_kind_words();

}  // namespace affix
