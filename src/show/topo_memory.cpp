// `affix topo`'s memory that is not all alike: the kernel's memory tiers
// and interleave weights (header lines), each node's tier, kind and HMAT
// figures (a table, where the machine says any), and the same in JSON.
#include <fmt/format.h>

#include "json.hpp"
#include "memory_tiers.hpp"
#include "text.hpp"
#include "topo_output.hpp"

namespace affix {

namespace {

std::string number_or_dash(const std::optional<unsigned long long>& v) { return v ? std::to_string(*v) : "-"; }

bool says_more(const Topology& topo) {
  for (const NodeInfo& n : topo.nodes)
    if (n.hmat.any() || n.kind != MemKind::Unknown) return true;
  return false;
}

}  // namespace

std::string topo_memory_header(const Topology& topo) {
  std::string out;
  if (!topo.tiers.empty()) out += fmt::format("{:<11}{}\n", "tiers", tiers_text(topo.tiers));
  const InterleaveWeights& w = topo.interleave;
  if (w.present && !w.weights.empty()) {
    std::string weights;
    for (const auto& [node, weight] : w.weights) weights += fmt::format("{}{}:{}", weights.empty() ? "" : " ", node, weight);
    out += fmt::format("{:<11}{}{}\n", "weights", weights,
                       w.auto_mode ? (*w.auto_mode ? " (the kernel's auto mode)" : " (set by hand)") : "");
  }
  return out;
}

std::string topo_memory_table(const Topology& topo) {
  if (!says_more(topo)) return {};
  std::string out = "\nmemory     NODE  TIER  KIND       READ MB/s  WRITE MB/s  READ ns  WRITE ns  FROM\n";
  for (const NodeInfo& n : topo.nodes) {
    if (!n.has_memory()) continue;
    const NodeHmat& h = n.hmat;
    out += fmt::format("{:<11}{:<6}{:<6}{:<11}{:<11}{:<12}{:<9}{:<10}{}\n", "", n.node,
                       n.tier ? std::to_string(*n.tier) : "-", n.kind == MemKind::Unknown ? "-" : mem_kind_name(n.kind),
                       number_or_dash(h.read_bandwidth), number_or_dash(h.write_bandwidth),
                       number_or_dash(h.read_latency), number_or_dash(h.write_latency),
                       h.initiators.empty() ? "-" : format_cpulist(h.initiators));
  }
  return out;
}

void write_node_memory_json(JsonWriter& j, const Topology& topo, const NodeInfo& n) {
  j.field("tier", n.tier);
  j.key("kind");
  if (n.kind == MemKind::Unknown) j.null();
  else j.value(mem_kind_name(n.kind));
  j.key("hmat");
  if (!n.hmat.any() && n.hmat.initiators.empty()) {
    j.null();
  } else {
    j.begin_object();
    j.field("access", n.hmat.access);
    j.field("read_bandwidth_mbs", n.hmat.read_bandwidth);
    j.field("write_bandwidth_mbs", n.hmat.write_bandwidth);
    j.field("read_latency_ns", n.hmat.read_latency);
    j.field("write_latency_ns", n.hmat.write_latency);
    j.field("initiators", format_cpulist(n.hmat.initiators));
    j.end_object();
  }
  auto weight = topo.interleave.weights.find(n.node);
  j.key("interleave_weight");
  if (weight == topo.interleave.weights.end()) j.null();
  else j.value(weight->second);
}

void write_tiers_json(JsonWriter& j, const Topology& topo) {
  j.key("tiers");
  j.begin_array();
  for (const MemoryTier& t : topo.tiers) {
    j.begin_object();
    j.field("tier", t.id);
    j.field("nodes", format_cpulist(t.nodes));
    j.end_object();
  }
  j.end_array();
  j.field("interleave_auto", topo.interleave.auto_mode);
}

}  // namespace affix
