#include "topology_order.hpp"

#include <algorithm>
#include <array>
#include <map>

namespace affix {

namespace {

constexpr size_t k_levels = 5;  // socket, node, die, llc, core (then the CPU itself)

// Groups of the tree walk: a CPU's group at a level is (its group at the
// level above, its unit at this level), so a unit spanning two parents
// makes two groups, each visited where the walk reaches it. A CPU without
// a unit at a level (hwloc found none) is grouped with the CPUs under the
// same parent that lack one too.
class WalkGroups {
public:
  int group(int parent, long unit, unsigned cpu) {
    auto [it, fresh] = m_ids.try_emplace({parent, unit}, static_cast<int>(m_min.size()));
    if (fresh) m_min.push_back(cpu);  // CPUs arrive in increasing order: the first is the lowest
    return it->second;
  }
  unsigned lowest(int group) const { return m_min[static_cast<size_t>(group)]; }

private:
  std::map<std::pair<int, long>, int> m_ids;
  std::vector<unsigned> m_min;
};

}  // namespace

void order_units(Topology& topo, const UnitGroups& g) {
  // The sort key of each online CPU: the lowest CPU of its group at each
  // level of the walk, then its own number.
  using Key = std::array<unsigned, k_levels + 1>;
  std::vector<Key> keys;
  std::vector<unsigned> order;
  WalkGroups walk;
  topo.online.for_each([&](unsigned cpu) {
    const long units[k_levels] = {g.socket_of[cpu], topo.cpus[cpu].node, g.die_of[cpu], g.llc_of[cpu],
                                  g.core_of[cpu]};
    Key key{};
    int parent = -1;
    for (size_t level = 0; level < k_levels; ++level) {
      parent = walk.group(parent, units[level], cpu);
      key[level] = walk.lowest(parent);
    }
    key[k_levels] = cpu;
    keys.push_back(key);
    order.push_back(cpu);
  });
  std::vector<size_t> perm(order.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });

  std::vector<int> socket_index(g.socket_sets.size(), -1), die_index(g.die_sets.size(), -1),
      llc_index(g.llc_sets.size(), -1), core_index(g.core_sets.size(), -1);
  std::map<long, bool> node_seen;
  auto visit = [](int unit, std::vector<int>& index, const std::vector<CpuSet>& sets, std::vector<Unit>& out,
                  long id) {
    if (unit < 0) return -1;
    int& slot = index[static_cast<size_t>(unit)];
    if (slot < 0) {
      slot = static_cast<int>(out.size());
      out.push_back(Unit{id < 0 ? slot : id, sets[static_cast<size_t>(unit)]});
    }
    return slot;
  };
  for (size_t p : perm) {
    unsigned cpu = order[p];
    CpuInfo& c = topo.cpus[cpu];
    int s = g.socket_of[cpu];
    if (s >= 0) visit(s, socket_index, g.socket_sets, topo.sockets, g.socket_number[static_cast<size_t>(s)]);
    if (c.node >= 0 && !node_seen[c.node]) {
      node_seen[c.node] = true;
      const NodeInfo* info = topo.node(static_cast<unsigned>(c.node));
      topo.numa.push_back(Unit{c.node, info ? info->cpus & topo.online : CpuSet{}});
    }
    c.die = visit(g.die_of[cpu], die_index, g.die_sets, topo.dies, -1);
    c.llc = visit(g.llc_of[cpu], llc_index, g.llc_sets, topo.llcs, -1);
    c.core = visit(g.core_of[cpu], core_index, g.core_sets, topo.cores, -1);
    topo.threads.push_back(Unit{cpu, CpuSet::range(cpu, cpu)});
  }
  // Nodes without online CPUs (memory-only, or CPUs all offline) come after
  // the walk, by number, with no CPUs: they exist, for --mem and errors.
  for (auto& node : topo.nodes)
    if (!node_seen[node.node]) topo.numa.push_back(Unit{node.node, CpuSet{}});

  // Threads: the CPU's index inside its core, by CPU number.
  topo.smt = 1;
  for (auto& core : topo.cores) {
    int thread = 0;
    core.cpus.for_each([&](unsigned cpu) {
      topo.cpus[cpu].thread = thread++;
      topo.cpus[cpu].siblings = core.cpus;
    });
    topo.smt = std::max(topo.smt, core.cpus.count());
  }
}

}  // namespace affix
