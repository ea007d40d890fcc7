#pragma once
// The words run (-v, --dry-run) and explain share for a placement's memory:
// its policy with what a selector's terms gave, its interleave weights
// (planned, and read back), and the warning before weights are written.

#include <string>

#include "interleave_weights.hpp"
#include "resolver.hpp"
#include "weights.hpp"

namespace affix {

// "bind on node 2 (tier:22: node 2)", "weighted interleave on nodes 0,2
// (mem:dram: node 0, mem:cxl: node 2)": mem_policy_text with what each
// term of a selector gave; "local".
std::string memory_policy_text(const Placement& placement);

// The weights a plan gives the policy's nodes, and whence:
//   "node 0: 3 (now 1), node 2: 1 (given with --weights)"
//   "node 0: 1, node 2: 1 (the kernel's)"
//   "node 0: 3, node 2: 1 (the kernel's auto mode: from each node's bandwidth)"
//   "node 0: 3 (now 1), node 2: 2 (now 1) (from HMAT bandwidth: 12000, 8000 MB/s,
//    as the kernel's auto mode computes them)"
//   "none: this kernel has no interleave weights (Linux 6.9 and later have them)"
std::string weights_plan_text(const WeightPlan& plan);

// The warning before a run writes weights: they are the machine's.
std::string weights_warning(const WeightPlan& plan);

// "node 0: 3, node 2: 1 (read back from the kernel)" (of the plan's
// nodes, as the kernel has them after the write; "..., in its auto mode)"
// where that is on).
std::string weights_read_back(const WeightPlan& plan, const InterleaveWeights& now);

// pin --check --weights: the kernel's weights against the plan's (as
// asked where the plan changes nothing):
//   "interleave weights node 0: 3, node 2: 1, as asked (given with --weights)"
//   "interleave weights node 0: 1 (asked: 3), node 2: 1, not as asked (given with --weights)"
//   "interleave weights node 0: 1, node 2: 1, not as asked (the kernel's auto mode is off)"
std::string weights_check_text(const WeightPlan& plan);

}  // namespace affix
