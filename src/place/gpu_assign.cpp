#include "gpu_assign.hpp"

#include <algorithm>
#include <numeric>

namespace affix {

std::vector<std::optional<size_t>> assign_gpus(const std::vector<CpuSet>& gpu_cpus,
                                               const std::vector<CpuSet>& rank_cpus) {
  std::vector<std::vector<size_t>> near(rank_cpus.size());
  for (size_t r = 0; r < rank_cpus.size(); ++r)
    for (size_t g = 0; g < gpu_cpus.size(); ++g)
      if (gpu_cpus[g].intersects(rank_cpus[r])) near[r].push_back(g);
  std::vector<size_t> order(rank_cpus.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return near[a].size() < near[b].size(); });
  std::vector<unsigned> load(gpu_cpus.size(), 0);
  std::vector<std::optional<size_t>> out(rank_cpus.size());
  for (size_t r : order) {
    if (near[r].empty()) continue;
    size_t best = near[r].front();
    unsigned best_shared = (gpu_cpus[best] & rank_cpus[r]).count();
    for (size_t g : near[r]) {
      unsigned shared = (gpu_cpus[g] & rank_cpus[r]).count();
      if (load[g] < load[best] || (load[g] == load[best] && shared > best_shared)) {
        best = g;
        best_shared = shared;
      }
    }
    ++load[best];
    out[r] = best;
  }
  return out;
}

}  // namespace affix
