#pragma once
// The raw reading behind read_topology: every file under the root is read
// once, and the CPU masks (package, die, core, last-level cache) are
// de-duplicated by their text before they are parsed, so that a 4096-CPU
// machine costs one parse per distinct mask, not one per CPU.

#include <string>
#include <unordered_map>
#include <vector>

#include "cpuset.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// The largest number of CPUs (highest CPU number + 1) a root may describe.
constexpr unsigned k_max_cpus = 1u << 16;

// Distinct CPU sets, each parsed once; CPUs refer to them by index.
struct MaskCache {
  std::unordered_map<std::string, int> by_text;  // masks
  std::unordered_map<std::string, int> by_list;  // cpulists
  std::vector<CpuSet> sets;

  int add(CpuSet set);
  // A hex mask ("ff,00000001") or, with `is_list`, a cpulist; Error(Runtime)
  // naming `path` where the text is neither.
  int parse(const std::string& text, bool is_list, const std::string& path);
};

struct RawTopology {
  CpuSet cpus;      // every CPU the kernel shows: cpuN directories, present, online
  CpuSet online;
  CpuSet isolated;
  std::vector<NodeInfo> nodes;     // sorted by number; a CPU is in at most one
  // Per CPU number (size cpus.end()):
  std::vector<long> node_of, package_id, die_id, core_id;   // -1 where unknown
  std::vector<int> package_mask, die_mask, core_mask, llc_mask;  // MaskCache index or -1
  std::vector<bool> has_topology;  // an offline CPU that still reports its place
  MaskCache masks;
};

RawTopology read_raw_topology(const SysRoot& root, ReadScope scope = {});

}  // namespace affix
