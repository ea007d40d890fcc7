#include "topology_read.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "error.hpp"

namespace affix {

int MaskCache::add(CpuSet set) {
  sets.push_back(std::move(set));
  return static_cast<int>(sets.size() - 1);
}

int MaskCache::parse(const std::string& text, bool is_list, const std::string& path) {
  // Two maps keyed by the text itself: no copy of a 1 KiB mask per lookup.
  auto& by = is_list ? by_list : by_text;
  auto it = by.find(text);
  if (it != by.end()) return it->second;
  auto parsed = is_list ? parse_cpulist(text, true, k_max_cpus - 1) : parse_cpumask(text, k_max_cpus - 1);
  if (!parsed) throw Error(ErrorKind::Runtime, fmt::format("{}: {}", path, parsed.error.message));
  int index = add(std::move(*parsed.value));
  by.emplace(text, index);
  return index;
}

namespace {

constexpr std::string_view k_cpu_dir = "sys/devices/system/cpu";
constexpr std::string_view k_node_dir = "sys/devices/system/node";

std::string trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  return std::string(s);
}

// "cpu12" -> 12 for names PREFIX + decimal; nullopt otherwise.
std::optional<unsigned> numbered(const std::string& name, std::string_view prefix, unsigned limit) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  auto v = parse_decimal(std::string_view(name).substr(prefix.size()), limit);
  if (!v) return std::nullopt;
  return static_cast<unsigned>(*v);
}

// The first of `names` (mask files, then list files) under `dir` that
// exists, as a MaskCache index; -1 where none does.
int read_mask(const SysRoot& root, const std::string& dir, std::initializer_list<const char*> masks,
              std::initializer_list<const char*> lists, MaskCache& cache) {
  for (const char* name : masks) {
    std::string rel = dir + "/" + name;
    if (auto text = root.read(rel)) return cache.parse(*text, false, root.path(rel));
  }
  for (const char* name : lists) {
    std::string rel = dir + "/" + name;
    if (auto text = root.read(rel)) return cache.parse(*text, true, root.path(rel));
  }
  return -1;
}

CpuSet checked(const SysRoot& root, std::string_view rel, std::optional<CpuSet> set) {
  if (set && set->end() > k_max_cpus)
    throw Error(ErrorKind::Runtime,
                fmt::format("{}: CPU number {} is beyond the supported {}", root.path(rel),
                            set->end() - 1, k_max_cpus - 1));
  return set ? std::move(*set) : CpuSet{};
}

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
                                                key.substr(0, key.size() - 1), std::string(number.substr(0, 40))));
  return v;
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
                                                  std::string(s.substr(i, std::min<size_t>(j - i, 40)))));
    out.push_back(static_cast<unsigned>(*v));
    i = j;
  }
  return out;
}

