// Fuzz target: the hex mask parser (cpumap, Cpus_allowed). A value formats
// back to a mask that parses to the same set, and agrees with the cpulist
// form of the same set.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cpuset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = affix::parse_cpumask(text);
  if (!parsed) {
    if (parsed.error.message.empty() || parsed.error.position > size) std::abort();
    return 0;
  }
  const affix::CpuSet& set = *parsed.value;
  auto again = affix::parse_cpumask(affix::format_cpumask(set));
  if (!again || !(*again.value == set)) std::abort();
  auto as_list = affix::parse_cpulist(affix::format_cpulist(set), true);
  if (!as_list || !(*as_list.value == set)) std::abort();
  return 0;
}
