#pragma once
// A device as near:DEVICE names it (affix(1), LOCATIONS): its PCI function
// and what the kernel says of where that is. Read by devices.hpp.

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

}  // namespace affix
