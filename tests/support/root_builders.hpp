#pragma once
// Trees that several tests write into a TempRoot: a simple machine, a NUMA
// node's directory, and a process's cpuset in cgroup v2 or v1 (its cgroup
// file, its mount table line, the cpuset files).

#include <string>

#include "temp_root.hpp"

namespace affix::test {

// A NUMA node's sysfs directory: its CPUs (cpulist, "" for none), memory
// (meminfo, in kB) and its row of distances ("10 20").
inline void write_node(const TempRoot& root, unsigned node, const std::string& cpulist,
                       unsigned long long total_kb = 16384000, unsigned long long free_kb = 8192000,
                       const std::string& distances = "10") {
  std::string n = std::to_string(node);
  std::string dir = "sys/devices/system/node/node" + n;
  root.write(dir + "/cpulist", cpulist + "\n");
  root.write(dir + "/meminfo", "Node " + n + " MemTotal:       " + std::to_string(total_kb) + " kB\nNode " + n +
                                   " MemFree:         " + std::to_string(free_kb) + " kB\nNode " + n +
                                   " MemUsed: 1 kB\n");
  root.write(dir + "/distance", distances + "\n");
}

// A simple machine: `cpus` CPUs, `smt` threads per core (siblings are
// consecutive), one socket, one node 0, one shared L3, all online.
inline void simple_machine(const TempRoot& root, unsigned cpus, unsigned smt) {
  std::string last = std::to_string(cpus - 1);
  root.write("sys/devices/system/cpu/online", "0-" + last + "\n");
  root.write("sys/devices/system/cpu/possible", "0-" + last + "\n");
  root.write("sys/devices/system/cpu/present", "0-" + last + "\n");
  for (unsigned c = 0; c < cpus; ++c) {
    std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(c);
    unsigned first = c - c % smt;
    root.write(dir + "/topology/physical_package_id", "0\n");
    root.write(dir + "/topology/core_id", std::to_string(c / smt) + "\n");
    root.write(dir + "/topology/die_id", "0\n");
    root.write(dir + "/topology/thread_siblings_list",
               smt == 1 ? std::to_string(c) + "\n"
                        : std::to_string(first) + "-" + std::to_string(first + smt - 1) + "\n");
    root.write(dir + "/topology/core_siblings_list", "0-" + last + "\n");
    root.write(dir + "/cache/index0/level", "1\n");
    root.write(dir + "/cache/index0/type", "Data\n");
    root.write(dir + "/cache/index0/shared_cpu_list", std::to_string(c) + "\n");
    root.write(dir + "/cache/index3/level", "3\n");
    root.write(dir + "/cache/index3/type", "Unified\n");
    root.write(dir + "/cache/index3/shared_cpu_list", "0-" + last + "\n");
  }
  write_node(root, 0, "0-" + last);
}

// Process `pid` ("self" or a number) in cgroup v2's `cgroup` ("/a/b"): its
// cgroup file, a cgroup2 mount at /sys/fs/cgroup in its mount table, and
// that cgroup's effective cpuset (files left out where cpus/mems is empty).
inline void write_cgroup2(const TempRoot& root, const std::string& pid, const std::string& cgroup,
                          const std::string& cpus, const std::string& mems) {
  root.write("proc/" + pid + "/cgroup", "0::" + cgroup + "\n");
  root.write("proc/" + pid + "/mountinfo",
             "24 1 0:22 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n");
  std::string dir = "sys/fs/cgroup" + (cgroup == "/" ? std::string() : cgroup);
  root.mkdir(dir);
  if (!cpus.empty()) root.write(dir + "/cpuset.cpus.effective", cpus + "\n");
  if (!mems.empty()) root.write(dir + "/cpuset.mems.effective", mems + "\n");
}

// The same in cgroup v1: the cpuset hierarchy mounted at
// /sys/fs/cgroup/cpuset, its cpuset.effective_cpus and effective_mems.
inline void write_cgroup1(const TempRoot& root, const std::string& pid, const std::string& cgroup,
                          const std::string& cpus, const std::string& mems) {
  root.write("proc/" + pid + "/cgroup", "3:cpuset:" + cgroup + "\n");
  root.write("proc/" + pid + "/mountinfo",
             "31 1 0:26 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n");
  std::string dir = "sys/fs/cgroup/cpuset" + (cgroup == "/" ? std::string() : cgroup);
  root.mkdir(dir);
  if (!cpus.empty()) root.write(dir + "/cpuset.effective_cpus", cpus + "\n");
  if (!mems.empty()) root.write(dir + "/cpuset.effective_mems", mems + "\n");
}

}  // namespace affix::test
