#pragma once
// Devices and the CPUs near them (affix(1), LOCATIONS, near:DEVICE; OUTPUT,
// topo's devices): the one reader of a device's sysfs files, used by the
// resolver's near: step, explain and topo.
//
// A device is found by name under sys/class/{net,block,infiniband,drm,dax}
// (and sys/bus/dax/devices), as gpuN (the Nth GPU, NVIDIA's or AMD's, in PCI
// address order: gpus.hpp), as displayN (the Nth other function of class 03,
// such as a BMC's VGA), or by its PCI address
// under sys/bus/pci/devices. Its PCI function is the last PCI address on
// the path its sysfs link points to (past the bridges), as hwloc's Linux
// backend finds it (hwloc_linuxfs_find_osdev_parent): a link into
// devices/virtual/ or one with no PCI address has none. Only that device's
// files are read (gpuN reads the class of every PCI function), never the
// whole PCI tree: near: is on the launch path.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpuset.hpp"
#include "sysroot.hpp"
#include "device_info.hpp"
#include "topology.hpp"

namespace affix {

// The longest device name near: takes (a file name's limit).
constexpr size_t k_max_device_name = 255;


// Where a device is, on this topology: the CPUs of the smallest unit (core,
// llc, die, node, socket, the whole machine) holding every online CPU of its
// local_cpus (where that is absent or empty, the CPUs of its numa_node);
// `unplaced` where the kernel does not say (numa_node -1 and every CPU
// local, or nothing at all, on a machine of several nodes).
struct DevicePlace {
  CpuSet cpus;
  bool unplaced = false;
};
DevicePlace device_place(const Topology& topo, const Device& device);

// A device a location named, where it is, and the warning where the kernel
// does not say (unplaced_warning; else empty).
struct NearDevice {
  Device device;
  DevicePlace place;
  std::string warning;
};

// "the kernel does not say where eth0 is (numa_node -1): near:eth0 is every CPU".
std::string unplaced_warning(const Device& device);

// The device near:NAME names. Throws Error(Resolution) naming it where there
// is no such device (the hint lists those of its class, or all of them) or
// it has no PCI function (the hint names its lower device where sysfs has
// one); Error(Spec) where NAME is no valid name or PCI address.
Device read_device(const SysRoot& root, std::string_view name);

// The PCI function sys/bus/pci/devices/ENTRY as a device named `name` of
// `kind` ("gpu0", "gpu"; "0000:81:00.0", "pci"), with its locality.
Device read_pci_function(const SysRoot& root, const std::string& entry, std::string name, std::string kind);

// Every device near: takes by name, for topo: network interfaces, whole
// disks (no partitions), RDMA devices, DRM cards (card*, not renderD* or
// connectors), DAX devices, then each GPU's function as gpuN and each
// display's as displayN; those with no PCI function are left out. Ordered
// by class in that order, then by name (gpuN by N, then displayN by N).
std::vector<Device> list_devices(const SysRoot& root);

}  // namespace affix
