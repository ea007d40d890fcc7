#pragma once
// `run --env`: the variables that export a placement to the command.
// AFFIX_CPUS (the selected CPUs) and AFFIX_NODES (their NUMA nodes) as
// cpulists, always; OMP_NUM_THREADS and GOMAXPROCS (the number of CPUs),
// OMP_PLACES (one place per CPU in selection order: "{0},{1},...") and
// OMP_PROC_BIND=close unless someone other than an earlier affix set them;
// and AFFIX_ENV, the names of those four that this affix set.
//
// How affix knows its own exports (a nested `affix --env`, a job script
// that kept them): a variable is an earlier affix's where AFFIX_ENV names it
// and its value is still the one that affix gave it, which AFFIX_CPUS tells:
// the CPU count of AFFIX_CPUS for OMP_NUM_THREADS and GOMAXPROCS, one place
// for each CPU of AFFIX_CPUS for OMP_PLACES, "close" for OMP_PROC_BIND.
// Such a value is replaced; any other value was set by the user and is
// kept (and listed, so that explain and -v can say so).

#include <string>
#include <utility>
#include <vector>

#include "resolver.hpp"

namespace affix {

struct PlacementEnv {
  EnvVars exported;  // to set, in this order
  EnvVars kept;      // set by the user: left as they are (name, current value)
};

PlacementEnv launch_env(const Placement& placement, const EnvLookup& env);

}  // namespace affix
