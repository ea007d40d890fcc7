// Reads the machine's topology under a root directory, the way hwloc does:
// every grouping (package, die, core, last-level cache, node) comes from the
// kernel's CPU masks, and a unit is made from CPU i's mask only where i is
// the lowest online CPU of that mask; a mask that overlaps a unit already
// made is ignored (hwloc drops such conflicting objects), with hwloc's
// corrections (topology_quirks.cpp); a CPU that tells nothing of its core is
// its own core. The unit order is then affix(1)'s tree walk ("Order of units") (see
// order_units in topology_order.cpp).
#include "topology.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "cpu_kinds.hpp"
#include "error.hpp"
#include "memory_tiers.hpp"
#include "topology_order.hpp"
#include "topology_quirks.hpp"
#include "topology_read.hpp"

namespace affix {

const char* level_name(Level level) {
  switch (level) {
    case Level::Socket: return "socket";
    case Level::Node: return "node";
    case Level::Die: return "die";
    case Level::Llc: return "llc";
    case Level::Core: return "core";
    case Level::Cpu: return "cpu";
  }
  return "?";
}

const std::vector<Unit>& Topology::units(Level level) const {
  switch (level) {
    case Level::Socket: return sockets;
    case Level::Node: return numa;
    case Level::Die: return dies;
    case Level::Llc: return llcs;
    case Level::Core: return cores;
    case Level::Cpu: return threads;
  }
  return threads;
}

const NodeInfo* Topology::node(unsigned number) const {
  auto it = std::lower_bound(nodes.begin(), nodes.end(), number,
                             [](const NodeInfo& n, unsigned v) { return n.node < v; });
  return it != nodes.end() && it->node == number ? &*it : nullptr;
}

std::optional<unsigned> Topology::distance(unsigned from, unsigned to) const {
  const NodeInfo* a = node(from);
  const NodeInfo* b = node(to);
  if (!a || !b) return std::nullopt;
  size_t j = static_cast<size_t>(b - nodes.data());
  if (j >= a->distances.size()) return std::nullopt;
  return a->distances[j];
}

CpuSet Topology::node_set() const {
  CpuSet s;
  for (auto& n : nodes) s.set(n.node);
  return s;
}

namespace {

// Per-CPU unit numbers of one level, built with hwloc's rule from each
// online CPU's mask (an index into MaskCache::sets, or -1 where the CPU has
// no mask file). Returns the unit sets (online CPUs only) in the order of
// their lowest CPU; `unit_of[cpu]` is the unit number or -1.
std::vector<CpuSet> build_units(const std::vector<int>& mask_of, const MaskCache& masks,
                                const CpuSet& online, std::vector<int>& unit_of) {
  std::vector<CpuSet> units;
  unit_of.assign(mask_of.size(), -1);
  std::unordered_map<int, CpuSet> online_part;  // mask index -> mask & online
  CpuSet covered;
  online.for_each([&](unsigned cpu) {
    if (cpu >= mask_of.size() || mask_of[cpu] < 0) return;
    auto it = online_part.find(mask_of[cpu]);
    if (it == online_part.end())
      it = online_part.emplace(mask_of[cpu], masks.sets[static_cast<size_t>(mask_of[cpu])] & online).first;
    const CpuSet& set = it->second;
    if (set.empty() || set.first() != cpu || set.intersects(covered)) return;
    covered |= set;
    int id = static_cast<int>(units.size());
    set.for_each([&](unsigned m) { unit_of[m] = id; });
    units.push_back(set);
  });
  return units;
}

// Where a CPU has an id file but no mask file (old kernels), its mask is
// the CPUs with the same id (and the same parent unit) that lack one too.
void masks_from_ids(std::vector<int>& mask_of, const std::vector<long>& id_of,
                    const std::vector<int>& parent_of, MaskCache& masks, const CpuSet& online) {
  std::map<std::pair<int, long>, CpuSet> groups;
  online.for_each([&](unsigned cpu) {
    if (mask_of[cpu] < 0 && id_of[cpu] >= 0) groups[{parent_of[cpu], id_of[cpu]}].set(cpu);
  });
  for (auto& [key, set] : groups) {
    int index = masks.add(set);
    set.for_each([&](unsigned cpu) { mask_of[cpu] = index; });
  }
}

// What a read without the tree gives: which CPUs exist and which are online,
// each online CPU known, its own only thread, its place unknown.
Topology cpus_only(RawTopology& raw) {
  Topology topo;
  topo.possible = raw.cpus;
  topo.online = raw.online;
  topo.nodes = std::move(raw.nodes);
  topo.cpus.resize(raw.cpus.end());
  for (unsigned cpu = 0; cpu < topo.cpus.size(); ++cpu) topo.cpus[cpu].cpu = cpu;
  topo.online.for_each([&](unsigned cpu) {
    CpuInfo& c = topo.cpus[cpu];
    c.online = c.known = true;
    c.siblings = CpuSet::range(cpu, cpu);
    topo.threads.push_back(Unit{static_cast<long>(cpu), c.siblings});
  });
  topo.warnings = raw.warnings.take();
  return topo;
}

}  // namespace

Topology read_topology(const SysRoot& root, ReadScope scope) {
  RawTopology raw = read_raw_topology(root, scope);
  if (!scope.tree) return cpus_only(raw);
  Topology topo;
  topo.possible = raw.cpus;
  topo.online = raw.online;
  topo.isolated = raw.isolated;
  topo.nodes = std::move(raw.nodes);
  const size_t n = raw.cpus.end();
  topo.cpus.resize(n);
  const CpuSet& online = raw.online;

  // Packages: masks, else same physical_package_id.
  std::vector<int> no_parent(n, -1);
  masks_from_ids(raw.package_mask, raw.package_id, no_parent, raw.masks, online);
  std::vector<int> socket_of;
  auto socket_sets = build_units(raw.package_mask, raw.masks, online, socket_of);
  merge_split_packages(root, raw, socket_sets, socket_of);
  // Socket numbers are the kernel's physical_package_id of the unit's first
  // CPU (first_id). hwloc makes a package of unknown number where the kernel
  // says -1 (s390, the oracle's "L<n>"); affix numbers those (and any number
  // used twice, off x86) after the largest real one, in the order of their
  // lowest CPU.
  std::vector<long> socket_number(socket_sets.size(), -1);
  long largest = -1;
  CpuSet used_numbers;
  for (size_t u = 0; u < socket_sets.size(); ++u) {
    long id = first_id(raw.package_id, socket_sets[u]);
    if (id >= 0 && !used_numbers.test(static_cast<unsigned>(id))) {
      socket_number[u] = id;
      used_numbers.set(static_cast<unsigned>(id));
      largest = std::max(largest, id);
    }
  }
  for (auto& number : socket_number)
    if (number < 0) number = ++largest;

  // Dies: die_cpus masks, else same die_id within the socket.
  masks_from_ids(raw.die_mask, raw.die_id, socket_of, raw.masks, online);
  std::vector<int> die_of;
  auto die_sets = build_units(raw.die_mask, raw.masks, online, die_of);
  split_compute_units(root, raw);
  // A CPU that tells nothing of its core (no core_id, no core mask: no
  // topology at all, or a package alone) is its own core (affix(1), READING
  // THE MACHINE, "CPUs without topology"; hwloc's reading too).
  online.for_each([&](unsigned cpu) {
    if (raw.core_mask[cpu] < 0 && raw.core_id[cpu] < 0) raw.core_mask[cpu] = raw.masks.add(CpuSet::range(cpu, cpu));
  });
  // An empty cache mask (ia64's L3) stands for the CPU's core, as in hwloc.
  online.for_each([&](unsigned cpu) {
    int m = raw.llc_mask[cpu];
    if (m < 0 || raw.masks.sets[static_cast<size_t>(m)].intersects(online)) return;
    raw.llc_mask[cpu] = raw.core_mask[cpu] >= 0 ? raw.core_mask[cpu] : raw.masks.add(CpuSet::range(cpu, cpu));
  });
  std::vector<int> llc_of;
  auto llc_sets = build_units(raw.llc_mask, raw.masks, online, llc_of);
  std::vector<int> core_of;
  auto core_sets = build_units(raw.core_mask, raw.masks, online, core_of);

  for (unsigned cpu = 0; cpu < n; ++cpu) {
    CpuInfo& c = topo.cpus[cpu];
    c.cpu = cpu;
    c.online = online.test(cpu);
    c.known = c.online || raw.has_topology[cpu];
    c.die_id = raw.die_id[cpu];
    c.core_id = raw.core_id[cpu];
    c.node = raw.node_of[cpu];
    if (c.online) {
      c.socket = socket_of[cpu] >= 0 ? socket_number[static_cast<size_t>(socket_of[cpu])] : -1;
    } else {
      // An offline CPU keeps the kernel's numbers where it still reports them.
      c.socket = raw.package_id[cpu];
    }
  }

  UnitGroups groups{socket_of, die_of, llc_of, core_of, socket_sets, die_sets, llc_sets,
                    core_sets, socket_number};
  order_units(topo, groups);
  topo.warnings = raw.warnings.take();
  if (scope.tiers && scope.memory) read_memory_tiering(root, topo);
  if (scope.kinds) {
    topo.kinds = read_cpu_kinds(root, topo.online);
    topo.hybrid = topo.kinds.size() > 1;
    for (size_t k = 0; k < topo.kinds.size(); ++k)
      topo.kinds[k].for_each([&](unsigned cpu) { topo.cpus[cpu].kind = static_cast<int>(k); });
  }
  return topo;
}

}  // namespace affix
