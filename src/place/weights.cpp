#include "weights.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "error.hpp"
#include "hmat.hpp"

namespace affix {

namespace {

// The kernel's scale of auto weights (mm/mempolicy.c, `weightiness`).
constexpr unsigned long long k_weightiness = 32;

std::optional<unsigned> weight_of(const Topology& topo, unsigned node) {
  auto it = topo.interleave.weights.find(node);
  if (it == topo.interleave.weights.end()) return std::nullopt;
  return it->second;
}

void check_file(const Topology& topo, unsigned node) {
  if (!topo.interleave.present || weight_of(topo, node)) return;
  throw Error(ErrorKind::Resolution,
              fmt::format("the kernel has no interleave weight for node {} (no weighted_interleave/node{})", node,
                          node),
              "the kernel keeps a weight for each node with memory; 'affix topo' lists the nodes");
}

}  // namespace

std::vector<NodeWeight> WeightPlan::writes() const {
  std::vector<NodeWeight> out;
  for (const NodeWeight& n : nodes)
    if (n.want && n.want != n.now) out.push_back(n);
  return out;
}

std::map<unsigned, unsigned> weights_from_bandwidth(const std::map<unsigned, unsigned long long>& bandwidth) {
  std::map<unsigned, unsigned> out;
  unsigned long long sum = 0;
  for (const auto& [node, bw] : bandwidth) sum += bw;
  unsigned divisor = 0;
  for (const auto& [node, bw] : bandwidth) {
    unsigned long long scaled = k_weightiness * bw;
    unsigned w = bw && sum < scaled ? static_cast<unsigned>(scaled / sum) : 1;
    out[node] = w;
    divisor = std::gcd(divisor, w);
  }
  for (auto& [node, w] : out) w /= divisor;
  return out;
}

WeightPlan plan_weights(const std::optional<WeightsRequest>& request, const CpuSet& nodes, const Topology& topo) {
  WeightPlan plan;
  plan.present = topo.interleave.present;
  plan.auto_file = topo.interleave.auto_file;
  plan.auto_now = topo.interleave.auto_mode;
  nodes.for_each([&](unsigned n) { plan.nodes.push_back(NodeWeight{n, weight_of(topo, n), std::nullopt, std::nullopt}); });
  if (!request) return plan;
  auto find = [&](unsigned node) -> NodeWeight* {
    for (NodeWeight& w : plan.nodes)
      if (w.node == node) return &w;
    return nullptr;
  };
  if (!request->automatic) {
    plan.source = WeightSource::Given;
    for (const auto& [node, weight] : request->given) {
      NodeWeight* w = find(node);
      if (!w)
        throw Error(ErrorKind::Resolution,
                    fmt::format("--weights gives node {} a weight, but it is not one of the policy's nodes ({})", node,
                                format_cpulist(nodes)),
                    "the weights are for the nodes of --mem weighted:NODES");
      check_file(topo, node);
      w->want = weight;
    }
    return plan;
  }
  if (plan.auto_now) {
    plan.source = WeightSource::KernelAuto;
    plan.turn_auto_on = !*plan.auto_now;
    return plan;
  }
  // The kernel weighs every node with memory; those without a figure weigh 1.
  plan.source = WeightSource::Bandwidth;
  std::map<unsigned, unsigned long long> bandwidth;
  CpuSet without;
  for (const NodeInfo& n : topo.nodes) {
    if (!n.has_memory()) continue;
    auto bw = weight_bandwidth(n.hmat);
    if (!bw) without.set(n.node);
    bandwidth[n.node] = bw.value_or(0);
  }
  if (bandwidth.size() == without.count())
    throw Error(ErrorKind::Resolution,
                "--weights auto: no node has HMAT bandwidth figures, and this kernel has no auto mode (Linux 6.16 "
                "and later have it)",
                "give the weights: --weights 0=3,2=1");
  if (!without.empty())
    plan.warnings.push_back(fmt::format(
        "node{} {} {} no HMAT bandwidth figures: weight 1, as the kernel's auto mode gives {}",
        without.count() == 1 ? "" : "s", format_cpulist(without), without.count() == 1 ? "has" : "have",
        without.count() == 1 ? "it" : "them"));
  std::map<unsigned, unsigned> weights = weights_from_bandwidth(bandwidth);
  for (NodeWeight& w : plan.nodes) {
    check_file(topo, w.node);
    if (auto it = weights.find(w.node); it != weights.end()) w.want = it->second;
    if (auto it = bandwidth.find(w.node); it != bandwidth.end() && it->second) w.bandwidth = it->second;
  }
  return plan;
}

WeightPlan merge_weight_plans(const std::vector<WeightPlan>& plans) {
  if (plans.empty()) return {};
  WeightPlan out = plans.front();
  std::map<unsigned, NodeWeight> nodes;
  for (const WeightPlan& plan : plans) {
    out.present = out.present && plan.present;
    out.turn_auto_on = out.turn_auto_on || plan.turn_auto_on;
    for (const NodeWeight& w : plan.nodes) nodes.emplace(w.node, w);
    for (const std::string& warning : plan.warnings)
      if (std::find(out.warnings.begin(), out.warnings.end(), warning) == out.warnings.end())
        out.warnings.push_back(warning);
  }
  out.nodes.clear();
  for (const auto& [node, w] : nodes) out.nodes.push_back(w);
  return out;
}

}  // namespace affix
