#include "watch_pages.hpp"

#include <set>

#include "error.hpp"
#include "perf_events.hpp"

namespace affix {

const std::optional<NumaUsage>& ProcessPages::update(const SysRoot& root, pid_t pid, pid_t tid, double time) {
  if (time < m_due) return m_pages;
  uint64_t start = monotonic_ns();
  try {
    if (auto pages = read_numa_usage(root, pid, tid)) m_pages = std::move(pages);
  } catch (const Error&) {
    // larger than affix reads: the last reading stays
  }
  schedule(time, static_cast<double>(monotonic_ns() - start) / 1e9);
  return m_pages;
}

std::optional<uint64_t> remote_pages(const std::optional<NodePages>& pages, const CpuSet& cpus_ran,
                                     const Topology& topo) {
  if (!pages || cpus_ran.empty()) return std::nullopt;
  std::set<long> nodes;
  cpus_ran.for_each([&](unsigned cpu) {
    if (cpu < topo.cpus.size()) nodes.insert(topo.cpus[cpu].node);
  });
  uint64_t remote = 0;
  for (const auto& [node, count] : *pages)
    if (!nodes.count(static_cast<long>(node))) remote += count;
  return remote;
}

CpuSet nodes_of(const CpuSet& cpus, const Topology& topo) {
  CpuSet nodes;
  cpus.for_each([&](unsigned cpu) {
    if (cpu < topo.cpus.size() && topo.cpus[cpu].node >= 0) nodes.set(static_cast<unsigned>(topo.cpus[cpu].node));
  });
  return nodes;
}

std::optional<double> ProcessReport::remote_share() const {
  if (!remote_pages || !anon_pages || ran_nodes.count() != 1) return std::nullopt;
  uint64_t total = 0;
  for (const auto& [node, count] : *anon_pages) total += count;
  if (total == 0) return std::nullopt;
  return 100.0 * static_cast<double>(*remote_pages) / static_cast<double>(total);
}

std::optional<WeightedShare> weighted_share(const NumaUsage& usage, const InterleaveWeights& weights) {
  if (usage.weighted_policy.empty()) return std::nullopt;
  auto nodes = policy_nodes(usage.weighted_policy);
  if (!nodes) return std::nullopt;
  WeightedShare out;
  out.nodes = *nodes;
  out.pages = usage.weighted;
  nodes->for_each([&](unsigned n) {
    auto it = weights.weights.find(n);
    out.weights[n] = it == weights.weights.end() ? 0 : it->second;
  });
  return out;
}

}  // namespace affix
