#pragma once
// The GPUs of the machine (affix(1), GPUS; topo's gpus): each PCI function
// of class 03 (display or 3D controller) in PCI address order, gpuN as
// near: numbers them, with its vendor, the name its runtime gives it, the
// NUMA node of its own memory and its DRM card. Found in sysfs alone (no
// NVML, no ROCm library); only the GPU functions' own files are read:
//   sys/bus/pci/devices/BDF/{class,vendor,numa_node,local_cpus,unique_id,drm/}
//   proc/driver/nvidia/gpus/BDF/{information,numa_status}
// (and the class of every PCI function, to find them).

#include <string>
#include <string_view>
#include <vector>

#include "device_info.hpp"
#include "sysroot.hpp"

namespace affix {

constexpr unsigned k_vendor_nvidia = 0x10de;
constexpr unsigned k_vendor_amd = 0x1002;

// A PCI function of class 03: its address and its directory's name under
// sys/bus/pci/devices.
struct GpuFunction {
  PciAddress pci;
  std::string entry;
};

// The functions of class 0x03xxxx, in PCI address order (gpu0, gpu1, ...).
std::vector<GpuFunction> gpu_functions(const SysRoot& root);

// Every GPU with what the files say of it. A GPU is NVIDIA's where its
// vendor is 0x10de or NVIDIA's driver lists it (proc/driver/nvidia/gpus/BDF),
// AMD's where its vendor is 0x1002. Its uuid: NVIDIA's "GPU UUID:" line of
// the driver's information file; AMD's "GPU-" and its unique_id (16 hex
// digits, as amdgpu writes it, GFX9 and later). Its memory node: the
// "Node:" line of NVIDIA's numa_status, as hwloc reads it
// (hwloc/topology-linux.c: the node that holds an NVIDIA GPU's memory).
// A file that makes no sense is left out, with a warning in device.warnings.
std::vector<Gpu> read_gpus(const SysRoot& root);

// "nvidia", "amd", "other".
const char* gpu_vendor_name(GpuVendor vendor);

// "gpu1 (0000:3b:00.0)"
std::string gpu_label(const Gpu& gpu);

}  // namespace affix
