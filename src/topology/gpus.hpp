#pragma once
// The GPUs of the machine (affix(1), GPUS; topo's gpus): each PCI function
// of class 03 (display or 3D controller) that a GPU runtime numbers
// (NVIDIA's, AMD's), in PCI address order, gpuN as near: numbers them and
// as nvidia-smi and rocm-smi count them, with its vendor, the name its
// runtime gives it, the NUMA node of its own memory and its DRM card; the
// other functions of class 03 (a BMC's VGA, ASPEED 0x1a03; Matrox; Intel's)
// are displays, displayN, which no --gpu gives. Found in sysfs alone (no
// NVML, no ROCm library); only the GPU functions' own files are read:
//   sys/bus/pci/devices/BDF/{class,vendor,device,numa_node,local_cpus,unique_id,drm/}
//   proc/driver/nvidia/gpus/BDF/{information,numa_status}
// (and the class and vendor of every PCI function of class 03, and
// NVIDIA's driver directory, to find them), and whether this process may
// open each GPU's device file (dev/nvidiaN, dev/dri/renderDN).

#include <string>
#include <string_view>
#include <vector>

#include "device_info.hpp"
#include "sysroot.hpp"

namespace affix {

constexpr unsigned k_vendor_nvidia = 0x10de;
constexpr unsigned k_vendor_amd = 0x1002;

// A PCI function of class 03: its address, its directory's name under
// sys/bus/pci/devices, its vendor (0 where unknown), and whether a GPU
// runtime numbers it: vendor 0x10de or 0x1002, or NVIDIA's driver lists it.
struct GpuFunction {
  PciAddress pci;
  std::string entry;
  unsigned vendor_id = 0;
  bool compute = false;
};

// The GPUs' functions, in PCI address order (gpu0, gpu1, ...).
std::vector<GpuFunction> gpu_functions(const SysRoot& root);

// The other functions of class 03, in PCI address order (display0, ...).
std::vector<GpuFunction> display_functions(const SysRoot& root);

// Every GPU with what the files say of it. A GPU is NVIDIA's where its
// vendor is 0x10de or NVIDIA's driver lists it (proc/driver/nvidia/gpus/BDF),
// AMD's where its vendor is 0x1002. Its uuid: NVIDIA's "GPU UUID:" line of
// the driver's information file; AMD's "GPU-" and its unique_id (16 hex
// digits, as amdgpu writes it, GFX9 and later). Its memory node: the
// "Node:" line of NVIDIA's numa_status, as hwloc reads it
// (hwloc/topology-linux.c: the node that holds an NVIDIA GPU's memory).
// A file that makes no sense is left out, with a warning in device.warnings.
// Its device_file: NVIDIA's dev/nvidiaN (N the "Device Minor:" line of the
// information file), AMD's dev/dri/renderDN (the function's drm/renderDN);
// may_open: whether access(2) lets this process read and write it (a
// device cgroup's rules apply there as at open(2)); nullopt where the file
// is unknown or absent.
std::vector<Gpu> read_gpus(const SysRoot& root);

// The displays: displayN, with their vendor and DRM card.
std::vector<Display> read_displays(const SysRoot& root);

// "nvidia", "amd", "other".
const char* gpu_vendor_name(GpuVendor vendor);

// "gpu1 (0000:3b:00.0)"
std::string gpu_label(const Gpu& gpu);

}  // namespace affix
