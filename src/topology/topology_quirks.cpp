// hwloc's Linux backend corrects two things the kernel gets wrong on some
// processors, which it recognises by the first processor of /proc/cpuinfo;
// affix makes the same corrections, on the same condition.
#include "topology_quirks.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace affix {

CpuModel read_cpu_model(const SysRoot& root) {
  CpuModel model;
  bool in_processor = false;
  bool has_vendor = false, has_family = false, has_ia64_vendor = false, has_ia64_family = false;
  root.for_each_line("proc/cpuinfo", [&](std::string_view line) {
    if (trim_space(line).empty()) return !in_processor;  // a blank line ends the first processor
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return true;
    std::string key(trim_space(line.substr(0, colon)));
    std::string value(trim_space(line.substr(colon + 1)));
    if (key == "processor") {
      if (in_processor) return false;
      in_processor = true;
    } else if (key == "vendor_id") {
      has_vendor = true;
      model.vendor = value;
    } else if (key == "vendor") {
      has_ia64_vendor = true;
    } else if (key == "family") {
      has_ia64_family = true;
    } else if (key == "cpu family") {
      has_family = true;
      if (auto v = parse_decimal(value, 1u << 20)) model.family = static_cast<long>(*v);
    }
    return true;
  });
  model.x86 = has_vendor && has_family;
  model.ia64 = has_ia64_vendor && has_ia64_family;
  return model;
}

// Cores: the siblings mask (core_cpus, thread_siblings). On AMD's
// Bulldozer to Excavator processors (x86, AuthenticAMD, cpu family 21 or 22
// in proc/cpuinfo) the kernel groups a compute unit's two cores as
// siblings, each with its own core_id: where the first CPU with siblings
// has a different core_id from its first sibling, hwloc's Linux backend
// makes every CPU its own core there, and so does affix. Everywhere else
// siblings are threads of one core, whatever their core_ids say.
void split_compute_units(const SysRoot& root, RawTopology& raw) {
  const CpuSet& online = raw.online;
  std::optional<bool> split;
  online.for_each([&](unsigned cpu) {
    if (split || raw.core_mask[cpu] < 0) return;
    CpuSet siblings = raw.masks.sets[static_cast<size_t>(raw.core_mask[cpu])] & online;
    if (siblings.count() < 2) return;
    unsigned other = siblings.first() == cpu ? *siblings.next(cpu) : siblings.first();
    split = raw.core_id[cpu] != raw.core_id[other];
  });
  if (!split || !*split) return;
  CpuModel model = read_cpu_model(root);
  if (!model.x86 || model.vendor != "AuthenticAMD" || (model.family != 21 && model.family != 22)) return;
  online.for_each([&](unsigned cpu) {
    if (raw.core_mask[cpu] >= 0) raw.core_mask[cpu] = raw.masks.add(CpuSet::range(cpu, cpu));
  });
}

// Packages that share a physical_package_id while their masks split them:
// some kernels on two-ring Intel Xeon E5 v3 give each ring its own
// core_siblings (a buggy BIOS gives the same on some x86 and ia64
// machines). hwloc's Linux backend merges such packages into the first one,
// and so does affix on x86 and ia64 (with a warning); elsewhere they stay
// apart and the later ones are numbered after the largest id.
void merge_split_packages(const SysRoot& root, RawTopology& raw, std::vector<CpuSet>& sets,
                          std::vector<int>& unit_of) {
  std::map<long, size_t> first;                    // package id -> its first unit
  std::vector<std::pair<size_t, size_t>> merges;   // (into, from)
  for (size_t u = 0; u < sets.size(); ++u) {
    long id = first_id(raw.package_id, sets[u]);
    if (id < 0) continue;
    auto [it, fresh] = first.try_emplace(id, u);
    if (!fresh) merges.emplace_back(it->second, u);
  }
  if (merges.empty()) return;
  CpuModel model = read_cpu_model(root);
  if (!model.x86 && !model.ia64) return;
  for (auto [into, from] : merges) {
    raw.warnings.add(fmt::format("CPUs {} and {} have the same physical_package_id {} but different package "
                                 "masks: taken as one socket, as hwloc does",
                                 format_cpulist(sets[into]), format_cpulist(sets[from]),
                                 first_id(raw.package_id, sets[into])));
    sets[into] |= sets[from];
    sets[from] = CpuSet{};
  }
  sets.erase(std::remove_if(sets.begin(), sets.end(), [](const CpuSet& s) { return s.empty(); }), sets.end());
  for (size_t u = 0; u < sets.size(); ++u) sets[u].for_each([&](unsigned cpu) { unit_of[cpu] = static_cast<int>(u); });
}

}  // namespace affix
