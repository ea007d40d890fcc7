#pragma once
// What `affix explain` prints: the resolved placement, the allowed set and
// where it came from, the memory policy, the CPUs dropped and why, the
// variables `run --env` would export, and the warnings. Text for people,
// JSON with the fields affix(1) lists under OUTPUT.

#include <string>

#include "launch.hpp"
#include "resolver.hpp"
#include "topology.hpp"

namespace affix {

// Aligned "name  value" lines, ending with a newline.
std::string explain_text(const Placement& placement, const Allowed& allowed, const EnvVars& env);

// One JSON document (with a final newline): cpus, count, sequence, sockets,
// nodes, allowed{cpus,nodes,source}, mem{policy,nodes}|null,
// dropped[{cpus,reason}], env{...}, warnings[...].
std::string explain_json(const Placement& placement, const Allowed& allowed, const EnvVars& env);

}  // namespace affix
