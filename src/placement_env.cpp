#include "placement_env.hpp"

#include <fmt/format.h>

namespace affix {

EnvVars placement_env(const Placement& placement, const EnvLookup& env) {
  EnvVars out;
  out.emplace_back("AFFIX_CPUS", format_cpulist(placement.cpus));
  out.emplace_back("AFFIX_NODES", format_cpulist(placement.nodes));
  auto unless_set = [&](const char* name, std::string value) {
    if (!env(name)) out.emplace_back(name, std::move(value));
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
  return out;
}

}  // namespace affix
