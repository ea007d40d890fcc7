#include "memnodes.hpp"

#include <fmt/format.h>

#include <limits>
#include <optional>

#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

bool mem_allowed(const Allowed& allowed, unsigned node) {
  return allowed.mems.empty() || allowed.mems.test(node);
}

// The allowed node with memory nearest to topo.nodes[i] by its distance
// row; nodes are sorted by number, so the first minimum is the lowest number.
std::optional<unsigned> nearest_with_memory(const Topology& topo, size_t i, const Allowed& allowed) {
  const NodeInfo& n = topo.nodes[i];
  std::optional<unsigned> best;
  unsigned best_distance = std::numeric_limits<unsigned>::max();
  for (size_t j = 0; j < topo.nodes.size(); ++j) {
    const NodeInfo& m = topo.nodes[j];
    if (j == i || !m.has_memory() || !mem_allowed(allowed, m.node)) continue;
    unsigned d = j < n.distances.size() ? n.distances[j] : std::numeric_limits<unsigned>::max() - 1;
    if (!best || d < best_distance) {
      best = m.node;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace

CpuSet default_mem_nodes(const Topology& topo, const CpuSet& cpu_nodes, const Allowed& allowed) {
  CpuSet out;
  for (size_t i = 0; i < topo.nodes.size(); ++i) {
    const NodeInfo& n = topo.nodes[i];
    if (!cpu_nodes.test(n.node)) continue;
    if (n.has_memory() && mem_allowed(allowed, n.node)) {
      out.set(n.node);
      continue;
    }
    if (auto best = nearest_with_memory(topo, i, allowed)) out.set(*best);
  }
  if (out.empty())
    throw Error(ErrorKind::Resolution,
                fmt::format("no allowed memory node for the CPUs' nodes {} (allowed: {}, from {})",
                            list_or_none(cpu_nodes),
                            allowed.mems.empty() ? "all" : format_cpulist(allowed.mems),
                            printable(allowed.mems_source)));
  return out;
}

CpuSet explicit_mem_nodes(const Topology& topo, const CpuSet& nodes, const Allowed& allowed) {
  nodes.for_each([&](unsigned node) {
    size_t i = 0;
    while (i < topo.nodes.size() && topo.nodes[i].node != node) ++i;
    if (i == topo.nodes.size())
      throw Error(ErrorKind::Resolution, fmt::format("no node {} on this machine (nodes: {})",
                                                     node, list_or_none(topo.node_set())));
    if (!topo.nodes[i].has_memory()) {
      auto nearest = nearest_with_memory(topo, i, allowed);
      throw Error(ErrorKind::Resolution, fmt::format("node {} has no memory", node),
                  nearest ? fmt::format("the nearest node with memory is {}", *nearest) : std::string());
    }
    if (!mem_allowed(allowed, node))
      throw Error(ErrorKind::Resolution,
                  fmt::format("memory node {} is not allowed (allowed: {}, from {})", node,
                              format_cpulist(allowed.mems), printable(allowed.mems_source)));
  });
  return nodes;
}

CpuSet weighted_default_nodes(const Topology& topo, const CpuSet& cpu_nodes, const Allowed& allowed) {
  CpuSet out = default_mem_nodes(topo, cpu_nodes, allowed);
  for (const NodeInfo& n : topo.nodes) {
    if (!n.cpus.empty() || !n.has_memory() || !mem_allowed(allowed, n.node) || n.kind == MemKind::Gpu) continue;
    if (n.hmat.initiators.intersects(cpu_nodes)) out.set(n.node);
  }
  return out;
}


}  // namespace affix
