#include "selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "error.hpp"

namespace affix {

std::vector<std::vector<unsigned>> group_by_core(const Topology& topo, const CpuSet& cpus) {
  // Key: the core index, or (number of cores + CPU number) where unknown.
  std::vector<std::pair<long, unsigned>> keyed;
  keyed.reserve(cpus.count());
  long unknown_base = static_cast<long>(topo.cores.size());
  cpus.for_each([&](unsigned cpu) {
    long core = cpu < topo.cpus.size() ? topo.cpus[cpu].core : -1;
    keyed.emplace_back(core >= 0 ? core : unknown_base + cpu, cpu);
  });
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::vector<unsigned>> groups;
  for (size_t i = 0; i < keyed.size(); ++i) {
    if (i == 0 || keyed[i].first != keyed[i - 1].first) groups.emplace_back();
    groups.back().push_back(keyed[i].second);
  }
  return groups;
}

CpuSet keep_one_per_core(const Topology& topo, const CpuSet& cpus) {
  CpuSet out;
  for (const auto& g : group_by_core(topo, cpus)) out.set(g.front());
  return out;
}

namespace {

// The cores of a selection, checked against N parts.
std::vector<std::vector<unsigned>> slice_groups(const Topology& topo, const CpuSet& cpus, unsigned k, unsigned n) {
  if (n == 0) throw Error(ErrorKind::Resolution, "--slice K/N: N must be at least 1");
  if (k >= n)
    throw Error(ErrorKind::Resolution,
                fmt::format("--slice {}/{}: part {} does not exist (parts are 0-{})", k, n, k, n - 1));
  auto groups = group_by_core(topo, cpus);
  size_t cores = groups.size();
  if (cores < n)
    throw Error(ErrorKind::Resolution,
                fmt::format("--slice {}/{}: the selection has {} core{}, fewer than {} parts", k, n,
                            cores, cores == 1 ? "" : "s", n));
  return groups;
}

CpuSet part_of(const std::vector<std::vector<unsigned>>& groups, unsigned k, unsigned n) {
  size_t cores = groups.size();
  size_t base = cores / n, extra = cores % n;
  size_t begin = k * base + std::min<size_t>(k, extra);
  size_t size = base + (k < extra ? 1 : 0);
  CpuSet out;
  for (size_t i = begin; i < begin + size; ++i)
    for (unsigned cpu : groups[i]) out.set(cpu);
  return out;
}

}  // namespace

CpuSet slice_cores(const Topology& topo, const CpuSet& cpus, unsigned k, unsigned n) {
  return part_of(slice_groups(topo, cpus, k, n), k, n);
}

std::vector<CpuSet> slice_parts(const Topology& topo, const CpuSet& cpus, unsigned n) {
  auto groups = slice_groups(topo, cpus, 0, n);
  std::vector<CpuSet> out;
  out.reserve(n);
  for (unsigned k = 0; k < n; ++k) out.push_back(part_of(groups, k, n));
  return out;
}

namespace {

// Cores taken round-robin over the NUMA nodes, nodes in topology order.
std::vector<std::vector<unsigned>> scatter_cores(const Topology& topo,
                                                 std::vector<std::vector<unsigned>> groups) {
  std::unordered_map<long, size_t> node_position;
  for (size_t i = 0; i < topo.numa.size(); ++i) node_position[topo.numa[i].id] = i;
  size_t unknown = topo.numa.size();
  std::vector<std::vector<size_t>> buckets(unknown + 1);
  for (size_t g = 0; g < groups.size(); ++g) {
    unsigned cpu = groups[g].front();
    long node = cpu < topo.cpus.size() ? topo.cpus[cpu].node : -1;
    auto it = node_position.find(node);
    buckets[it == node_position.end() ? unknown : it->second].push_back(g);
  }
  std::vector<std::vector<unsigned>> out;
  out.reserve(groups.size());
  for (size_t round = 0; out.size() < groups.size(); ++round)
    for (const auto& b : buckets)
      if (round < b.size()) out.push_back(std::move(groups[b[round]]));
  return out;
}

}  // namespace

std::vector<unsigned> order_cpus(const Topology& topo, const CpuSet& cpus, Order order) {
  auto groups = group_by_core(topo, cpus);
  if (order == Order::Scatter) groups = scatter_cores(topo, std::move(groups));
  std::vector<unsigned> out;
  out.reserve(cpus.count());
  size_t widest = 0;
  for (const auto& g : groups) widest = std::max(widest, g.size());
  for (size_t round = 0; round < widest; ++round)
    for (const auto& g : groups)
      if (round < g.size()) out.push_back(g[round]);
  return out;
}

}  // namespace affix
