// The NUMA nodes of the machine: each node's CPUs (cpumap), memory
// (meminfo) and distance row, read the way hwloc does; what cannot be read
// or makes no sense is left out with a warning.
#include <algorithm>
#include <utility>

#include "text.hpp"
#include "topology_read.hpp"

namespace affix {

namespace {

constexpr std::string_view k_node_dir = "sys/devices/system/node";

std::optional<unsigned long long> meminfo_value(const SysRoot& root, const std::string& rel,
                                                const std::string& text, std::string_view key) {
  size_t at = text.find(key);
  if (at == std::string::npos) return std::nullopt;
  size_t begin = text.find_first_not_of(' ', at + key.size());
  size_t end = text.find_first_of(" \n", begin);
  if (begin == std::string::npos) begin = text.size();
  std::string_view number = std::string_view(text).substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  auto v = parse_decimal(number, 1ull << 50);
  if (!v)
    throw Error(ErrorKind::Runtime, fmt::format("{}: {} is not a number of kB: '{}'", root.path(rel),
                                                key.substr(0, key.size() - 1), printable(number.substr(0, 40))));
  return v;
}

// MemTotal and MemFree of a meminfo file, left out where unreadable.
void read_meminfo(const SysRoot& root, const std::string& rel, NodeInfo& node, Warnings& warnings) {
  auto text = or_left_out(warnings, [&] { return root.read(rel); });
  if (!text) return;
  node.memory_total_kb = or_left_out(warnings, [&] { return meminfo_value(root, rel, *text, "MemTotal:"); });
  node.memory_free_kb = or_left_out(warnings, [&] { return meminfo_value(root, rel, *text, "MemFree:"); });
}

std::vector<unsigned> read_distances(const SysRoot& root, const std::string& rel) {
  std::vector<unsigned> out;
  auto text = root.read(rel, 1u << 16);
  if (!text) return out;
  std::string_view s = *text;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t')) ++i;
    if (i == s.size()) break;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\n' && s[j] != '\t') ++j;
    auto v = parse_decimal(s.substr(i, j - i), 1000);
    if (!v)
      throw Error(ErrorKind::Runtime, fmt::format("{}: '{}' is not a distance (0 to 1000)", root.path(rel),
                                                  printable(s.substr(i, std::min<size_t>(j - i, 40)))));
    out.push_back(static_cast<unsigned>(*v));
    i = j;
  }
  return out;
}

// A node's distance row has one entry per node the kernel counts: the
// online nodes (node/online), in number order; a capture may only have
// node/possible, or neither. The first of `lists` that holds every node with
// a directory and has as many nodes as the row says which node each entry
// is for; the row is then indexed like RawTopology::nodes. A row that fits
// none is left out.
void index_distances(const SysRoot& root, RawTopology& raw, const std::vector<CpuSet>& lists) {
  CpuSet numbers;
  for (auto& node : raw.nodes) numbers.set(node.node);
  // Per list that holds every node: its size, and the column of each node.
  std::vector<std::pair<size_t, std::vector<size_t>>> columns;
  for (const CpuSet& list : lists) {
    if (!numbers.is_subset_of(list)) continue;
    std::vector<size_t> at;
    size_t column = 0;
    list.for_each([&](unsigned n) {
      if (numbers.test(n)) at.push_back(column);
      ++column;
    });
    columns.emplace_back(column, std::move(at));
  }
  for (auto& node : raw.nodes) {
    if (node.distances.empty()) continue;
    std::vector<unsigned> row;
    for (auto& [size, at] : columns) {
      if (size != node.distances.size()) continue;
      for (size_t column : at) row.push_back(node.distances[column]);
      break;
    }
    if (row.empty())
      raw.warnings.add(fmt::format("{}: {} distances for {} nodes (left out)",
                                   root.path(fmt::format("{}/node{}/distance", k_node_dir, node.node)),
                                   node.distances.size(), raw.nodes.size()));
    node.distances = std::move(row);
  }
}

}  // namespace

void read_nodes(const SysRoot& root, RawTopology& raw, bool memory) {
  std::vector<unsigned> numbers;
  for (auto& name : root.list(k_node_dir))
    if (auto n = numbered(name, "node", k_max_id)) numbers.push_back(*n);
  std::sort(numbers.begin(), numbers.end());
  if (numbers.empty()) {
    // No node/ directory: one node 0 with every CPU and the machine's memory.
    NodeInfo node;
    node.cpus = raw.cpus;
    if (memory) read_meminfo(root, "proc/meminfo", node, raw.warnings);
    node.distances = {10};
    raw.nodes.push_back(std::move(node));
  }
  CpuSet taken, dirs;
  for (unsigned number : numbers) {
    NodeInfo node;
    node.node = number;
    dirs.set(number);
    std::string dir = fmt::format("{}/node{}", k_node_dir, number);
    MaskCache local;
    node.cpus = or_left_out(raw.warnings, [&] {
      int m = read_mask(root, dir, {"cpumap"}, {"cpulist"}, local);
      return m < 0 ? CpuSet{} : checked(root, dir + "/cpumap", local.sets[static_cast<size_t>(m)]);
    });
    // A CPU belongs to one node: a node whose CPUs overlap an earlier
    // node's is taken as CPU-less, as hwloc does.
    if (node.cpus.intersects(taken)) node.cpus = CpuSet{};
    taken |= node.cpus;
    if (memory) {
      read_meminfo(root, dir + "/meminfo", node, raw.warnings);
      node.distances = or_left_out(raw.warnings, [&] { return read_distances(root, dir + "/distance"); });
    }
    raw.cpus |= node.cpus;
    raw.nodes.push_back(std::move(node));
  }
  if (memory && !numbers.empty()) {
    std::vector<CpuSet> lists;
    for (const char* name : {"online", "possible"})
      lists.push_back(or_left_out(raw.warnings, [&] {
        return root.read_cpulist(std::string(k_node_dir) + "/" + name).value_or(CpuSet{});
      }));
    lists.push_back(dirs);
    index_distances(root, raw, lists);
  }
}

std::vector<NodeInfo> read_node_cpus(const SysRoot& root) {
  RawTopology raw;
  // What the single node of a machine without node directories holds.
  raw.cpus = CpuSet::range(0, k_max_cpus - 1);
  read_nodes(root, raw, false);
  return std::move(raw.nodes);
}

long node_of_cpu(const std::vector<NodeInfo>& nodes, long cpu) {
  if (cpu < 0 || cpu > static_cast<long>(k_max_id)) return -1;
  for (const auto& node : nodes)
    if (node.cpus.test(static_cast<unsigned>(cpu))) return node.node;
  return -1;
}

}  // namespace affix
