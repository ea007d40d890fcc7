#include <fmt/format.h>

#include "topo_output.hpp"

namespace affix {

std::string format_kb(unsigned long long kb) {
  if (kb >= 1024ull * 1024) return fmt::format("{:.1f} GiB", static_cast<double>(kb) / (1024.0 * 1024.0));
  if (kb >= 1024) return fmt::format("{:.1f} MiB", static_cast<double>(kb) / 1024.0);
  return fmt::format("{} KiB", kb);
}

std::string topo_text(const Topology& topo, const Allowed& allowed) {
  return fmt::format("{} {}\n", format_cpulist(topo.online), allowed.source);
}

}  // namespace affix
