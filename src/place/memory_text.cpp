#include "memory_text.hpp"

#include <fmt/format.h>

#include "text.hpp"

namespace affix {

namespace {

std::string nodes_word(const CpuSet& nodes) {
  return fmt::format("node{} {}", nodes.count() == 1 ? "" : "s", list_or_none(nodes));
}

// "node 0: 3 (now 1), node 2: 1"
std::string planned(const WeightPlan& plan) {
  std::string out;
  for (const NodeWeight& w : plan.nodes) {
    auto value = w.want ? w.want : w.now;
    out += fmt::format("{}node {}: {}", out.empty() ? "" : ", ", w.node, value ? std::to_string(*value) : "?");
    if (w.want && w.now && *w.now != *w.want) out += fmt::format(" (now {})", *w.now);
  }
  return out;
}

}  // namespace

std::string memory_policy_text(const Placement& p) {
  if (!p.mem_policy) return {};
  std::string out = mem_policy_text(*p.mem_policy, p.mem_nodes);
  if (p.mem_terms.empty()) return out;
  std::string terms;
  for (const auto& [text, nodes] : p.mem_terms)
    terms += fmt::format("{}{}: {}", terms.empty() ? "" : ", ", printable(text), nodes_word(nodes));
  return out + " (" + terms + ")";
}

std::string weights_plan_text(const WeightPlan& plan) {
  if (!plan.present) return "none: this kernel has no interleave weights (Linux 6.9 and later have them)";
  switch (plan.source) {
    case WeightSource::Kernel: return planned(plan) + " (the kernel's)";
    case WeightSource::Given: return planned(plan) + " (given with --weights)";
    case WeightSource::KernelAuto:
      if (plan.turn_auto_on)
        return fmt::format("the kernel's auto mode, to be turned on: it sets each node's weight from its "
                           "bandwidth (now {})",
                           planned(plan));
      return planned(plan) + " (the kernel's auto mode: from each node's bandwidth)";
    case WeightSource::Bandwidth: {
      std::string figures;
      for (const NodeWeight& w : plan.nodes)
        figures += (figures.empty() ? "" : ", ") + (w.bandwidth ? std::to_string(*w.bandwidth) : std::string("none"));
      return fmt::format("{} (from HMAT bandwidth: {} MB/s, as the kernel's auto mode computes them)", planned(plan),
                         figures);
    }
  }
  return planned(plan);
}

std::string weights_warning(const WeightPlan& plan) {
  if (plan.turn_auto_on)
    return "turning on the kernel's auto interleave weights: it sets every node's weight from its bandwidth, for "
           "every process's weighted interleave on this machine, not only this command's";
  std::string changes;
  for (const NodeWeight& w : plan.writes())
    changes += fmt::format("{}node {}: {} -> {}", changes.empty() ? "" : ", ", w.node,
                           w.now ? std::to_string(*w.now) : "?", *w.want);
  // A node's weight written turns the kernel's auto mode off (Linux 6.16).
  if (plan.auto_now == true) changes += "; the kernel's auto mode turns off";
  return fmt::format("writing the machine's interleave weights ({}): every process's weighted interleave on this "
                     "machine uses them from now on, not only this command's",
                     changes);
}

std::string weights_read_back(const WeightPlan& plan, const InterleaveWeights& now) {
  std::string out;
  for (const NodeWeight& w : plan.nodes) {
    auto it = now.weights.find(w.node);
    out += fmt::format("{}node {}: {}", out.empty() ? "" : ", ", w.node,
                       it == now.weights.end() ? std::string("none") : std::to_string(it->second));
  }
  return fmt::format("{} (read back from the kernel{})", out, now.auto_mode == true ? ", in its auto mode" : "");
}

std::string weights_check_text(const WeightPlan& plan) {
  if (!plan.present) return "interleave weights " + weights_plan_text(plan);
  std::string out;
  for (const NodeWeight& w : plan.nodes) {
    out += fmt::format("{}node {}: {}", out.empty() ? "" : ", ", w.node, w.now ? std::to_string(*w.now) : "none");
    if (w.want && w.want != w.now) out += fmt::format(" (asked: {})", *w.want);
  }
  const char* why = "given with --weights";
  if (plan.source == WeightSource::KernelAuto) why = plan.turn_auto_on ? "the kernel's auto mode is off" : "the kernel's auto mode";
  if (plan.source == WeightSource::Bandwidth) why = "from HMAT bandwidth, as the kernel's auto mode computes them";
  if (plan.source == WeightSource::Kernel) why = "the kernel's";
  return fmt::format("interleave weights {}, {} ({})", out, plan.changes() ? "not as asked" : "as asked", why);
}

}  // namespace affix
