#pragma once
// Which GPU each node-local rank gets (affix(1), GPUS, "Which GPU"): pure,
// on CPU sets alone, so that every rank, resolving on its own, computes the
// same map, and explain --ranks prints it.

#include <cstddef>
#include <optional>
#include <vector>

#include "cpuset.hpp"

namespace affix {

// `gpu_cpus`: each GPU's CPUs (the pool, in the order GPUs are preferred);
// `rank_cpus`: each rank's CPUs. A rank takes one of the GPUs near it (whose
// CPUs meet its own): the one fewest ranks have taken so far; among those,
// the one that shares most CPUs with the rank (the rank keeps the most of
// its own), then the first in the pool. Ranks near fewer GPUs choose first,
// then ranks in order; so ranks whose CPUs are near the same GPUs take them
// round robin, and more ranks than GPUs share them evenly. nullopt for a
// rank near none.
std::vector<std::optional<size_t>> assign_gpus(const std::vector<CpuSet>& gpu_cpus,
                                               const std::vector<CpuSet>& rank_cpus);

}  // namespace affix
