#pragma once
// Small fixtures several unit tests share: an environment from a map, a CPU
// or node set from a cpulist, a resolved placement.
#include <map>
#include <optional>
#include <string>

#include "cpuset.hpp"
#include "resolver.hpp"

namespace affix::test {

// An EnvLookup that sees only `vars`.
inline EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// A set from a cpulist the test knows to be valid.
inline CpuSet set_of(const char* list) { return *parse_cpulist(list).value; }

// A placement of `cpus` on socket 0 and node 0, with a memory policy where
// given.
inline Placement placement_of(const char* cpus, std::optional<MemPolicy> policy = std::nullopt,
                              const char* mem_nodes = "") {
  Placement p;
  p.cpus = set_of(cpus);
  p.sequence = p.cpus.members();
  p.sockets = set_of("0");
  p.nodes = set_of("0");
  p.mem_policy = policy;
  if (*mem_nodes) p.mem_nodes = set_of(mem_nodes);
  return p;
}

}  // namespace affix::test
