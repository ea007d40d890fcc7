#include "gpu_env.hpp"

#include <fmt/format.h>

namespace affix {

namespace {

std::string runtime_id(const Gpu& gpu) {
  return gpu.uuid.empty() ? std::to_string(gpu.vendor_index) : gpu.uuid;
}

}  // namespace

GpuEnv gpu_env(const Gpu& gpu, const EnvLookup& env) {
  GpuEnv out;
  auto set = [&](const char* name, std::string value) {
    std::optional<std::string> before = env(name);
    if (before && *before != value) out.replaced.emplace_back(name, *before);
    out.exported.emplace_back(name, std::move(value));
  };
  switch (gpu.vendor) {
    case GpuVendor::Nvidia:
      set("CUDA_VISIBLE_DEVICES", runtime_id(gpu));
      set("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
      break;
    case GpuVendor::Amd:
      set("ROCR_VISIBLE_DEVICES", runtime_id(gpu));
      set("CUDA_VISIBLE_DEVICES", "0");
      for (const char* name : {"HIP_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"})
        if (env(name)) set(name, "0");
      break;
    case GpuVendor::Other:
      break;
  }
  return out;
}

std::string gpu_id_text(const Gpu& gpu) {
  const char* vendor = gpu.vendor == GpuVendor::Nvidia ? "NVIDIA" : gpu.vendor == GpuVendor::Amd ? "AMD" : "other";
  if (!gpu.uuid.empty()) return "by UUID";
  return fmt::format("by index: {} among the {} GPUs in PCI address order", gpu.vendor_index, vendor);
}

}  // namespace affix
