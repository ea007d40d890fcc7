#include "launch_output.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "diag.hpp"
#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

std::string policy_text(const Placement& p) {
  if (!p.mem_policy) return {};
  return mem_policy_text(*p.mem_policy, p.mem_nodes);
}

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
                                         bool would, bool cpus_first) {
  std::string pre = would ? "affix: would " : "affix: ";
  std::vector<std::string> lines;
  if (placement.mem_policy)
    lines.push_back(fmt::format("{}set memory policy {}", pre, policy_text(placement)));
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
  for (auto& [name, value] : request.env)
    lines.push_back(fmt::format("{}set {}={}", pre, name, shell_quote(value)));
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
