#include "weights_apply.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

std::string node_file(unsigned node) { return fmt::format("node{}", node); }

std::string write_hint(int err) {
  switch (err) {
    case EACCES:
    case EPERM: return "the interleave weights are the machine's, for every process: writing them needs root";
    case EROFS: return "/sys is read-only here (a container): the weights are the host's";
    case ENOENT: return "the kernel has no such weight file: 'affix explain --mem weighted' shows the weights it has";
    default: return {};
  }
}

// `back` ("; the weights written were put back") where everything is put
// back, else what stays (in the hint).
std::string put_back(WeightsOs& os, const WeightWrite& done, std::string& hint, const char* back) {
  if (!done.changed()) return "";
  std::string stays = restore_weights(os, done);
  if (stays.empty()) return back;
  hint = hint.empty() ? stays : hint + "; " + stays;
  return "; not every weight could be put back";
}

}  // namespace

AppliedWeights apply_weights(WeightsOs& os, const WeightPlan& plan) {
  AppliedWeights out;
  WeightWrite& done = out.written;
  done.auto_file = plan.auto_file;
  std::vector<NodeWeight> writes = plan.writes();
  // Nothing is written unless every file may be.
  for (const NodeWeight& w : writes)
    if (int e = os.check_weight_file(node_file(w.node)))
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot write the interleave weight of node {}: {}; nothing was written", w.node,
                              errno_text(e)),
                  write_hint(e));
  // Turned on, the kernel sets every node's weight from its bandwidth: the
  // weights there before (an administrator's) are recorded first, to be
  // written back (which turns the auto mode off again) where the run fails;
  // each of those files must be writable too.
  InterleaveWeights before;
  if (plan.turn_auto_on) {
    if (int e = os.check_weight_file(plan.auto_file))
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot turn on the kernel's auto interleave weights ({}): {}; nothing was written",
                              plan.auto_file, errno_text(e)),
                  write_hint(e));
    before = os.read_weights();
    for (const auto& [node, weight] : before.weights)
      if (int e = os.check_weight_file(node_file(node)))
        throw Error(ErrorKind::Runtime,
                    fmt::format("cannot turn on the kernel's auto interleave weights: node {}'s weight {} could not "
                                "be put back ({}); nothing was written",
                                node, weight, errno_text(e)),
                    write_hint(e));
  }
  for (const NodeWeight& w : writes) {
    if (int e = os.write_weight_file(node_file(w.node), fmt::format("{}\n", *w.want))) {
      std::string hint = write_hint(e);
      std::string back = put_back(os, done, hint, "; the weights written before it were put back");
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot write the interleave weight of node {}: {}{}", w.node, errno_text(e), back),
                  hint);
    }
    // A node's weight written turns the kernel's auto mode off.
    if (done.old.empty() && plan.auto_now == true) done.auto_was = true;
    done.old.push_back({w.node, w.now.value_or(1)});
  }
  if (plan.turn_auto_on) {
    if (int e = os.write_weight_file(plan.auto_file, "true\n")) {
      std::string hint = write_hint(e);
      std::string back = put_back(os, done, hint, "; the weights written before it were put back");
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot turn on the kernel's auto interleave weights ({}): {}{}", plan.auto_file,
                              errno_text(e), back),
                  hint);
    }
    for (const auto& [node, weight] : before.weights) {
      bool recorded = false;
      for (const auto& [n, w] : done.old) recorded = recorded || n == node;
      if (!recorded) done.old.push_back({node, weight});
    }
    done.auto_was = false;
  }
  out.now = os.read_weights();
  for (const NodeWeight& w : writes) {
    auto it = out.now.weights.find(w.node);
    if (it != out.now.weights.end() && it->second == *w.want) continue;
    std::string hint;
    std::string back = put_back(os, done, hint, "; the weights written were put back");
    throw Error(ErrorKind::Runtime,
                fmt::format("the kernel kept weight {} for node {}, not {}{}",
                            it == out.now.weights.end() ? std::string("none") : std::to_string(it->second), w.node,
                            *w.want, back),
                hint.empty() ? "another program may have written the weights at the same time" : hint);
  }
  return out;
}

std::string restore_weights(WeightsOs& os, const WeightWrite& written) {
  std::vector<std::string> stays;
  for (auto it = written.old.rbegin(); it != written.old.rend(); ++it)
    if (int e = os.write_weight_file(node_file(it->first), fmt::format("{}\n", it->second)))
      stays.push_back(fmt::format("node {} could not be given back its weight {} ({})", it->first, it->second,
                                  errno_text(e)));
  if (written.auto_was)
    if (int e = os.write_weight_file(written.auto_file, *written.auto_was ? "true\n" : "false\n"))
      stays.push_back(fmt::format("the auto mode could not be turned {} again ({})", *written.auto_was ? "on" : "off",
                                  errno_text(e)));
  std::string out;
  for (const std::string& s : stays) out += (out.empty() ? "" : "; ") + s;
  return out;
}

}  // namespace affix
