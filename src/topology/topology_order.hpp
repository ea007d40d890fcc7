#pragma once
// The order of units (affix(1), LOCATIONS, "Order of units"): a tree walk socket -> node -> die -> llc ->
// core -> thread, siblings visited by their lowest-numbered CPU, a unit that
// spans several parents indexed where the walk first meets it.

#include <vector>

#include "cpuset.hpp"
#include "topology.hpp"

namespace affix {

// The units found for each level (online CPUs only), and each CPU's unit
// number in them (-1 where it has none). The node of a CPU is
// Topology::cpus[cpu].node.
struct UnitGroups {
  const std::vector<int>& socket_of;
  const std::vector<int>& die_of;
  const std::vector<int>& llc_of;
  const std::vector<int>& core_of;
  const std::vector<CpuSet>& socket_sets;
  const std::vector<CpuSet>& die_sets;
  const std::vector<CpuSet>& llc_sets;
  const std::vector<CpuSet>& core_sets;
  const std::vector<long>& socket_number;  // kernel number of each socket unit
};

// Fills topo.sockets/numa/dies/llcs/cores/threads, and each online CPU's
// die, llc, core, thread and siblings, and topo.smt.
void order_units(Topology& topo, const UnitGroups& groups);

}  // namespace affix
