#pragma once
// Writing the interleave weights of a WeightPlan (weights.hpp), all or
// nothing: every file is first opened for writing (a refusal, such as a
// user who is not root, writes nothing); then the files are written in
// node order (or the auto mode file turned on); where one write fails, the
// ones before it are put back, last first; then the weights are read back
// from the kernel, and where one is not what was written, everything is put
// back. A run that fails after this (its memory policy, its CPUs, its exec)
// puts them back too (launch.cpp): the weights are only left changed for a
// command that was started under them.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "os.hpp"
#include "weights.hpp"

namespace affix {

// What apply_weights changed, to put back.
struct WeightWrite {
  // Each node written and its weight before, in write order; where the auto
  // mode was turned on (which rewrites every node's weight), every node's
  // weight as it was before.
  std::vector<std::pair<unsigned, unsigned>> old;
  // The auto mode before, where it changed (turned on, or off by a node's
  // write); nullopt where it did not.
  std::optional<bool> auto_was;
  std::string auto_file;
  bool changed() const { return !old.empty() || auto_was.has_value(); }
};

struct AppliedWeights {
  WeightWrite written;
  InterleaveWeights now;  // read back after writing (also where nothing was written)
};

// Throws Error(Runtime) where a file cannot be written (with everything
// put back, or the message says what stays) or the kernel kept another
// weight.
AppliedWeights apply_weights(WeightsOs& os, const WeightPlan& plan);

// Puts back what apply_weights wrote, last first, then the auto mode as it
// was (each node's weight written back turns it off; "true" turns it on and
// the kernel sets the weights again); "" where everything is
// back, else what stays: "node 0 could not be given back its weight 1
// (Permission denied)".
std::string restore_weights(WeightsOs& os, const WeightWrite& written);

}  // namespace affix
