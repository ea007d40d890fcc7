#pragma once
// The variables that give a rank its GPU (affix(1), GPUS, "Exported"), in
// the forms the runtimes read. CUDA reads CUDA_VISIBLE_DEVICES as indices,
// GPU UUIDs ("GPU-8932f937-...", a prefix of one will do) or MIG
// instances, never as a PCI bus ID; ROCr reads ROCR_VISIBLE_DEVICES as
// indices or "GPU-" and the 16 hex digits of amdgpu's unique_id (any case,
// a prefix of one will do: ROCR-Runtime, amd_filter_device.cpp). So:
//   NVIDIA  CUDA_VISIBLE_DEVICES = the MIG instance the job's list named;
//           else the GPU's UUID, where the driver gives it; else its index
//           among the NVIDIA GPUs this process may open, in PCI address order;
//           CUDA_DEVICE_ORDER=PCI_BUS_ID (CUDA's own order is fastest
//           first, and an index counts in this one).
//   AMD     ROCR_VISIBLE_DEVICES = "GPU-" + its unique_id, where amdgpu
//           gives one; else its index among the AMD GPUs this process may
//           open, in PCI address order; and CUDA_VISIBLE_DEVICES=0, which HIP reads as an index
//           among the GPUs ROCr shows (this one alone), so that a list a
//           launcher set for the whole node cannot hide it; likewise
//           HIP_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL where they are set.
// A UUID names the same GPU whatever a container's or a job's device
// cgroup hides; an index counts the GPUs of its vendor whose device file
// this process may open (gpu_pool.hpp), as the runtimes count them.

#include <string>

#include "resolver.hpp"

namespace affix {

struct GpuEnv {
  EnvVars exported;  // to set, in order
  EnvVars replaced;  // of those, the ones `env` had with another value (name, value then)
};

// `id`: what names it to its runtime (PoolGpu::id); `env`: the
// environment the variables go into (affix's own for run; a process's for
// pin --check).
GpuEnv gpu_env(const Gpu& gpu, const std::string& id, const EnvLookup& env);

// "by UUID", "a MIG instance, ..." or "by index: 2 among the NVIDIA GPUs
// this process may open, in PCI address order": how the GPU is named in
// its variables, for explain.
std::string gpu_id_text(const Gpu& gpu, const std::string& id);

}  // namespace affix
