#include "gpu_args.hpp"

#include <fmt/format.h>

#include <string_view>

#include "cpuset.hpp"
#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

[[noreturn]] void bad_gpu(const std::string& text) {
  throw Error(ErrorKind::Usage,
              fmt::format("invalid --gpu '{}': expected closest, a GPU number or a list of them (0,2)", printable(text)),
              "--gpu closest, --gpu 1, --gpu 0,2 or --gpu 4-7: the numbers are gpuN's ('affix topo' lists them)");
}

}  // namespace

GpuRequest parse_gpu_option(const std::string& text) {
  GpuRequest out;
  out.text = text;
  if (text == "closest") {
    out.closest = true;
    return out;
  }
  CpuSet seen;
  std::string_view rest = text;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    size_t dash = item.find('-');
    auto first = parse_decimal(item.substr(0, dash), k_max_id);
    auto last = dash == std::string_view::npos ? first : parse_decimal(item.substr(dash + 1), k_max_id);
    if (!first || !last || *last < *first) bad_gpu(text);
    for (auto n = *first; n <= *last; ++n) {
      unsigned g = static_cast<unsigned>(n);
      if (seen.test(g))
        throw Error(ErrorKind::Usage, fmt::format("invalid --gpu '{}': gpu{} is given twice", printable(text), g),
                    "name each GPU once: the ranks share the GPUs of the list by themselves");
      seen.set(g);
      out.indices.push_back(g);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

unsigned parse_ranks_option(const std::string& text) {
  auto v = parse_decimal(text, k_max_ranks);
  if (!v || *v == 0)
    throw Error(ErrorKind::Usage,
                fmt::format("invalid --ranks '{}': expected a whole number of ranks from 1 to {}", printable(text), k_max_ranks),
                "--ranks 8 maps eight local ranks");
  return static_cast<unsigned>(*v);
}

}  // namespace affix
