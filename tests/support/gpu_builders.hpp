#pragma once
// Synthetic machines with GPUs for --gpu's tests: sysfs trees of N nodes (a
// socket each; C cores of T threads per node, CPUs numbered core by core:
// node n holds CPUs n*C*T .. (n+1)*C*T-1) and PCI functions of NVIDIA
// (0x10de), AMD (0x1002) and other vendors, with what the drivers write
// (NVIDIA's /proc/driver/nvidia/gpus/BDF/{information,numa_status},
// amdgpu's unique_id, a DRM card).

#include <cstdio>
#include <string>

#include "temp_root.hpp"

namespace affix::test {

// "a-b" as a kernel cpumask ("0000ff00", 32-bit words comma-separated).
inline std::string range_mask(unsigned first, unsigned last) {
  unsigned words = last / 32 + 1;
  std::string out;
  for (unsigned w = words; w-- > 0;) {
    unsigned long long bits = 0;
    for (unsigned b = 0; b < 32; ++b) {
      unsigned cpu = w * 32 + b;
      if (cpu >= first && cpu <= last) bits |= 1ull << b;
    }
    char word[16];
    std::snprintf(word, sizeof word, "%08llx", bits);
    out += (out.empty() ? "" : ",") + std::string(word);
  }
  return out;
}

// N nodes of C cores of T threads, a socket and an L3 per node; every node
// 1 GiB, distances 10 and 20.
inline void gpu_machine(const TempRoot& root, unsigned nodes, unsigned cores, unsigned smt) {
  unsigned per_node = cores * smt, cpus = nodes * per_node;
  std::string last = std::to_string(cpus - 1);
  root.write("sys/devices/system/cpu/online", "0-" + last + "\n");
  root.write("sys/devices/system/cpu/possible", "0-" + last + "\n");
  root.write("sys/devices/system/cpu/present", "0-" + last + "\n");
  for (unsigned c = 0; c < cpus; ++c) {
    unsigned node = c / per_node, first = c - c % smt;
    std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(c);
    std::string pkg = std::to_string(node * per_node) + "-" + std::to_string((node + 1) * per_node - 1);
    root.write(dir + "/topology/physical_package_id", std::to_string(node) + "\n");
    root.write(dir + "/topology/core_id", std::to_string(c % per_node / smt) + "\n");
    root.write(dir + "/topology/die_id", "0\n");
    root.write(dir + "/topology/thread_siblings_list",
               smt == 1 ? std::to_string(c) + "\n" : std::to_string(first) + "-" + std::to_string(first + smt - 1) + "\n");
    root.write(dir + "/topology/core_siblings_list", pkg + "\n");
    root.write(dir + "/cache/index3/level", "3\n");
    root.write(dir + "/cache/index3/type", "Unified\n");
    root.write(dir + "/cache/index3/shared_cpu_list", pkg + "\n");
  }
  for (unsigned n = 0; n < nodes; ++n) {
    std::string dir = "sys/devices/system/node/node" + std::to_string(n);
    root.write(dir + "/cpulist", std::to_string(n * per_node) + "-" + std::to_string((n + 1) * per_node - 1) + "\n");
    root.write(dir + "/meminfo", "Node " + std::to_string(n) + " MemTotal: 1048576 kB\n");
    std::string row;
    for (unsigned m = 0; m < nodes; ++m) row += (m ? " " : "") + std::string(m == n ? "10" : "20");
    root.write(dir + "/distance", row + "\n");
  }
}

struct GpuSpec {
  std::string bdf;             // "0000:3b:00.0"
  std::string vendor;          // "0x10de", "0x1002", "0x1a03"
  std::string cls = "0x030200";
  std::string numa_node;       // "0", "-1"
  std::string local_cpus;      // a mask; "" leaves the file out
  std::string nvidia_uuid;     // NVIDIA: "GPU-..." in the driver's information file; "" none
  bool nvidia_driver = false;  // NVIDIA: the driver's directory, without information
  std::string unique_id;       // AMD: the unique_id file's content; "" none
  std::string memory_node;     // NVIDIA: numa_status's Node: line; "" none
  std::string card;            // its DRM card; "" none
};

// The function at sys/devices/pciDDDD:BB/BDF, linked from sys/bus/pci/devices.
inline void write_gpu(const TempRoot& root, const GpuSpec& g) {
  std::string dir = "sys/devices/pci" + g.bdf.substr(0, 7) + "/" + g.bdf;
  root.write(dir + "/class", g.cls + "\n");
  root.write(dir + "/vendor", g.vendor + "\n");
  root.write(dir + "/numa_node", g.numa_node + "\n");
  if (!g.local_cpus.empty()) root.write(dir + "/local_cpus", g.local_cpus + "\n");
  if (!g.unique_id.empty()) root.write(dir + "/unique_id", g.unique_id + "\n");
  if (!g.card.empty()) root.write(dir + "/drm/" + g.card + "/dev", "226:0\n");
  root.symlink("../../../devices/pci" + g.bdf.substr(0, 7) + "/" + g.bdf, "sys/bus/pci/devices/" + g.bdf);
  std::string proc = "proc/driver/nvidia/gpus/" + g.bdf;
  if (!g.nvidia_uuid.empty())
    root.write(proc + "/information", "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 511\nGPU UUID: \t " +
                                          g.nvidia_uuid + "\nBus Location: \t " + g.bdf + "\n");
  else if (g.nvidia_driver)
    root.mkdir(proc);
  if (!g.memory_node.empty())
    root.write(proc + "/numa_status", "Node:      " + g.memory_node + "\nStatus:    online\n");
}

// A GPU of `vendor` on node `node` of a gpu_machine with `per_node` CPUs a
// node, its local_cpus that node's CPUs.
inline GpuSpec gpu_on(const std::string& bdf, const std::string& vendor, unsigned node, unsigned per_node) {
  GpuSpec g;
  g.bdf = bdf;
  g.vendor = vendor;
  g.numa_node = std::to_string(node);
  g.local_cpus = range_mask(node * per_node, (node + 1) * per_node - 1);
  return g;
}

}  // namespace affix::test
