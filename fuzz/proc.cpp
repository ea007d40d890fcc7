// Fuzz target: the /proc parsers (pin and show read another process's
// stat, status, numa_maps and cmdline, whose content that process partly
// controls: its comm and arguments may hold any bytes, parentheses and
// newlines included). The first byte picks the parser; the rest is the file.
// Each returns a value or nullopt and never throws or crashes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "proc.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 4) {
    case 0:
      if (auto s = affix::parse_stat(text)) {
        if (s->comm.size() > text.size()) std::abort();
      }
      break;
    case 1:
      if (auto s = affix::parse_status(text)) {
        if (!s->cpus.empty() && s->cpus.end() > affix::k_max_id + 1) std::abort();
      }
      break;
    case 2:
      affix::parse_numa_maps(text);
      break;
    case 3:
      // Cut or whole, as read_cmdline reads it: no NUL left, never longer.
      for (bool cut : {false, true}) {
        std::string joined = affix::join_cmdline(text, cut);
        if (joined.find('\0') != std::string::npos || joined.size() > text.size() + 3) std::abort();
      }
      break;
  }
  return 0;
}
