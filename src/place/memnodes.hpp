#pragma once
// The memory nodes of `--mem POLICY[:NODES]`.
//
// Default (no NODES): the NUMA nodes of the selected CPUs that have memory;
// a memoryless node stands for its nearest node with memory that is allowed,
// by its own distance row (ties to the lowest node number: the kernel's
// fallback order); only allowed memory nodes are kept. A node whose memory
// size is unknown counts as having memory. An empty Allowed::mems means
// every node is allowed.
//
// Explicit NODES: a node list (cpulist syntax, parsed by mem_select.hpp);
// every node must exist, have memory (a node whose MemTotal is 0 kB has
// none; one whose size is unknown counts as having some) and be allowed by
// the cpuset's memory nodes.
//
// --mem weighted without NODES: the default nodes, and the CPU-less nodes
// with memory whose HMAT initiators (NodeHmat::initiators) are among the
// CPUs' nodes: the memory expanders (CXL) and HBM attached to those CPUs,
// which weighted interleave is for. GPU memory is never among them.

#include "cpuset.hpp"
#include "os.hpp"
#include "resolver.hpp"
#include "topology.hpp"

namespace affix {

// Throws Error(Resolution) when no allowed node with memory is left.
CpuSet default_mem_nodes(const Topology& topo, const CpuSet& cpu_nodes, const Allowed& allowed);

// Throws Error(Resolution) for a node that does not exist, has no memory,
// or is not allowed (naming the file that said so: Allowed::mems_source).
CpuSet explicit_mem_nodes(const Topology& topo, const CpuSet& nodes, const Allowed& allowed);

// The default nodes of --mem weighted (above); throws as default_mem_nodes.
CpuSet weighted_default_nodes(const Topology& topo, const CpuSet& cpu_nodes, const Allowed& allowed);


}  // namespace affix
