#pragma once
// A device as near:DEVICE names it (affix(1), LOCATIONS): its PCI function
// and what the kernel says of where that is; and a GPU as --gpu gives it
// (affix(1), GPUS). Read by devices.hpp and gpus.hpp.

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cpuset.hpp"
#include "pci.hpp"

namespace affix {

struct Device {
  std::string name;        // as near: names it: eth0, nvme0n1, card0, gpu0, 0000:81:00.0
  std::string kind;        // net, block, infiniband, drm, dax, gpu, pci
  PciAddress pci;          // its PCI function
  long numa_node = -1;     // the function's numa_node; -1 where the kernel says -1 or nothing
  std::optional<CpuSet> local_cpus;  // the function's local_cpus mask; nullopt where absent or empty
  std::vector<std::string> warnings; // files that could not be read or made no sense (left out)
};

enum class GpuVendor { Other, Nvidia, Amd };

// A GPU: a PCI function of class 03 (display or 3D controller) of NVIDIA
// or AMD, gpuN in PCI address order as near: numbers them, and what its
// runtime calls it.
struct Gpu {
  unsigned index = 0;        // N of gpuN
  Device device;             // named gpuN, kind "gpu"
  GpuVendor vendor = GpuVendor::Other;
  unsigned vendor_id = 0;    // the function's PCI vendor; 0 where unknown
  // NVIDIA: "GPU-<uuid>" from the driver's information file; AMD: "GPU-"
  // and the function's unique_id; empty where the machine does not say.
  std::string uuid;
  unsigned vendor_index = 0;  // its index among its vendor's GPUs, PCI address order
  std::optional<long> memory_node;  // the CPU-less node holding its memory (NVIDIA's numa_status)
  std::string card;          // its DRM card ("card1"); empty where none
  unsigned device_id = 0;    // the function's PCI device id; 0 where unknown
  std::string device_file;   // "dev/nvidia2", "dev/dri/renderD128"; empty where unknown
  std::optional<bool> may_open;  // whether this process may open it; nullopt where unknown
};

// A display: a PCI function of class 03 that no GPU runtime numbers (a
// BMC's VGA), displayN in PCI address order.
struct Display {
  Device device;           // named displayN, kind "display"
  unsigned vendor_id = 0;  // 0 where unknown
  std::string card;        // its DRM card; empty where none
};

}  // namespace affix
