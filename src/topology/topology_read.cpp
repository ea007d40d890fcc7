#include "topology_read.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "text.hpp"

namespace affix {

int MaskCache::add(CpuSet set) {
  sets.push_back(std::move(set));
  return static_cast<int>(sets.size() - 1);
}

int MaskCache::parse(const std::string& text, bool is_list, const std::string& path) {
  // Two maps keyed by the text itself: no copy of a 1 KiB mask per lookup.
  for (size_t i = 0; i < m_recent.size(); ++i) {
    const Recent& r = m_recent[i];
    if (r.text && r.is_list == is_list && *r.text == text) {
      auto at = m_recent.begin() + static_cast<long>(i);
      std::rotate(m_recent.begin(), at, at + 1);
      return m_recent[0].index;
    }
  }
  auto& by = is_list ? by_list : by_text;
  auto it = by.find(text);
  if (it == by.end()) {
    auto parsed = is_list ? parse_cpulist(text, true, k_max_cpus - 1) : parse_cpumask(text, k_max_cpus - 1);
    if (!parsed) throw Error(ErrorKind::Runtime, fmt::format("{}: {}", path, parsed.error.message));
    int index = add(std::move(*parsed.value));
    it = by.emplace(text, index).first;
  }
  std::rotate(m_recent.begin(), m_recent.end() - 1, m_recent.end());
  m_recent[0] = Recent{&it->first, is_list, it->second};
  return it->second;
}

void Warnings::add(std::string message) {
  if (m_messages.size() < k_max_warnings) m_messages.push_back(std::move(message));
  else ++m_more;
}

std::vector<std::string> Warnings::take() {
  std::vector<std::string> out = std::move(m_messages);
  if (m_more) out.push_back(fmt::format("{} more like these left out", m_more));
  m_messages.clear();
  m_more = 0;
  return out;
}

// A unit's id: that of its lowest CPU that has one (hwloc takes the first
// CPU's; where that CPU's file was left out, the next one says), else -1.
long first_id(const std::vector<long>& id_of, const CpuSet& cpus) {
  long id = -1;
  cpus.for_each([&](unsigned cpu) {
    if (id < 0) id = id_of[cpu];
  });
  return id;
}

std::optional<unsigned> numbered(const std::string& name, std::string_view prefix, unsigned limit) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  auto v = parse_decimal(std::string_view(name).substr(prefix.size()), limit);
  if (!v) return std::nullopt;
  return static_cast<unsigned>(*v);
}

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

namespace {

constexpr std::string_view k_cpu_dir = "sys/devices/system/cpu";

// A CPU list under `rel`, nullopt where missing; one that cannot be read or
// names CPUs beyond the limit is left out (nullopt).
std::optional<CpuSet> cpu_list(const SysRoot& root, std::string_view rel, Warnings& warnings) {
  return or_left_out(warnings, [&]() -> std::optional<CpuSet> {
    auto set = root.read_cpulist(rel);
    if (!set) return std::nullopt;
    return checked(root, rel, std::move(set));
  });
}

// The cache directories of a CPU: (level, "indexN") of its data/unified
// caches. Only the caches of the CPU's own highest level can be its last
// level cache, so `type` is read only for those (one read per CPU instead of
// one per cache); the entries below that level are kept without their type
// and never used.
struct CpuCaches {
  std::vector<std::pair<long, std::string>> entries;
};

// `root`: the CPU's directory (SysRoot::at).
CpuCaches read_cache_levels(const SysRoot& root, Warnings& warnings) {
  CpuCaches out;
  std::string dir = "cache";
  std::vector<std::pair<long, std::string>> all;
  for (auto& name : root.list(dir)) {
    if (!numbered(name, "index", 1024)) continue;
    auto level = or_left_out(warnings, [&] { return root.read_int(dir + "/" + name + "/level"); });
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
      auto type = or_left_out(warnings, [&] { return root.read(dir + "/" + entry.second + "/type"); });
      if (type && trim_space(*type) == "Instruction") continue;
      out.entries.push_back(entry);
    }
    if (!out.entries.empty()) break;
  }
  return out;
}

// Whether a CPU is online by its own `online` file, where there is no
// global list: cpu0 often has none, and an empty file (some ia64 captures)
// says nothing either. A value other than 0 or 1 is left out: the CPU is
// taken as offline (not used).
bool own_online_file(const SysRoot& root, const std::string& dir, Warnings& warnings) {
  auto flag = root.read(dir + "/online", 64);
  std::string value(flag ? trim_space(*flag) : std::string_view());
  if (value.empty() || value == "1") return true;
  if (value != "0")
    warnings.add(fmt::format("{}: expected 0 or 1, found '{}' (taken as offline)", root.path(dir + "/online"),
                             printable(value.substr(0, 40))));
  return false;
}

}  // namespace

