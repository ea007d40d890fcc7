#include "pin_output.hpp"

#include <optional>

#include <fmt/format.h>

#include "proc.hpp"
#include "text.hpp"

namespace affix {

namespace {

std::string pages_text(const std::optional<NodePages>& pages) {
  if (!pages) return "unknown (numa_maps cannot be read)";
  return format_node_counts(*pages);
}

}  // namespace

// One line per target, and with -v (always with --dry-run) one per thread.
std::string format_target(const SysRoot& root, const TargetReport& t, bool verbose, bool dry_run,
                          const SchedRequest& sched) {
  if (t.exited) return fmt::format("{}: exited during the move\n", t.request.id);
  size_t live = 0, moved = 0, processes = 0;
  for (const auto& p : t.processes) {
    if (p.exited) continue;
    ++processes;
    for (const auto& m : p.threads) {
      live += !m.gone;
      moved += !m.gone && (dry_run ? !(m.before == m.after) || !(m.sched_before == m.sched_after)
                                   : m.changed || m.sched_changed);
    }
  }
  std::string what = plural(live, "thread", "threads");
  if (t.request.scope == PinScope::Tree) what = plural(processes, "process", "processes") + ", " + what;
  std::string how = t.place.spread.empty() ? "on CPUs"
                    : t.place.per_cpu > 1 ? fmt::format("{} per CPU from CPUs", t.place.per_cpu)
                                          : "one CPU each from CPUs";
  // --tree --spread: the root's threads are not spread (pin.hpp, PinPlace).
  std::string keeps = t.request.scope == PinScope::Tree && !t.place.spread.empty()
                         ? fmt::format(", {}'s threads on all of them", t.request.id)
                         : std::string();
  // With a policy: "policy fifo:50", and "changed" for a thread given either.
  std::string policy = sched.any() ? ", " + sched_request_text(sched) : std::string();
  const char* verb = sched.any() ? (dry_run ? "would change" : "changed") : (dry_run ? "would move" : "moved");
  std::string where = t.place.keep_cpus ? std::string("on the CPUs each had")
                                        : fmt::format("{} {}", how, format_cpulist(t.place.cpus));
  std::string out = fmt::format("{}: {} {}{}{} ({} {})\n", t.request.id, what, where, keeps, policy, moved, verb);
  if (!verbose) return out;
  bool tree = t.request.scope == PinScope::Tree;
  for (const auto& p : t.processes) {
    if (tree) {
      out += fmt::format("  process {}{}\n", thread_name(root, p.pid, p.pid),
                         p.exited ? ": exited during the move" : "");
      if (p.exited) continue;
    }
    for (const auto& m : p.threads) {
      if (!m.seen && !m.gone) continue;
      std::string policies = sched.any() && m.seen ? fmt::format(", {} -> {}", sched_attr_text(m.sched_before),
                                                                 sched_attr_text(m.sched_after))
                                                   : std::string();
      out += fmt::format("{}  thread {}: {} -> {}{}{}\n", tree ? "  " : "",
                         thread_name(root, t.request.scope == PinScope::Thread ? m.tid : p.pid, m.tid),
                         format_cpulist(m.before), format_cpulist(m.after), policies, m.gone ? " (exited)" : "");
    }
  }
  return out;
}

std::string nodes_text(const CpuSet& nodes) {
  return fmt::format("node{} {}", nodes.count() == 1 ? "" : "s", format_cpulist(nodes));
}

std::string format_migrate(const MigrateResult& r) {
  if (r.exited) return fmt::format("{}: exited before its pages were moved\n", r.pid);
  std::string out = fmt::format("{}: moved {}", r.pid, plural(r.moved, "page"));
  if (r.nothing_to_move) out += " (every node is a target: nothing to move)";
  else if (r.not_moved > 0) out += fmt::format(" ({} could not be moved)", r.not_moved);
  out += "\n";
  if (r.interleave) out += fmt::format("  pages moved to each node: {}\n", pages_text(r.arriving));
  out += fmt::format("  pages per node before: {}\n", pages_text(r.before));
  out += fmt::format("  pages per node after:  {}\n", pages_text(r.after));
  return out;
}

std::string format_plan(const MigratePlan& p) {
  if (p.exited) return fmt::format("{}: exited\n", p.pid);
  unsigned long long n = 0;
  for (const auto& [node, count] : p.leaving) n += count;
  bool spread = p.policy == MemPolicy::Interleave || p.policy == MemPolicy::Weighted;
  std::string out = fmt::format("{}: would move {} {} {}{}\n", p.pid, plural(n, "page"),
                                spread ? "to spread them over" : "to", nodes_text(p.to),
                                p.policy == MemPolicy::Weighted ? " by their weights" : "");
  out += fmt::format("  pages per node now: {}\n", pages_text(p.before));
  out += fmt::format("  pages that would leave each node: {}\n", pages_text(p.leaving));
  if (spread) out += fmt::format("  pages that would arrive on each node: {}\n", pages_text(p.arriving));
  return out;
}

std::vector<std::string> own_policy_warnings(const MigratePlan& p) {
  std::vector<std::string> out;
  for (const auto& [policy, nodes] : p.own_policies) {
    out.push_back(fmt::format("{}'s own memory policy ({}) still sends new allocations to {}; only the "
                              "process itself can change it",
                              p.pid, policy, nodes_text(nodes)));
  }
  return out;
}

}  // namespace affix
