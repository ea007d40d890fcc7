// Fuzz target: the cpulist parser. Whatever the input, parse_cpulist gives a
// value or an error whose position lies inside the input; a value formats
// back to a cpulist that parses to the same set (parse <-> format round trip).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cpuset.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool allow_empty : {false, true}) {
    auto parsed = affix::parse_cpulist(text, allow_empty);
    if (!parsed) {
      if (parsed.error.message.empty() || parsed.error.position > size) std::abort();
      continue;
    }
    const affix::CpuSet& set = *parsed.value;
    if (!set.empty() && set.end() > affix::k_max_id + 1) std::abort();
    std::string formatted = affix::format_cpulist(set);
    auto again = affix::parse_cpulist(formatted, true);
    if (!again || !(*again.value == set)) std::abort();
    if (affix::format_cpulist(*again.value) != formatted) std::abort();
  }
  // A small bound on the largest number must hold as well.
  auto small = affix::parse_cpulist(text, true, 4095);
  if (small && !small.value->empty() && small.value->end() > 4096) std::abort();
  return 0;
}
