#pragma once
// The raw reading behind read_topology: every file under the root is read
// once, and the CPU masks (package, die, core, last-level cache) are
// de-duplicated by their text before they are parsed, so that a 4096-CPU
// machine costs one parse per distinct mask, not one per CPU.
//
// A file that cannot be read or makes no sense leaves its attribute out
// (an id -1, a mask -1, a node without CPUs, memory or distances) and adds a
// warning naming the file; only the CPUs and which of them are online must
// be readable (Error(Runtime) otherwise).

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "cpuset.hpp"
#include "error.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// The largest number of CPUs (highest CPU number + 1) a root may describe.
constexpr unsigned k_max_cpus = 1u << 16;

// Distinct CPU sets, each parsed once; CPUs refer to them by index.
struct MaskCache {
  MaskCache() = default;
  MaskCache(const MaskCache&) = delete;  // the recent texts point into the maps
  MaskCache& operator=(const MaskCache&) = delete;
  MaskCache(MaskCache&&) = default;  // a moved map keeps its nodes
  MaskCache& operator=(MaskCache&&) = default;

  std::unordered_map<std::string, int> by_text;  // masks
  std::unordered_map<std::string, int> by_list;  // cpulists
  std::vector<CpuSet> sets;

  int add(CpuSet set);
  // A hex mask ("ff,00000001") or, with `is_list`, a cpulist; Error(Runtime)
  // naming `path` where the text is neither.
  int parse(const std::string& text, bool is_list, const std::string& path);

private:
  // The texts last looked up, most recent first: neighbouring CPUs share
  // their package, die and cache masks, and comparing a 1 KiB text with a
  // few is cheaper than hashing it.
  struct Recent {
    const std::string* text = nullptr;  // a key of by_text or by_list
    bool is_list = false;
    int index = -1;
  };
  std::array<Recent, 4> m_recent;
};

// What was left out while reading: the first k_max_warnings messages, and
// how many more there were (a machine whose every CPU has the same odd file
// warns a few times, then counts).
class Warnings {
public:
  static constexpr size_t k_max_warnings = 16;
  void add(std::string message);
  // The messages, with a last line counting those not kept.
  std::vector<std::string> take();

private:
  std::vector<std::string> m_messages;
  size_t m_more = 0;
};

struct RawTopology {
  CpuSet cpus;      // every CPU the kernel shows: cpuN directories, present, online
  CpuSet online;
  CpuSet isolated;
  std::vector<NodeInfo> nodes;     // sorted by number; a CPU is in at most one
  // Per CPU number (size cpus.end()); empty where the scope leaves out the tree:
  std::vector<long> node_of, package_id, die_id, core_id;   // -1 where unknown
  std::vector<int> package_mask, die_mask, core_mask, llc_mask;  // MaskCache index or -1
  std::vector<bool> has_topology;  // the CPU reports its place (an id or a mask)
  MaskCache masks;
  Warnings warnings;
};

RawTopology read_raw_topology(const SysRoot& root, ReadScope scope = {});

// The nodes under sys/devices/system/node, their CPUs and, with `memory`,
// their sizes and distances (topology_nodes.cpp); adds the nodes' CPUs to
// raw.cpus.
void read_nodes(const SysRoot& root, RawTopology& raw, bool memory);

// Helpers of the readers.

// A unit's id: that of its lowest CPU that has one (hwloc takes the first
// CPU's; where that CPU's file was left out, the next one says), else -1.
long first_id(const std::vector<long>& id_of, const CpuSet& cpus);

// Runs `read`; where it throws Error (a file that cannot be read or makes
// no sense), the attribute is left out: a warning quoting the error, and
// `fallback`.
template <typename F, typename T = std::invoke_result_t<F>>
T or_left_out(Warnings& warnings, F&& read, T fallback = T{}) {
  try {
    return read();
  } catch (const Error& e) {
    warnings.add(fmt::format("{} (left out)", e.what()));
    return fallback;
  }
}

// "cpu12" -> 12 for names PREFIX + decimal; nullopt otherwise.
std::optional<unsigned> numbered(const std::string& name, std::string_view prefix, unsigned limit);

// The first of the mask files, then of the list files, under `dir` that
// exists, as a MaskCache index; -1 where none does. Error(Runtime) naming
// the file where its content is neither.
int read_mask(const SysRoot& root, const std::string& dir, std::initializer_list<const char*> masks,
              std::initializer_list<const char*> lists, MaskCache& cache);

// The set, empty where nullopt; Error(Runtime) naming `rel` where it holds a
// CPU beyond k_max_cpus.
CpuSet checked(const SysRoot& root, std::string_view rel, std::optional<CpuSet> set);

}  // namespace affix
