#include "pin_gpu_expect.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "error.hpp"
#include "gpu_env.hpp"
#include "gpu_pool.hpp"
#include "gpus.hpp"

namespace affix {

EnvExpect gpu_env_expect(const GpuPlacement& p, const std::vector<Gpu>& gpus) {
  const Gpu& gpu = p.gpu;
  EnvExpect out;
  out.gpu = gpu_label(gpu);
  out.required = gpu_env(gpu, p.id, [](const std::string&) { return std::optional<std::string>(); }).exported;
  for (auto& var : gpu_env(gpu, p.id, [](const std::string&) { return std::optional<std::string>("set"); }).exported)
    if (std::find(out.required.begin(), out.required.end(), var) == out.required.end()) out.if_set.push_back(var);
  out.gpu_var = gpu.vendor == GpuVendor::Amd ? "ROCR_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES";
  out.names_gpu = [&gpus, index = gpu.index, vendor = gpu.vendor, var = out.gpu_var](const std::string& value) {
    GpuNaming n;
    try {
      std::vector<PoolGpu> named = gpus_named(gpus, vendor, var, value);
      for (const PoolGpu& g : named) n.named += (n.named.empty() ? "" : ", ") + gpu_label(*g.gpu);
      n.same = named.size() == 1 && named.front().gpu->index == index;
    } catch (const Error& e) {
      n.named = fmt::format("no GPU ({})", e.what());
    }
    return n;
  };
  return out;
}

}  // namespace affix
