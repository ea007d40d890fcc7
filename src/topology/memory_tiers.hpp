#pragma once
// Memory that is not all alike (ReadScope::tiers): the kernel's memory tiers
// (Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers: one directory
// /sys/devices/virtual/memory_tiering/memory_tierN per tier, its nodes in
// `nodelist`; Linux 6.1 and later), each node's HMAT figures (hmat.hpp) and
// kind (memory_kinds.hpp), and the interleave weights
// (interleave_weights.hpp). A tier whose nodelist cannot be read or makes no
// sense is left out with a warning; so is a node a second tier lists.

#include <string>
#include <vector>

#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

constexpr std::string_view k_tiers_dir = "sys/devices/virtual/memory_tiering";

// The tiers, ascending number; empty where the kernel lists none.
std::vector<MemoryTier> read_memory_tiers(const SysRoot& root, std::vector<std::string>& warnings);

// Reads all of the above into `topo` (its nodes already read): tiers,
// NodeInfo::tier, hmat and kind, interleave; sets tiers_read. Warnings are
// added to topo.warnings.
void read_memory_tiering(const SysRoot& root, Topology& topo);

// "4 (nodes 0-1), 22 (node 2)": the tiers and their nodes; "" where none.
std::string tiers_text(const std::vector<MemoryTier>& tiers);

}  // namespace affix
