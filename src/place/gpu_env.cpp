#include "gpu_env.hpp"

#include <fmt/format.h>

namespace affix {

GpuEnv gpu_env(const Gpu& gpu, const std::string& id, const EnvLookup& env) {
  GpuEnv out;
  auto set = [&](const char* name, std::string value) {
    std::optional<std::string> before = env(name);
    if (before && *before != value) out.replaced.emplace_back(name, *before);
    out.exported.emplace_back(name, std::move(value));
  };
  switch (gpu.vendor) {
    case GpuVendor::Nvidia:
      set("CUDA_VISIBLE_DEVICES", id);
      set("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
      break;
    case GpuVendor::Amd:
      set("ROCR_VISIBLE_DEVICES", id);
      set("CUDA_VISIBLE_DEVICES", "0");
      for (const char* name : {"HIP_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"})
        if (env(name)) set(name, "0");
      break;
    case GpuVendor::Other:
      break;
  }
  return out;
}

std::string gpu_id_text(const Gpu& gpu, const std::string& id) {
  const char* vendor = gpu.vendor == GpuVendor::Nvidia ? "NVIDIA" : gpu.vendor == GpuVendor::Amd ? "AMD" : "other";
  if (id.rfind("MIG-", 0) == 0) return "a MIG instance, as the job's list names it";
  if (!gpu.uuid.empty() && id == gpu.uuid) return "by UUID";
  return fmt::format("by index: {} among the {} GPUs this process may open, in PCI address order", id, vendor);
}

}  // namespace affix
