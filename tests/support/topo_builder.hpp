#pragma once
// Small hand-built Topology values for unit tests, with the units in the
// contract's order (a tree walk socket -> node -> die -> llc -> core ->
// thread, siblings visited by their lowest-numbered CPU), the way
// read_topology lays them out.

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "topology.hpp"

namespace affix::test {

enum class Numbering {
  Linear,     // first threads of every core 0..K-1, then second threads K..2K-1 (Intel)
  Alternate,  // like Linear, but consecutive numbers alternate across sockets
  Packed,     // the threads of a core are consecutive (0,1 = core 0)
};

struct TopoSpec {
  unsigned sockets = 1;
  unsigned nodes_per_socket = 1;
  unsigned cores_per_node = 2;
  unsigned smt = 1;
  unsigned llcs_per_node = 1;
  Numbering numbering = Numbering::Linear;
  std::vector<unsigned> offline;  // CPUs that are offline
  bool offline_known = true;      // whether offline CPUs keep their place
  std::vector<unsigned> isolated;
};

inline Topology build(const TopoSpec& spec) {
  Topology t;
  unsigned S = spec.sockets, C = spec.cores_per_node * spec.nodes_per_socket;  // cores per socket
  unsigned K = S * C, T = spec.smt, n_cpus = K * T;
  t.cpus.resize(n_cpus);
  std::vector<long> core_key(n_cpus), llc_key(n_cpus);
  for (unsigned s = 0; s < S; ++s)
    for (unsigned i = 0; i < C; ++i)
      for (unsigned th = 0; th < T; ++th) {
        unsigned cpu = 0;
        switch (spec.numbering) {
          case Numbering::Linear: cpu = th * K + s * C + i; break;
          case Numbering::Alternate: cpu = th * K + i * S + s; break;
          case Numbering::Packed: cpu = (s * C + i) * T + th; break;
        }
        CpuInfo& c = t.cpus[cpu];
        c.cpu = cpu;
        c.online = c.known = true;
        c.socket = s;
        c.die_id = 0;
        c.core_id = i;
        unsigned local_node = i / spec.cores_per_node;
        c.node = s * spec.nodes_per_socket + local_node;
        unsigned per_llc = std::max(1u, spec.cores_per_node / spec.llcs_per_node);
        llc_key[cpu] = c.node * spec.llcs_per_node + (i % spec.cores_per_node) / per_llc;
        core_key[cpu] = s * C + i;
      }
  t.possible = CpuSet::range(0, n_cpus - 1);
  t.online = t.possible;
  for (unsigned cpu : spec.offline) {
    t.online.reset(cpu);
    t.cpus[cpu].online = false;
    if (!spec.offline_known) {
      t.cpus[cpu].known = false;
      t.cpus[cpu].socket = t.cpus[cpu].node = t.cpus[cpu].die_id = t.cpus[cpu].core_id = -1;
    }
  }
  for (unsigned cpu : spec.isolated) t.isolated.set(cpu);

  // Walk order of the online CPUs: by the lowest CPU of socket, node, die, llc, core.
  std::map<long, unsigned> min_socket, min_node, min_llc, min_core;
  auto lower = [](std::map<long, unsigned>& m, long k, unsigned cpu) {
    auto it = m.find(k);
    if (it == m.end() || cpu < it->second) m[k] = cpu;
  };
  std::vector<unsigned> walk;
  for (unsigned cpu = 0; cpu < n_cpus; ++cpu) {
    if (!t.cpus[cpu].online) continue;
    walk.push_back(cpu);
    lower(min_socket, t.cpus[cpu].socket, cpu);
    lower(min_node, t.cpus[cpu].node, cpu);
    lower(min_llc, llc_key[cpu], cpu);
    lower(min_core, core_key[cpu], cpu);
  }
  auto key = [&](unsigned cpu) {
    const CpuInfo& c = t.cpus[cpu];
    return std::make_tuple(min_socket[c.socket], min_node[c.node], min_llc[llc_key[cpu]],
                           min_core[core_key[cpu]], cpu);
  };
  std::sort(walk.begin(), walk.end(), [&](unsigned a, unsigned b) { return key(a) < key(b); });
  std::map<long, int> socket_ix, node_ix, llc_ix, core_ix;
  auto unit_of = [](std::map<long, int>& ix, std::vector<Unit>& units, long k, long id) {
    auto it = ix.find(k);
    if (it != ix.end()) return it->second;
    int i = static_cast<int>(units.size());
    ix[k] = i;
    units.push_back(Unit{id, {}});
    return i;
  };
  for (unsigned cpu : walk) {
    CpuInfo& c = t.cpus[cpu];
    int si = unit_of(socket_ix, t.sockets, c.socket, c.socket);
    t.sockets[si].cpus.set(cpu);
    t.dies.resize(t.sockets.size());
    t.dies[si].id = si;
    t.dies[si].cpus.set(cpu);
    c.die = si;
    int ni = unit_of(node_ix, t.numa, c.node, c.node);
    t.numa[ni].cpus.set(cpu);
    c.llc = unit_of(llc_ix, t.llcs, llc_key[cpu], static_cast<long>(t.llcs.size()));
    t.llcs[c.llc].cpus.set(cpu);
    c.core = unit_of(core_ix, t.cores, core_key[cpu], static_cast<long>(t.cores.size()));
    c.thread = static_cast<int>(t.cores[c.core].cpus.count());
    t.cores[c.core].cpus.set(cpu);
    t.threads.push_back(Unit{cpu, CpuSet::range(cpu, cpu)});
  }
  for (unsigned cpu = 0; cpu < n_cpus; ++cpu) {
    CpuInfo& c = t.cpus[cpu];
    if (c.online || !c.known) continue;
    auto find = [](std::map<long, int>& ix, long k) {
      auto it = ix.find(k);
      return it == ix.end() ? -1 : it->second;
    };
    c.die = find(socket_ix, c.socket);
    c.llc = find(llc_ix, llc_key[cpu]);
    c.core = find(core_ix, core_key[cpu]);
  }
  for (auto& c : t.cpus)
    if (c.core >= 0) c.siblings = t.cores[c.core].cpus;
  t.smt = T;
  unsigned n_nodes = S * spec.nodes_per_socket;
  for (unsigned n = 0; n < n_nodes; ++n) {
    NodeInfo info;
    info.node = n;
    for (const auto& c : t.cpus)
      if (c.online && c.node == n) info.cpus.set(c.cpu);
    info.memory_total_kb = 1024 * 1024;
    info.memory_free_kb = 512 * 1024;
    for (unsigned m = 0; m < n_nodes; ++m)
      info.distances.push_back(m == n ? 10 : (m / spec.nodes_per_socket == n / spec.nodes_per_socket ? 20 : 30));
    t.nodes.push_back(info);
  }
  return t;
}

inline Allowed allow_all(const Topology& t) {
  Allowed a;
  a.cpus = t.online;
  for (const auto& n : t.nodes) a.mems.set(n.node);
  a.source = "all-online";
  return a;
}

}  // namespace affix::test