void read_nodes(const SysRoot& root, RawTopology& raw, bool memory) {
  std::vector<unsigned> numbers;
  for (auto& name : root.list(k_node_dir))
    if (auto n = numbered(name, "node", k_max_id)) numbers.push_back(*n);
  std::sort(numbers.begin(), numbers.end());
  if (numbers.empty()) {
    // No node/ directory: one node 0 with every CPU and the machine's memory.
    NodeInfo node;
    node.cpus = raw.cpus;
    if (auto text = memory ? root.read("proc/meminfo") : std::nullopt) {
      node.memory_total_kb = meminfo_value(root, "proc/meminfo", *text, "MemTotal:");
      node.memory_free_kb = meminfo_value(root, "proc/meminfo", *text, "MemFree:");
    }
    node.distances = {10};
    raw.nodes.push_back(std::move(node));
  }
  CpuSet taken;
  for (unsigned number : numbers) {
    NodeInfo node;
    node.node = number;
    std::string dir = fmt::format("{}/node{}", k_node_dir, number);
    MaskCache local;
    int m = read_mask(root, dir, {"cpumap"}, {"cpulist"}, local);
    if (m >= 0) node.cpus = checked(root, dir + "/cpumap", local.sets[static_cast<size_t>(m)]);
    // A CPU belongs to one node: a node whose CPUs overlap an earlier
    // node's is taken as CPU-less, as hwloc does.
    if (node.cpus.intersects(taken)) node.cpus = CpuSet{};
    taken |= node.cpus;
    if (!memory) {
      raw.nodes.push_back(std::move(node));
      continue;
    }
    std::string meminfo = dir + "/meminfo";
    if (auto text = root.read(meminfo)) {
      node.memory_total_kb = meminfo_value(root, meminfo, *text, "MemTotal:");
      node.memory_free_kb = meminfo_value(root, meminfo, *text, "MemFree:");
    }
    node.distances = read_distances(root, dir + "/distance");
    raw.nodes.push_back(std::move(node));
  }
  for (auto& node : raw.nodes) {
    if (!node.distances.empty() && node.distances.size() != raw.nodes.size())
      throw Error(ErrorKind::Runtime,
                  fmt::format("{}: {} distances for {} nodes",
                              root.path(fmt::format("{}/node{}/distance", k_node_dir, node.node)),
                              node.distances.size(), raw.nodes.size()));
    raw.cpus |= node.cpus & CpuSet::range(0, k_max_cpus - 1);
  }
}

// The cache directories of a CPU: (level, "indexN") of its data/unified
// caches. Only the caches of the CPU's own highest level can be its last
// level cache, so `type` is read only for those (one read per CPU instead of
// one per cache); the entries below that level are kept without their type
// and never used.
struct CpuCaches {
  std::vector<std::pair<long, std::string>> entries;
};

CpuCaches read_cache_levels(const SysRoot& root, const std::string& cpu_dir) {
  CpuCaches out;
  std::string dir = cpu_dir + "/cache";
  std::vector<std::pair<long, std::string>> all;
  for (auto& name : root.list(dir)) {
    if (!numbered(name, "index", 1024)) continue;
    auto level = root.read_int(dir + "/" + name + "/level");
    if (!level || *level < 0) continue;
    all.emplace_back(*level, name);
  }
  // Highest level first; a level whose caches are all instruction caches
  // does not count.
  std::vector<long> levels;
  for (auto& entry : all) levels.push_back(entry.first);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  for (auto level = levels.rbegin(); level != levels.rend(); ++level) {
    for (auto& entry : all) {
      if (entry.first != *level) continue;
      auto type = root.read(dir + "/" + entry.second + "/type");
      if (type && trim(*type) == "Instruction") continue;
      out.entries.push_back(entry);
    }
    if (!out.entries.empty()) break;
  }
  return out;
}

}  // namespace

