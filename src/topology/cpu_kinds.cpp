#include "cpu_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace affix {

namespace {

constexpr long k_unknown = -1;  // no forced efficiency (hwloc's HWLOC_CPUKIND_EFFICIENCY_UNKNOWN)

struct Kind {
  CpuSet cpus;
  long forced = k_unknown;  // capacity, where hwloc forces the efficiency from it
  unsigned long max_mhz = 0, base_mhz = 0;
  unsigned core_type = 0;
};

// What one registration adds to the kinds it meets.
struct Info {
  unsigned long max_mhz = 0, base_mhz = 0;
  unsigned core_type = 0;
};

void add_info(Kind& k, const Info& info) {
  if (info.max_mhz) k.max_mhz = info.max_mhz;
  if (info.base_mhz) k.base_mhz = info.base_mhz;
  if (info.core_type) k.core_type = info.core_type;
}

// hwloc_internal_cpukinds_register: a set splits every kind it meets into
// the part inside it (a new kind, appended) and the part outside; a kind it
// covers takes its info; CPUs in no kind yet make a new kind at the end.
void register_set(std::vector<Kind>& kinds, CpuSet cpus, long forced, const Info& info) {
  if (cpus.empty()) return;
  size_t old = kinds.size();
  for (size_t i = 0; i < old && !cpus.empty(); ++i) {
    CpuSet both = cpus & kinds[i].cpus;
    if (both.empty()) continue;
    if (both == kinds[i].cpus) {  // the set covers the kind
      add_info(kinds[i], info);
      if (kinds[i].forced == k_unknown) kinds[i].forced = forced;
    } else {
      Kind k = kinds[i];
      k.cpus = both;
      k.forced = forced;
      add_info(k, info);
      kinds[i].cpus -= both;
      kinds.push_back(std::move(k));
    }
    cpus -= both;
  }
  if (!cpus.empty()) {
    Kind k;
    k.cpus = std::move(cpus);
    k.forced = forced;
    add_info(k, info);
    kinds.push_back(std::move(k));
  }
}

// The CPUs of each distinct nonzero value, in ascending order of value.
template <typename Get> std::map<unsigned long, CpuSet> group_by(const std::vector<CpuKindFacts>& facts, Get get) {
  std::map<unsigned long, CpuSet> out;
  for (auto& f : facts)
    if (unsigned long v = get(f)) out[v].set(f.cpu);
  return out;
}

// hwloc_linux_cpukinds_adjust_maxfreqs with its default of 10%.
void adjust_max_frequencies(std::vector<CpuKindFacts>& facts) {
  for (auto& f : facts)
    if (f.max_khz && !f.base_khz) return;  // some maximum without a base: left as it is
  std::map<unsigned long, std::vector<CpuKindFacts*>> by_base;
  for (auto& f : facts) by_base[f.base_khz].push_back(&f);
  for (auto& [base, group] : by_base) {
    unsigned long lo = group[0]->max_khz, hi = lo, min_capacity = group[0]->capacity;
    for (auto* f : group) {
      lo = std::min(lo, f->max_khz);
      hi = std::max(hi, f->max_khz);
      min_capacity = std::min(min_capacity, f->capacity);
    }
    if (lo == hi || lo == 0) continue;
    if (static_cast<double>(hi - lo) / static_cast<double>(lo) * 100 < 10)
      for (auto* f : group) {
        f->max_khz = lo;
        f->capacity = min_capacity;
      }
  }
}

bool unique_rankings(const std::vector<Kind>& kinds, const std::vector<unsigned long>& rank) {
  for (size_t i = 0; i < kinds.size(); ++i)
    for (size_t j = i + 1; j < kinds.size(); ++j)
      if (rank[i] == rank[j]) return false;
  return true;
}

// hwloc_internal_cpukinds_rank (default strategy): the ranking values, or
// nullopt where the kinds cannot be ranked.
std::optional<std::vector<unsigned long>> rankings(const std::vector<Kind>& kinds) {
  std::vector<unsigned long> rank;
  bool forced = true;
  for (auto& k : kinds) {
    if (k.forced == k_unknown) forced = false;
    rank.push_back(static_cast<unsigned long>(k.forced));
  }
  if (forced && unique_rankings(kinds, rank)) return rank;
  bool have_max = true, have_base = true, have_type = true;
  for (auto& k : kinds) {
    have_max = have_max && k.max_mhz;
    have_base = have_base && k.base_mhz;
    have_type = have_type && k.core_type;
  }
  if (!have_type && !have_max && !have_base) return std::nullopt;
  rank.clear();
  for (auto& k : kinds)
    rank.push_back((static_cast<unsigned long>(k.core_type) << 20) +
                   (have_base ? k.base_mhz : have_max ? k.max_mhz : 0));
  if (!unique_rankings(kinds, rank)) return std::nullopt;
  return rank;
}

std::optional<unsigned long> read_number(const SysRoot& root, const std::string& rel) {
  auto text = root.read(rel, 256);
  if (!text) return std::nullopt;
  std::string_view s = *text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  auto v = parse_decimal(s, 1ull << 40);
  if (!v) return std::nullopt;  // as hwloc: a value that is not a number says nothing
  return static_cast<unsigned long>(*v);
}

}  // namespace

