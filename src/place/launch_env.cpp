#include "launch_env.hpp"

#include <fmt/format.h>

#include <string_view>

namespace affix {

namespace {

bool listed(std::string_view list, std::string_view name) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

// OMP_PLACES as affix writes it: "{a},{b},..." with each CPU of `cpus` once.
bool places_of(std::string_view value, const CpuSet& cpus) {
  CpuSet seen;
  unsigned count = 0;
  while (!value.empty()) {
    if (value.front() != '{') return false;
    size_t close = value.find('}');
    if (close == std::string_view::npos) return false;
    auto cpu = parse_decimal(value.substr(1, close - 1), k_max_id);
    if (!cpu || seen.test(static_cast<unsigned>(*cpu))) return false;
    seen.set(static_cast<unsigned>(*cpu));
    ++count;
    value.remove_prefix(close + 1);
    if (!value.empty()) {
      if (value.front() != ',') return false;
      value.remove_prefix(1);
      if (value.empty()) return false;
    }
  }
  return count > 0 && seen == cpus;
}

// Whether `value` of `name` is what an earlier affix with AFFIX_CPUS `cpus` exported.
bool from_affix(const std::string& name, const std::string& value, const CpuSet& cpus) {
  if (name == "OMP_PROC_BIND") return value == "close";
  if (name == "OMP_PLACES") return places_of(value, cpus);
  return value == std::to_string(cpus.count());  // OMP_NUM_THREADS, GOMAXPROCS
}

}  // namespace

PlacementEnv launch_env(const Placement& placement, const EnvLookup& env) {
  PlacementEnv out;
  out.exported.emplace_back("AFFIX_CPUS", format_cpulist(placement.cpus));
  out.exported.emplace_back("AFFIX_NODES", format_cpulist(placement.nodes));

  // What an earlier affix --env left: the names it set and its CPUs.
  std::string earlier_names = env("AFFIX_ENV").value_or("");
  std::optional<CpuSet> earlier_cpus;
  if (auto text = env("AFFIX_CPUS"))
    if (auto parsed = parse_cpulist(*text); parsed && !parsed.value->empty()) earlier_cpus = *parsed.value;

  std::string names;
  auto unless_set = [&](const char* name, std::string value) {
    auto current = env(name);
    if (current && !(earlier_cpus && listed(earlier_names, name) && from_affix(name, *current, *earlier_cpus))) {
      out.kept.emplace_back(name, *current);
      return;
    }
    out.exported.emplace_back(name, std::move(value));
    names += names.empty() ? name : fmt::format(",{}", name);
  };
  std::string count = std::to_string(placement.cpus.count());
  unless_set("OMP_NUM_THREADS", count);
  unless_set("GOMAXPROCS", count);
  std::string places;
  for (unsigned cpu : placement.sequence) {
    if (!places.empty()) places += ',';
    places += fmt::format("{{{}}}", cpu);
  }
  unless_set("OMP_PLACES", places);
  unless_set("OMP_PROC_BIND", "close");
  out.exported.emplace_back("AFFIX_ENV", names);
  return out;
}

}  // namespace affix
