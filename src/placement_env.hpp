#pragma once
// `run --env`: the variables that export a placement to the command.
// AFFIX_CPUS (the selected CPUs) and AFFIX_NODES (their NUMA nodes) as
// cpulists, always; and, only where the environment does not set them
// already, OMP_NUM_THREADS and GOMAXPROCS (the number of CPUs), OMP_PLACES
// (one place per CPU in selection order: "{0},{1},..."), OMP_PROC_BIND=close.

#include <string>
#include <utility>
#include <vector>

#include "resolver.hpp"

namespace affix {

using EnvVars = std::vector<std::pair<std::string, std::string>>;

EnvVars placement_env(const Placement& placement, const EnvLookup& env);

}  // namespace affix
