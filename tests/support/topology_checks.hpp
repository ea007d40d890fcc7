#pragma once
// What topology tests compare: a level's units as CPU lists or ids, and the
// warnings with the test root's path written as "ROOT".

#include <string>
#include <vector>

#include "cpuset.hpp"
#include "temp_root.hpp"
#include "topology.hpp"

namespace affix::test {

inline std::vector<std::string> unit_lists(const std::vector<Unit>& units) {
  std::vector<std::string> out;
  for (auto& u : units) out.push_back(format_cpulist(u.cpus));
  return out;
}

inline std::vector<long> unit_ids(const std::vector<Unit>& units) {
  std::vector<long> out;
  for (auto& u : units) out.push_back(u.id);
  return out;
}

inline std::vector<std::string> warnings_of(const Topology& t, const TempRoot& r) {
  std::vector<std::string> out;
  for (std::string w : t.warnings) {
    for (size_t at; (at = w.find(r.path())) != std::string::npos;) w.replace(at, r.path().size(), "ROOT");
    out.push_back(w);
  }
  return out;
}

}  // namespace affix::test
