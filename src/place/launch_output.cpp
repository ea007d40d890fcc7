#include "launch_output.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "diag.hpp"
#include "error.hpp"
#include "gpus.hpp"
#include "memory_text.hpp"
#include "text.hpp"

namespace affix {

namespace {


std::string command_text(const std::vector<std::string>& argv) {
  std::string out;
  for (auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(a);
  }
  return out;
}

}  // namespace

std::string lines_text(const std::vector<std::string>& lines) {
  std::string out;
  for (auto& line : lines) out += line + '\n';
  return out;
}

std::string shell_quote(const std::string& word) {
  bool safe = !word.empty();
  for (unsigned char c : word) {
    if (!(std::isalnum(c) || std::strchr("-_./=:,+@%", c))) {
      safe = false;
      break;
    }
  }
  if (safe) return word;
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::vector<std::string> describe_launch(const Placement& placement, const LaunchRequest& request,
                                         bool would, bool cpus_first, const InterleaveWeights* read_back) {
  std::string pre = would ? "affix: would " : "affix: ";
  std::vector<std::string> lines;
  if (placement.weights) {
    if (read_back)
      lines.push_back(fmt::format("{}set interleave weights {}", pre, weights_read_back(*placement.weights, *read_back)));
    else if (placement.weights->changes())
      lines.push_back(fmt::format("{}set interleave weights {}", pre, weights_plan_text(*placement.weights)));
    else
      lines.push_back(fmt::format("affix: interleave weights {}", weights_plan_text(*placement.weights)));
  }
  if (placement.mem_policy)
    lines.push_back(fmt::format("{}set memory policy {}", pre, memory_policy_text(placement)));
  std::string sched;
  if (request.sched.any()) {
    sched = fmt::format("{}set {}", pre, sched_request_text(request.sched));
    if (request.sched.policy && request.sched.policy->policy == SchedPolicy::Deadline)
      sched += " (then the command cannot create threads or processes: the kernel refuses clone to a deadline "
               "thread)";
  }
  if (!sched.empty() && !cpus_first) lines.push_back(sched);
  lines.push_back(fmt::format("{}bind to CPUs {} ({}; socket{} {}; node{} {})", pre,
                              format_cpulist(placement.cpus),
                              plural(placement.cpus.count(), "CPU"),
                              placement.sockets.count() == 1 ? "" : "s",
                              format_cpulist(placement.sockets),
                              placement.nodes.count() == 1 ? "" : "s",
                              format_cpulist(placement.nodes)));
  if (!sched.empty() && cpus_first) lines.push_back(sched);
  for (auto& w : placement.warnings) {
    if (w == placement.widening) continue;  // printed once, on stderr, by launch
    if (std::any_of(placement.near.begin(), placement.near.end(),
                    [&](const NearDevice& n) { return n.warning == w; }))
      continue;  // the same
    if (placement.gpu &&
        std::find(placement.gpu->warnings.begin(), placement.gpu->warnings.end(), w) != placement.gpu->warnings.end())
      continue;  // the same
    std::string line = format_warning(w);
    line.pop_back();  // the newline: these are lines
    lines.push_back(line);
  }
  if (request.spread) {
    lines.push_back(fmt::format("{}spread the threads the command creates, one CPU each{}: {}", pre,
                                request.spread == 1 ? ""
                                                    : fmt::format(" ({} per CPU)", request.spread),
                                spread_order_text(placement.sequence, request.spread)));
    lines.push_back(fmt::format("{}follow the command's threads with ptrace: a debugger or strace "
                                "cannot attach to it while it runs", pre));
  }
  if (placement.gpu) {
    const GpuPlacement& g = *placement.gpu;
    lines.push_back(fmt::format("{}give {} the GPU gpu{} (PCI {}, {}, CPUs {})", pre,
                                g.rank.source.empty() ? std::string("the command")
                                                      : fmt::format("local rank {} of {} ({})", g.rank.rank,
                                                                    g.rank.size, g.rank.source),
                                g.gpu.index, g.gpu.device.pci.text(), gpu_vendor_name(g.gpu.vendor),
                                format_cpulist(g.gpu_cpus)));
  }
  for (auto& [name, value] : request.env) {
    std::string line = fmt::format("{}set {}={}", pre, name, shell_quote(value));
    for (auto& [old_name, old_value] : request.replaced)
      if (old_name == name) line += fmt::format(" (replaces {})", shell_quote(old_value));
    lines.push_back(line);
  }
  for (auto& [name, value] : request.kept)
    lines.push_back(fmt::format("{}keep {}={} (set by the user)", pre, name, shell_quote(value)));
  lines.push_back(fmt::format("{}exec: {}", pre, command_text(request.argv)));
  return lines;
}

std::string spread_order_text(const std::vector<unsigned>& sequence, unsigned per_cpu) {
  std::string out;
  unsigned thread = 1;
  for (unsigned cpu : sequence) {
    if (!out.empty()) out += ", ";
    if (per_cpu == 1) out += fmt::format("thread {}: CPU {}", thread, cpu);
    else out += fmt::format("threads {}-{}: CPU {}", thread, thread + per_cpu - 1, cpu);
    thread += per_cpu;
  }
  if (!sequence.empty()) out += fmt::format(", then again from CPU {}", sequence.front());
  return out;
}

ExecFailure exec_failure(const std::string& command, int error,
                         std::string (*option_hint)(const std::string&)) {
  bool has_slash = command.find('/') != std::string::npos;
  if (error == ENOENT || error == ENOTDIR) {
    ExecFailure f{k_exit_not_found, {}, {}};
    if (has_slash)
      f.message = fmt::format("cannot execute '{}': {}", command, errno_text(error));
    else
      f.message = fmt::format("command not found: '{}'", command);
    if (!command.empty() && command[0] == '-') {
      f.hint = fmt::format("'{}' is not an affix option: the command starts at the first word "
                           "after WHERE that is not one", command);
      std::string near = option_hint ? option_hint(command) : std::string();
      if (!near.empty()) f.hint += " (" + near + ")";
    }
    return f;
  }
  return {k_exit_cannot_exec, fmt::format("cannot execute '{}': {}", command, errno_text(error)),
          {}};
}

}  // namespace affix
