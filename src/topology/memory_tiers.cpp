#include "memory_tiers.hpp"

#include <fmt/format.h>

#include "error.hpp"
#include "hmat.hpp"
#include "memory_kinds.hpp"
#include "topology_read.hpp"

namespace affix {

std::vector<MemoryTier> read_memory_tiers(const SysRoot& root, std::vector<std::string>& warnings) {
  std::vector<MemoryTier> out;
  std::vector<std::string> names;
  try {
    names = root.list(k_tiers_dir, 1u << 16);
  } catch (const Error& e) {
    warnings.push_back(fmt::format("{} (left out)", e.what()));
    return out;
  }
  CpuSet taken;
  for (const std::string& name : names) {
    auto id = numbered(name, "memory_tier", k_max_id);
    if (!id) continue;
    std::string rel = fmt::format("{}/{}/nodelist", k_tiers_dir, name);
    std::optional<CpuSet> nodes;
    try {
      nodes = root.read_cpulist(rel);
    } catch (const Error& e) {
      warnings.push_back(fmt::format("{} (left out)", e.what()));
      continue;
    }
    if (!nodes) continue;
    if (nodes->intersects(taken)) {
      warnings.push_back(fmt::format("{}: nodes {} are in another tier too (left out here)", root.path(rel),
                                     format_cpulist(*nodes & taken)));
      *nodes -= taken;
    }
    taken |= *nodes;
    out.push_back(MemoryTier{*id, *nodes});
  }
  std::sort(out.begin(), out.end(), [](const MemoryTier& a, const MemoryTier& b) { return a.id < b.id; });
  return out;
}

void read_memory_tiering(const SysRoot& root, Topology& topo) {
  topo.tiers_read = true;
  topo.tiers = read_memory_tiers(root, topo.warnings);
  for (NodeInfo& n : topo.nodes) {
    for (const MemoryTier& t : topo.tiers)
      if (t.nodes.test(n.node)) n.tier = t.id;
    n.hmat = read_node_hmat(root, n.node, topo.warnings);
  }
  set_memory_kinds(root, topo);
  topo.interleave = read_interleave_weights(root);
  for (const std::string& w : topo.interleave.warnings) topo.warnings.push_back(w);
}

std::string tiers_text(const std::vector<MemoryTier>& tiers) {
  std::string out;
  for (const MemoryTier& t : tiers)
    out += fmt::format("{}{} (node{} {})", out.empty() ? "" : ", ", t.id, t.nodes.count() == 1 ? "" : "s",
                       list_or_none(t.nodes));
  return out;
}

}  // namespace affix
