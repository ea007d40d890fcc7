#pragma once
// The --gpu step of the resolver (affix(1), GPUS): which GPU a node-local
// rank gets and the CPUs near it. Pure: the GPUs come from Topology::gpus.
//
// The GPUs to give (the pool): with `closest`, the job's (gpu_pool.hpp: the
// GPUs this process may open, as CUDA_VISIBLE_DEVICES or
// ROCR_VISIBLE_DEVICES narrow them, in their order; without such a list
// every one, in PCI address order); with N or LIST, those GPUs in the order
// given, each of which must be the job's. A GPU's CPUs are those near:gpuN gives, within what is allowed; a
// GPU with none allowed is left out (closest) or an error (N, LIST), naming
// the allowed CPUs. The rank takes a GPU whose CPUs meet its own
// (gpu_assign.hpp): with its slice of a --slice, among every rank's slices;
// without one every rank has the same CPUs, and rank r takes the
// (r mod M)th of the M GPUs near them, in the pool's order. Its CPUs are then its own within
// the GPU's.

#include <string>
#include <vector>

#include "cpuset.hpp"
#include "resolver.hpp"
#include "topology.hpp"

namespace affix {

struct GpuStep {
  CpuSet cpus;                        // the rank's CPUs near its GPU
  GpuPlacement placement;
  std::vector<std::string> warnings;  // placement.warnings, for Placement::warnings
};

// `own`: the rank's CPUs before the step; `rank_cpus`: every rank's (its
// slice), indexed by rank, or empty where every rank's are `own`. `env`
// is the environment the variables go into. Throws Error(Resolution)
// where the GPU cannot be given (no such GPU, a job's list affix cannot
// read, a GPU not the job's, none with an allowed CPU, none near the
// rank's CPUs).
GpuStep place_gpu(const GpuRequest& request, const Topology& topo, const Allowed& allowed, const LocalRank& rank,
                  const CpuSet& own, const std::vector<CpuSet>& rank_cpus, const EnvLookup& env);

}  // namespace affix
