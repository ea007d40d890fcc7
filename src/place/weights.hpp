#pragma once
// The interleave weights of `--mem weighted` (affix(1), MEMORY): what
// `--weights` asks for against what the kernel has (interleave_weights.hpp).
//
//   --weights 0=3,2=1  these weights for these nodes, each one of the
//                      policy's nodes; the policy's other nodes keep theirs
//   --weights auto     the kernel's auto mode (Linux 6.16 and later: it sets
//                      every node's weight from its bandwidth) where it has
//                      one; else the weights that mode would set, computed
//                      here from each node's HMAT bandwidth as the kernel
//                      computes them (weights_from_bandwidth), written for
//                      the policy's nodes
//   (none)             the weights the kernel has
//
// Writing is run's (weights_apply.hpp); a plan only says what would change.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpuset.hpp"
#include "topology.hpp"

namespace affix {

struct WeightsRequest {
  bool automatic = false;                            // --weights auto
  std::vector<std::pair<unsigned, unsigned>> given;  // node=weight, as given
};

enum class WeightSource {
  Kernel,      // no --weights: as the kernel has them
  Given,       // --weights N=W,...
  KernelAuto,  // --weights auto: the kernel's auto mode
  Bandwidth,   // --weights auto on a kernel without it: from HMAT bandwidth
  // (explain --json names them in this order: kernel, given, kernel-auto, bandwidth)
};

struct NodeWeight {
  unsigned node = 0;
  std::optional<unsigned> now;   // the kernel's weight now; nullopt where it has none
  std::optional<unsigned> want;  // the weight asked for; nullopt: the kernel's (Kernel, KernelAuto)
  std::optional<unsigned long long> bandwidth;  // Bandwidth: the MB/s it was computed from
};

struct WeightPlan {
  WeightSource source = WeightSource::Kernel;
  bool present = false;           // the kernel has interleave weights (Linux 6.9 and later)
  std::vector<NodeWeight> nodes;  // the policy's nodes, ascending
  bool turn_auto_on = false;      // KernelAuto where the kernel's auto mode is off
  std::string auto_file;          // the auto mode file's name ("auto")
  std::optional<bool> auto_now;   // the auto mode now (nullopt: the kernel has none)
  std::vector<std::string> warnings;  // nodes without bandwidth figures (Bandwidth)
  // The nodes whose weight file a run writes (want differs from now).
  std::vector<NodeWeight> writes() const;
  bool changes() const { return turn_auto_on || !writes().empty(); }
};

// The kernel's auto weights (mm/mempolicy.c, reduce_interleave_weights):
// each node's bandwidth scaled to 32 (weightiness) by the sum over all of
// them, 1 where that gives less than 1 or the bandwidth is 0, then divided
// by the weights' greatest common divisor. `bandwidth`: node -> MB/s, every
// node with memory.
std::map<unsigned, unsigned> weights_from_bandwidth(const std::map<unsigned, unsigned long long>& bandwidth);

// The plan for a policy on `nodes`. Throws Error(Resolution) for a weight
// given to a node that is not one of `nodes`, a node the kernel has no
// weight file for, and `auto` where the kernel has no auto mode and no
// node has a bandwidth figure.
WeightPlan plan_weights(const std::optional<WeightsRequest>& request, const CpuSet& nodes, const Topology& topo);

// One plan of several (pin's targets, each over its own policy's nodes):
// every node of them once, ascending (a node's weight is the same in each:
// the one asked for, or the machine's), the auto mode turned on where one
// turns it on, each warning once.
WeightPlan merge_weight_plans(const std::vector<WeightPlan>& plans);

}  // namespace affix
