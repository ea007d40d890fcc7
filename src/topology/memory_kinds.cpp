#include "memory_kinds.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "error.hpp"
#include "topology_read.hpp"

namespace affix {

const char* mem_kind_name(MemKind kind) {
  switch (kind) {
    case MemKind::Unknown: return "unknown";
    case MemKind::Dram: return "DRAM";
    case MemKind::Hbm: return "HBM";
    case MemKind::Gpu: return "GPUMemory";
    case MemKind::Spm: return "SPM";
    case MemKind::Nvm: return "NVM";
    case MemKind::CxlDram: return "CXL-DRAM";
    case MemKind::CxlNvm: return "CXL-NVM";
  }
  return "unknown";
}

namespace {

// hwloc's order of kinds (its bits: HBM 1, DRAM 2, GPU 4, SPM 8, NVM 16,
// CXL 32), by which nodes are sorted; unknown first.
unsigned kind_bits(MemKind kind) {
  switch (kind) {
    case MemKind::Unknown: return 0;
    case MemKind::Hbm: return 1;
    case MemKind::Dram: return 2;
    case MemKind::Gpu: return 4;
    case MemKind::Spm: return 8;
    case MemKind::Nvm: return 16;
    case MemKind::CxlDram: return 32 | 2;
    case MemKind::CxlNvm: return 32 | 16;
  }
  return 0;
}

// The link's target without its leading "../" parts, "devices/" and
// "platform/", as hwloc's annotate_dax_parent shortens it.
std::string_view dax_parent(std::string_view link) {
  while (link.substr(0, 3) == "../") link.remove_prefix(3);
  if (link.substr(0, 8) == "devices/") link.remove_prefix(8);
  if (link.substr(0, 9) == "platform/") link.remove_prefix(9);
  return link;
}

// Whether CXL region `region` has a first target that is a CXL endpoint
// under PCI (hwloc's annotate_cxl_dax, which names its PCI functions).
bool cxl_region(const SysRoot& root, unsigned long long region) {
  std::optional<std::string> decoder;
  try {
    decoder = root.read(fmt::format("sys/bus/cxl/devices/region{}/target0", region), 4096);
  } catch (const Error&) {
    return false;
  }
  if (!decoder) return false;
  std::string name(trim_space(*decoder));
  if (name.empty() || name.find('/') != std::string::npos) return false;
  auto path = root.read_link("sys/bus/cxl/devices/" + name);
  if (!path) return false;
  auto at = path->find("endpoint");
  if (at == std::string::npos) return false;
  std::string endpoint = path->substr(at, path->find('/', at) - at);
  auto uport = root.read_link("sys/bus/cxl/devices/" + endpoint + "/uport");
  return uport && uport->find("/pci") != std::string::npos;
}

// The node a DAX device bound to kmem makes, and its kind; nullopt where
// it is none.
std::optional<std::pair<unsigned, MemKind>> dax_node(const SysRoot& root, const std::string& name) {
  if (!root.exists("sys/bus/dax/drivers/kmem/" + name)) return std::nullopt;
  std::optional<long> target;
  try {
    target = root.read_int("sys/bus/dax/devices/" + name + "/target_node");
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!target || *target < 0) return std::nullopt;
  auto link = root.read_link("sys/bus/dax/devices/" + name);
  if (!link) return std::nullopt;
  std::string_view parent = dax_parent(*link);
  bool nvm = parent.find("ndbus") != std::string_view::npos;
  bool cxl = false;
  if (auto at = parent.find("/region"); at != std::string_view::npos) {
    std::string_view digits = parent.substr(at + 7);
    digits = digits.substr(0, digits.find_first_not_of("0123456789"));
    if (auto region = parse_decimal(digits, k_max_id)) cxl = cxl_region(root, *region);
  }
  MemKind kind = cxl ? (nvm ? MemKind::CxlNvm : MemKind::CxlDram) : nvm ? MemKind::Nvm : MemKind::Spm;
  return std::pair{static_cast<unsigned>(*target), kind};
}

// A directory's names; none where it has more than a directory of the
// kernel's would (the root is not what the kernel shows).
std::vector<std::string> names_in(const SysRoot& root, std::string_view dir) {
  try {
    return root.list(dir, 1u << 16);
  } catch (const Error&) {
    return {};
  }
}

}  // namespace

std::map<unsigned, MemKind> read_memory_kinds(const SysRoot& root) {
  std::map<unsigned, MemKind> out;
  for (const std::string& name : names_in(root, "sys/bus/dax/devices"))
    if (auto n = dax_node(root, name)) out.emplace(n->first, n->second);
  // NVIDIA GPU memory: "Node:" then the node (or -1) in each GPU's numa_status.
  for (const std::string& gpu : names_in(root, "proc/driver/nvidia/gpus")) {
    std::optional<std::string> text;
    try {
      text = root.read("proc/driver/nvidia/gpus/" + gpu + "/numa_status", 4096);
    } catch (const Error&) {
      continue;
    }
    if (!text) continue;
    auto at = text->find("Node:");
    if (at == std::string::npos) continue;
    std::string_view value = std::string_view(*text).substr(at + 5);
    value.remove_prefix(std::min(value.size(), value.find_first_not_of(" \t")));
    if (auto node = parse_decimal(value.substr(0, value.find_first_not_of("0123456789")), k_max_id))
      out[static_cast<unsigned>(*node)] = MemKind::Gpu;
  }
  return out;
}

std::map<unsigned, MemKind> guess_memory_kinds(std::vector<KindInput> nodes) {
  std::map<unsigned, MemKind> out;
  if (nodes.empty()) return out;
  std::stable_sort(nodes.begin(), nodes.end(), [](const KindInput& a, const KindInput& b) {
    if (a.kind != b.kind) return kind_bits(a.kind) < kind_bits(b.kind);
    return a.bandwidth > b.bandwidth;
  });
  auto differs = [](unsigned long long a, unsigned long long b) {
    if (a == 0 || b == 0) return false;
    double ratio = static_cast<double>(a) / static_cast<double>(b);
    return (ratio < 1 ? 1 / ratio : ratio) > 1.1;
  };
  struct Group {
    MemKind kind = MemKind::Unknown;
    unsigned long long first_bw = 0, last_bw = 0;  // hwloc's local_bw_min and _max, as it fills them
    std::vector<unsigned> nodes;
  };
  std::vector<Group> groups(1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const KindInput& n = nodes[i];
    if (i > 0) {
      const KindInput& p = nodes[i - 1];
      if (n.kind != p.kind || differs(n.bandwidth, p.bandwidth) || differs(n.latency, p.latency))
        groups.emplace_back();
    }
    Group& g = groups.back();
    g.kind = n.kind;
    // hwloc sets its "max" from the group's last node even where that one
    // has no bandwidth (0), which then passes for twice any other: only
    // known bandwidths count here.
    if (n.bandwidth != 0) {
      if (g.first_bw == 0) g.first_bw = n.bandwidth;
      g.last_bw = n.bandwidth;
    }
    g.nodes.push_back(n.node);
  }
  std::vector<Group*> unknown, spm;
  bool known = false;
  for (Group& g : groups) {
    if (g.kind == MemKind::Unknown) unknown.push_back(&g);
    if (g.kind == MemKind::Spm) spm.push_back(&g);
    known = known || g.kind == MemKind::Dram || g.kind == MemKind::Hbm;
  }
  Group* a = nullptr;
  Group* b = nullptr;
  if (!known && groups.size() > 1) {
    if (unknown.size() == 2 && spm.empty()) a = unknown[0], b = unknown[1];
    if (unknown.size() == 1 && spm.size() == 1) a = unknown[0], b = spm[0];
  }
  if (a && b && a->first_bw && b->first_bw) {
    if (a->first_bw > b->first_bw) std::swap(a, b);  // a: the slower
    if (b->first_bw > 2 * a->last_bw) {
      a->kind = MemKind::Dram;
      b->kind = MemKind::Hbm;
    }
  }
  for (const Group& g : groups)
    for (unsigned node : g.nodes) out[node] = g.kind;
  return out;
}

void set_memory_kinds(const SysRoot& root, Topology& topo) {
  std::map<unsigned, MemKind> said = read_memory_kinds(root);
  std::vector<KindInput> inputs;
  auto average = [](const auto& a, const auto& b) { return a && b ? (*a + *b) / 2 : 0ull; };
  for (const NodeInfo& n : topo.nodes) {
    if (!n.has_memory()) continue;
    KindInput in;
    in.node = n.node;
    if (auto it = said.find(n.node); it != said.end()) in.kind = it->second;
    in.bandwidth = average(n.hmat.read_bandwidth, n.hmat.write_bandwidth);
    in.latency = average(n.hmat.read_latency, n.hmat.write_latency);
    inputs.push_back(in);
  }
  std::map<unsigned, MemKind> kinds = guess_memory_kinds(std::move(inputs));
  for (NodeInfo& n : topo.nodes)
    if (auto it = kinds.find(n.node); it != kinds.end()) n.kind = it->second;
}

bool kind_matches(MemKind kind, std::string_view word) {
  if (word == "dram") return kind == MemKind::Dram;
  if (word == "hbm") return kind == MemKind::Hbm;
  if (word == "gpu") return kind == MemKind::Gpu;
  if (word == "nvm") return kind == MemKind::Nvm || kind == MemKind::CxlNvm;
  if (word == "cxl") return kind == MemKind::CxlDram || kind == MemKind::CxlNvm;
  return false;
}

const std::vector<std::string>& mem_kind_words() {
  static const std::vector<std::string> words = {"hbm", "dram", "cxl", "nvm", "gpu"};
  return words;
}

}  // namespace affix