RawTopology read_raw_topology(const SysRoot& root, ReadScope scope) {
  RawTopology raw;
  Warnings& warnings = raw.warnings;
  std::string cpu_dir(k_cpu_dir);
  CpuSet dirs;
  for (auto& name : root.list(cpu_dir))
    if (auto n = numbered(name, "cpu", k_max_id)) {
      if (*n < k_max_cpus) dirs.set(*n);
      else
        warnings.add(fmt::format("{}: CPU number {} is beyond the supported {} (left out)",
                                 root.path(cpu_dir + "/" + name), *n, k_max_cpus - 1));
    }
  // The online CPUs are the one thing that must be readable.
  auto online_file = root.read_cpulist(cpu_dir + "/online");
  if (dirs.empty() && !online_file && !root.exists(cpu_dir)) {
    if (!root.exists("")) throw Error(ErrorKind::Runtime, fmt::format("{}: no such directory", root.root()));
    throw Error(ErrorKind::Runtime, fmt::format("{}: no such directory", root.path(cpu_dir)));
  }
  raw.cpus = dirs | checked(root, cpu_dir + "/online", online_file) |
             cpu_list(root, cpu_dir + "/present", warnings).value_or(CpuSet{});
  if (scope.tree) raw.isolated = cpu_list(root, cpu_dir + "/isolated", warnings).value_or(CpuSet{});
  read_nodes(root, raw, scope.memory);
  if (raw.cpus.empty()) throw Error(ErrorKind::Runtime, fmt::format("{}: no CPUs found", root.path(cpu_dir)));

  const size_t n = raw.cpus.end();
  raw.node_of.assign(n, -1);
  for (auto& node : raw.nodes) node.cpus.for_each([&](unsigned cpu) { if (cpu < n) raw.node_of[cpu] = node.node; });
  if (online_file) raw.online = *online_file;
  if (!scope.tree) {
    // Which CPUs exist and which are online: no file per CPU unless there
    // is no global online list.
    if (!online_file)
      raw.cpus.for_each([&](unsigned cpu) {
        if (dirs.test(cpu) && own_online_file(root, fmt::format("{}/cpu{}", cpu_dir, cpu), warnings))
          raw.online.set(cpu);
      });
    if (raw.online.empty())
      throw Error(ErrorKind::Runtime, fmt::format("{}: no CPUs online", root.path(cpu_dir + (online_file ? "/online" : ""))));
    return raw;
  }
  raw.package_id.assign(n, -1);
  raw.die_id.assign(n, -1);
  raw.core_id.assign(n, -1);
  raw.package_mask.assign(n, -1);
  raw.die_mask.assign(n, -1);
  raw.core_mask.assign(n, -1);
  raw.llc_mask.assign(n, -1);
  raw.has_topology.assign(n, false);

  auto id = [&](const SysRoot& in, const char* rel) {
    return or_left_out(warnings, [&] { return in.read_int(rel); }).value_or(-1);
  };
  auto mask = [&](const SysRoot& in, const std::string& dir, std::initializer_list<const char*> masks,
                  std::initializer_list<const char*> lists) {
    return or_left_out(warnings, [&] { return read_mask(in, dir, masks, lists, raw.masks); }, -1);
  };
  std::vector<CpuCaches> caches(n);
  long last_level = -1;
  raw.cpus.for_each([&](unsigned cpu) {
    std::string dir = fmt::format("{}/cpu{}", cpu_dir, cpu);
    bool is_online = online_file ? online_file->test(cpu) : dirs.test(cpu) && own_online_file(root, dir, warnings);
    if (is_online) raw.online.set(cpu);
    // The CPU's files, opened relative to its directory (one path walk).
    SysRoot in_cpu = root.at(dir);
    raw.package_id[cpu] = id(in_cpu, "topology/physical_package_id");
    raw.die_id[cpu] = id(in_cpu, "topology/die_id");
    raw.core_id[cpu] = id(in_cpu, "topology/core_id");
    raw.has_topology[cpu] = raw.package_id[cpu] >= 0 || raw.core_id[cpu] >= 0;
    if (!is_online) return;
    raw.package_mask[cpu] =
        mask(in_cpu, "topology", {"package_cpus", "core_siblings"}, {"package_cpus_list", "core_siblings_list"});
    raw.die_mask[cpu] = mask(in_cpu, "topology", {"die_cpus"}, {"die_cpus_list"});
    raw.core_mask[cpu] =
        mask(in_cpu, "topology", {"core_cpus", "thread_siblings"}, {"core_cpus_list", "thread_siblings_list"});
    raw.has_topology[cpu] = raw.has_topology[cpu] || raw.package_mask[cpu] >= 0 || raw.die_mask[cpu] >= 0 ||
                            raw.core_mask[cpu] >= 0;
    // A CPU that reports nothing: where its topology directory is there but
    // cannot be reached (a symlink loop, no permission), say so; only a
    // missing one means the kernel tells nothing (one stat, for such CPUs
    // alone).
    if (!raw.has_topology[cpu])
      if (int err = in_cpu.error_of("topology"); err != 0 && err != ENOENT)
        warnings.add(fmt::format("{}: cannot read: {} (left out)", printable(in_cpu.path("topology")),
                                 std::strerror(err)));
    if (scope.caches) caches[cpu] = read_cache_levels(in_cpu, warnings);
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
        raw.llc_mask[cpu] = mask(root, fmt::format("{}/cpu{}/cache/{}", cpu_dir, cpu, name), {"shared_cpu_map"},
                                 {"shared_cpu_list"});
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
