#pragma once
// The options that shape a selection after WHERE: --no-smt, --order,
// --slice K/N, --count N. Each works on whole cores in core index order
// (Topology's machine-wide core index; a CPU whose core is unknown is a core
// of its own, after the known ones, by CPU number).

#include <vector>

#include "cpuset.hpp"
#include "resolver.hpp"
#include "topology.hpp"

namespace affix {

// The selected CPUs grouped by core, cores in index order, CPUs ascending.
std::vector<std::vector<unsigned>> group_by_core(const Topology& topo, const CpuSet& cpus);

// --no-smt: the lowest-numbered selected CPU of each core.
CpuSet keep_one_per_core(const Topology& topo, const CpuSet& cpus);

// --slice K/N: part K of N contiguous parts of whole cores; the first C mod N
// parts get one core more. Throws Error(Resolution) when there are fewer
// cores than N, when N is 0 or when K >= N.
CpuSet slice_cores(const Topology& topo, const CpuSet& cpus, unsigned k, unsigned n);

// Every part of --slice K/N at once (part K at index K), for --gpu, which
// gives each rank a GPU near its part; the same errors as slice_cores.
std::vector<CpuSet> slice_parts(const Topology& topo, const CpuSet& cpus, unsigned n);

// The selection order (--order): compact: every core's first CPU in core
// order, then every core's second, ...; scatter: the same with cores taken
// round-robin over the NUMA nodes of the selection (nodes in topology order).
std::vector<unsigned> order_cpus(const Topology& topo, const CpuSet& cpus, Order order);

}  // namespace affix
