#pragma once
// The values of --gpu (run, explain, pin --check) and --ranks (explain):
// parsing only, as the rest of the command line (command_line.hpp).

#include <string>

#include "resolver.hpp"

namespace affix {

// The most ranks explain --ranks prints.
constexpr unsigned k_max_ranks = 1024;

// "closest"; a GPU number ("2"); a list of them and ranges, in the order
// given ("0,2", "4-7,0"). Throws Error(Usage) for anything else and for a
// GPU given twice.
GpuRequest parse_gpu_option(const std::string& text);

// --ranks N: 1 to k_max_ranks. Throws Error(Usage).
unsigned parse_ranks_option(const std::string& text);

}  // namespace affix
