#include "memnodes.hpp"

#include <fmt/format.h>

#include <limits>

#include "error.hpp"

namespace affix {

namespace {

bool mem_allowed(const Allowed& allowed, unsigned node) {
  return allowed.mems.empty() || allowed.mems.test(node);
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
    // Nearest allowed node with memory by this node's distance row; nodes
    // are sorted by number, so the first minimum is the lowest number.
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
    if (best) out.set(*best);
  }
  if (out.empty())
    throw Error(ErrorKind::Resolution,
                fmt::format("no allowed memory node for the CPUs' nodes {} (allowed: {})",
                            list_or_none(cpu_nodes),
                            allowed.mems.empty() ? "all" : format_cpulist(allowed.mems)));
  return out;
}

CpuSet explicit_mem_nodes(const Topology& topo, std::string_view text, const Allowed& allowed) {
  auto parsed = parse_cpulist(text);
  if (!parsed)
    throw Error(ErrorKind::Spec, fmt::format("invalid memory nodes: {}", parsed.error.message));
  parsed.value->for_each([&](unsigned node) {
    bool exists = false;
    for (const auto& n : topo.nodes) exists = exists || n.node == node;
    if (!exists)
      throw Error(ErrorKind::Resolution, fmt::format("no node {} on this machine (nodes: {})",
                                                     node, list_or_none(topo.node_set())));
    if (!mem_allowed(allowed, node))
      throw Error(ErrorKind::Resolution,
                  fmt::format("memory node {} is not allowed (allowed: {}, from {})", node,
                              format_cpulist(allowed.mems), allowed.source));
  });
  return *parsed.value;
}


}  // namespace affix
