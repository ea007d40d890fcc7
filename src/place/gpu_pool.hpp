#pragma once
// The GPUs a process may be given (affix(1), GPUS, "A job's GPUs"): the
// machine's, as a job's allocation narrows them. A launcher, a scheduler
// (Slurm's gres) or a user says which GPUs a process has in the variables
// the runtimes read, and a device cgroup may forbid the others' device
// files; --gpu gives only these, and names the one it gives so that the
// runtime opens that one.
//
// The GPUs this process may open: those whose device file (dev/nvidiaN,
// dev/dri/renderDN) access(2) does not refuse (the device cgroup's rules
// apply there as at open(2), and CUDA and ROCm's libhsakmt number only the
// GPUs they can open); a GPU whose file is unknown or absent counts as one.
// Then, where set:
//   NVIDIA  CUDA_VISIBLE_DEVICES: each entry an index among those NVIDIA
//           GPUs, in PCI address order (CUDA's order with
//           CUDA_DEVICE_ORDER=PCI_BUS_ID; its default, fastest first, is
//           the same for GPUs of one model: a warning where they differ or
//           their model is unknown); a GPU UUID "GPU-..." or a prefix of
//           one naming one GPU; a MIG instance "MIG-GPU-UUID/GI/CI" (its GPU
//           is the UUID's). A MIG instance's own UUID ("MIG-" and no "GPU-")
//           is tied to no GPU in sysfs: an error.
//   AMD     ROCR_VISIBLE_DEVICES: indices among those AMD GPUs in PCI
//           address order, or "GPU-" and a unique_id (any case, a prefix
//           will do); then HIP_VISIBLE_DEVICES, else CUDA_VISIBLE_DEVICES,
//           as HIP reads them: indices (or UUIDs) among the GPUs ROCr shows.
// An empty list or "-1" gives no GPU. Every entry must name a GPU: one that
// names none, two or a GPU given already is an error, never a wider pool.

#include <string>
#include <string_view>
#include <vector>

#include "device_info.hpp"
#include "resolver.hpp"

namespace affix {

struct PoolGpu {
  const Gpu* gpu = nullptr;
  // What names it to its runtime: the MIG instance as the list gave it;
  // else its UUID; else its index among its vendor's GPUs this process may
  // open, in PCI address order.
  std::string id;
};

struct GpuPool {
  std::vector<PoolGpu> gpus;          // in the order of the list; without one, PCI address order
  std::string source;                 // "CUDA_VISIBLE_DEVICES=2" (each variable read); empty where none is set
  std::vector<std::string> hidden;    // GPUs this process may not open: "gpu0 (0000:3b:00.0): dev/nvidia0 refused"
  std::vector<std::string> warnings;  // the index order affix cannot know
};

// The pool of the machine's `gpus` (Topology::gpus) under `env`. Throws
// Error(Resolution) for a list that names no GPU, or one affix cannot map.
GpuPool gpu_pool(const std::vector<Gpu>& gpus, const EnvLookup& env);

// The GPUs `value`, a list of the runtime's variable `var`, names among
// the machine's GPUs of `vendor` this process may open, as gpu_pool reads
// it; for pin --check, the GPUs a process's own variable names. Throws
// Error(Resolution) as gpu_pool does.
std::vector<PoolGpu> gpus_named(const std::vector<Gpu>& gpus, GpuVendor vendor, const std::string& var,
                                const std::string& value);

}  // namespace affix