std::vector<CpuSet> rank_cpu_kinds(std::vector<CpuKindFacts> facts) {
  adjust_max_frequencies(facts);
  std::vector<Kind> kinds;
  for (auto& [mhz, cpus] : group_by(facts, [](const CpuKindFacts& f) { return f.max_khz / 1000; }))
    register_set(kinds, cpus, k_unknown, Info{mhz, 0, 0});
  for (auto& [mhz, cpus] : group_by(facts, [](const CpuKindFacts& f) { return f.base_khz / 1000; }))
    register_set(kinds, cpus, k_unknown, Info{0, mhz, 0});
  for (auto& [capacity, cpus] : group_by(facts, [](const CpuKindFacts& f) { return f.capacity; }))
    register_set(kinds, cpus, static_cast<long>(capacity), Info{});
  for (unsigned type : {1u, 2u}) {
    CpuSet cpus;
    for (auto& f : facts)
      if (f.core_type == type) cpus.set(f.cpu);
    register_set(kinds, cpus, k_unknown, Info{0, 0, type});
  }

  std::vector<size_t> order(kinds.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (kinds.size() > 1)
    if (auto rank = rankings(kinds))
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return (*rank)[a] < (*rank)[b]; });
  std::vector<CpuSet> out;
  for (auto it = order.rbegin(); it != order.rend(); ++it) out.push_back(kinds[*it].cpus);
  return out;
}

std::vector<CpuSet> read_cpu_kinds(const SysRoot& root, const CpuSet& online) {
  std::vector<CpuKindFacts> facts;
  online.for_each([&](unsigned cpu) { facts.push_back(CpuKindFacts{cpu}); });
  if (facts.empty()) return {};
  auto atom = root.read_cpulist("sys/devices/cpu_atom/cpus");
  auto core = root.read_cpulist("sys/devices/cpu_core/cpus");
  for (auto& f : facts) {
    if (atom && atom->test(f.cpu)) f.core_type = 1;
    if (core && core->test(f.cpu)) f.core_type = 2;
  }
  auto dir = [](unsigned cpu) { return fmt::format("sys/devices/system/cpu/cpu{}/", cpu); };
  auto has_any = [&](unsigned cpu) {
    std::string d = dir(cpu);
    return root.exists(d + "cpufreq") || root.exists(d + "cpu_capacity") || root.exists(d + "acpi_cppc");
  };
  if (has_any(facts[0].cpu)) {
    bool any_max = false;
    for (auto& f : facts) {
      std::string d = dir(f.cpu);
      f.max_khz = read_number(root, d + "cpufreq/cpuinfo_max_freq").value_or(0);
      f.base_khz = read_number(root, d + "cpufreq/base_frequency").value_or(0);
      f.capacity = read_number(root, d + "cpu_capacity").value_or(0);
      any_max = any_max || f.max_khz;
    }
    // Without cpufreq, ACPI CPPC's highest performance ranks the CPUs the
    // same way (taken as MHz x 1000 so that it groups like a frequency).
    if (!any_max)
      for (auto& f : facts) f.max_khz = read_number(root, dir(f.cpu) + "acpi_cppc/highest_perf").value_or(0) * 1000;
  }
  return rank_cpu_kinds(std::move(facts));
}

}  // namespace affix
