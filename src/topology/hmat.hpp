#pragma once
// A node's HMAT figures as the kernel shows them
// (Documentation/ABI/stable/sysfs-devices-node, "accessY"): under
// nodeN/accessY/initiators/ the files read_bandwidth and write_bandwidth
// (MB/s), read_latency and write_latency (ns), and a link nodeX for each
// node whose initiators those figures are for. access0 is from the nearest
// initiators of any kind, access1 (Linux 5.10 and later) from the nearest
// CPUs: access1 is read where there is one, else access0, as hwloc reads
// them (topology-linux.c, read_node_local_memattrs).

#include <string>
#include <vector>

#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// Never fails: a figure that is not a number is left out with a warning
// naming its file; a figure of 0 is the kernel's "not given" (as hwloc
// reads it); a node without these files has none (NodeHmat::access -1).
NodeHmat read_node_hmat(const SysRoot& root, unsigned node, std::vector<std::string>& warnings);

// The bandwidth the kernel weighs a node by (mm/mempolicy.c,
// mempolicy_set_node_perf): the smaller of read and write; nullopt where
// either is not known.
std::optional<unsigned long long> weight_bandwidth(const NodeHmat& hmat);

}  // namespace affix