RawTopology read_raw_topology(const SysRoot& root, ReadScope scope) {
  RawTopology raw;
  std::string cpu_dir(k_cpu_dir);
  if (!root.exists(cpu_dir)) {
    if (!root.exists("")) throw Error(ErrorKind::Runtime, fmt::format("{}: no such directory", root.root()));
    throw Error(ErrorKind::Runtime, fmt::format("{}: no such directory", root.path(cpu_dir)));
  }
  CpuSet dirs;
  for (auto& name : root.list(cpu_dir))
    if (auto n = numbered(name, "cpu", k_max_id)) {
      if (*n >= k_max_cpus)
        throw Error(ErrorKind::Runtime, fmt::format("{}: CPU number {} is beyond the supported {}",
                                                    root.path(cpu_dir + "/" + name), *n, k_max_cpus - 1));
      dirs.set(*n);
    }
  auto online_file = root.read_cpulist(cpu_dir + "/online");
  CpuSet present = checked(root, cpu_dir + "/present", root.read_cpulist(cpu_dir + "/present"));
  raw.cpus = dirs | present | checked(root, cpu_dir + "/online", online_file);
  raw.isolated = checked(root, cpu_dir + "/isolated", root.read_cpulist(cpu_dir + "/isolated"));
  read_nodes(root, raw, scope.memory);
  if (raw.cpus.empty()) throw Error(ErrorKind::Runtime, fmt::format("{}: no CPUs found", root.path(cpu_dir)));

  const size_t n = raw.cpus.end();
  raw.node_of.assign(n, -1);
  raw.package_id.assign(n, -1);
  raw.die_id.assign(n, -1);
  raw.core_id.assign(n, -1);
  raw.package_mask.assign(n, -1);
  raw.die_mask.assign(n, -1);
  raw.core_mask.assign(n, -1);
  raw.llc_mask.assign(n, -1);
  raw.has_topology.assign(n, false);
  for (auto& node : raw.nodes) node.cpus.for_each([&](unsigned cpu) { if (cpu < n) raw.node_of[cpu] = node.node; });

  std::vector<CpuCaches> caches(n);
  long last_level = -1;
  raw.cpus.for_each([&](unsigned cpu) {
    std::string dir = fmt::format("{}/cpu{}", cpu_dir, cpu);
    bool is_online;
    if (online_file) {
      is_online = online_file->test(cpu);
    } else {
      // No global list: each CPU's own online file; cpu0 often has none.
      // An empty file (some ia64 captures) says nothing either.
      auto flag = root.read(dir + "/online", 64);
      std::string value = flag ? trim(*flag) : std::string();
      if (!value.empty() && value != "0" && value != "1")
        throw Error(ErrorKind::Runtime, fmt::format("{}: expected 0 or 1, found '{}'", root.path(dir + "/online"), value));
      is_online = value != "0";
      if (!dirs.test(cpu)) is_online = false;
    }
    if (is_online) raw.online.set(cpu);
    std::string topo = dir + "/topology";
    raw.package_id[cpu] = root.read_int(topo + "/physical_package_id").value_or(-1);
    raw.die_id[cpu] = root.read_int(topo + "/die_id").value_or(-1);
    raw.core_id[cpu] = root.read_int(topo + "/core_id").value_or(-1);
    raw.has_topology[cpu] = raw.package_id[cpu] >= 0 || raw.core_id[cpu] >= 0;
    if (!is_online) return;
    raw.package_mask[cpu] = read_mask(root, topo, {"package_cpus", "core_siblings"},
                                      {"package_cpus_list", "core_siblings_list"}, raw.masks);
    raw.die_mask[cpu] = read_mask(root, topo, {"die_cpus"}, {"die_cpus_list"}, raw.masks);
    raw.core_mask[cpu] = read_mask(root, topo, {"core_cpus", "thread_siblings"},
                                   {"core_cpus_list", "thread_siblings_list"}, raw.masks);
    if (scope.caches) caches[cpu] = read_cache_levels(root, dir);
    for (auto& entry : caches[cpu].entries) last_level = std::max(last_level, entry.first);
  });
  if (raw.online.empty())
    throw Error(ErrorKind::Runtime, fmt::format("{}: no CPUs online", root.path(cpu_dir + (online_file ? "/online" : ""))));
  // The last-level cache: the machine's largest cache level; a CPU that
  // reports no cache of that level has none (as hwloc).
  if (last_level >= 0) {
    raw.online.for_each([&](unsigned cpu) {
      for (auto& [level, name] : caches[cpu].entries) {
        if (level != last_level) continue;
        std::string dir = fmt::format("{}/cpu{}/cache/{}", cpu_dir, cpu, name);
        raw.llc_mask[cpu] = read_mask(root, dir, {"shared_cpu_map"}, {"shared_cpu_list"}, raw.masks);
        break;
      }
    });
  }
  for (auto& set : raw.masks.sets) {
    if (set.end() > n) set &= CpuSet::range(0, static_cast<unsigned>(n - 1));
  }
  return raw;
}

}  // namespace affix
