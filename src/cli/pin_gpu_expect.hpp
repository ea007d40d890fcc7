#pragma once
// pin --check --gpu: what a process started by run --gpu has in its
// environment (affix(1), GPUS, "Checking a rank"), for pin_check_env.hpp.

#include <vector>

#include "pin_check_env.hpp"
#include "resolver.hpp"

namespace affix {

// The variables gpu_env always sets for `p`'s GPU, and those it sets where
// they were set; the one that names the GPU agrees where it names that GPU
// alone, however written (an index, a UUID or a prefix of one, a MIG
// instance), read among `gpus` (the machine's: Topology::gpus) as
// gpu_pool.hpp reads a list. `gpus` must outlive the result.
EnvExpect gpu_env_expect(const GpuPlacement& p, const std::vector<Gpu>& gpus);

}  // namespace affix
