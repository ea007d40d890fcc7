#pragma once
// Two corrections hwloc's Linux backend makes to what the kernel says on
// some processors, recognised by the first processor of /proc/cpuinfo, and
// made by affix on the same conditions (affix(1), READING THE MACHINE):
// AMD compute units (cores), and packages split by their masks (sockets).

#include <string>
#include <vector>

#include "cpuset.hpp"
#include "sysroot.hpp"
#include "topology_read.hpp"

namespace affix {

// The first processor of proc/cpuinfo, as hwloc reads it for its quirks:
// `x86` where it has the x86 fields (vendor_id and cpu family), `ia64` where
// it has ia64's (vendor and family; s390 writes vendor_id alone).
struct CpuModel {
  bool x86 = false;
  bool ia64 = false;
  std::string vendor;  // "GenuineIntel", "AuthenticAMD"; empty where unknown
  long family = -1;
};
CpuModel read_cpu_model(const SysRoot& root);

// Where siblings have different core_ids on AMD family 21 or 22, every
// online CPU's core mask becomes the CPU alone; reads cpuinfo only then.
void split_compute_units(const SysRoot& root, RawTopology& raw);

// On x86 and ia64, socket units (`sets`, `unit_of`: build_units' result) that share a
// physical_package_id become one, with a warning; reads cpuinfo only where
// some do.
void merge_split_packages(const SysRoot& root, RawTopology& raw, std::vector<CpuSet>& sets,
                          std::vector<int>& unit_of);

}  // namespace affix
