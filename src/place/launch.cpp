#include "launch.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "diag.hpp"
#include "error.hpp"

namespace affix {

namespace {

std::string plural(unsigned n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string policy_text(const Placement& p) {
  if (!p.mem_policy) return {};
  return mem_policy_text(*p.mem_policy, p.mem_nodes);
}

// Preferring several nodes needs MPOL_PREFERRED_MANY (Linux 5.15); where the
// kernel lacks it, the run fails before anything is set, and so does a dry run.
void check_kernel_has(MemPolicyOs& os, const Placement& p) {
  if (!p.mem_policy || *p.mem_policy != MemPolicy::Preferred || p.mem_nodes.count() < 2) return;
  if (os.has_preferred_many()) return;
  throw Error(ErrorKind::Runtime,
              fmt::format("cannot prefer several nodes ({}): this kernel has no MPOL_PREFERRED_MANY "
                          "(Linux 5.15 and later have it)",
                          format_cpulist(p.mem_nodes)),
              "name one node (--mem preferred:N), or use --mem interleave or --mem bind");
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string out;
  for (auto& a : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(a);
  }
  return out;
}

std::string lines_text(const std::vector<std::string>& lines) {
  std::string out;
  for (auto& line : lines) out += line + '\n';
  return out;
}

}  // namespace

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
                                         bool would) {
  std::string pre = would ? "affix: would " : "affix: ";
  std::vector<std::string> lines;
  if (placement.mem_policy)
    lines.push_back(fmt::format("{}set memory policy {}", pre, policy_text(placement)));
  lines.push_back(fmt::format("{}bind to CPUs {} ({}; socket{} {}; node{} {})", pre,
                              format_cpulist(placement.cpus),
                              plural(placement.cpus.count(), "CPU"),
                              placement.sockets.count() == 1 ? "" : "s",
                              format_cpulist(placement.sockets),
                              placement.nodes.count() == 1 ? "" : "s",
                              format_cpulist(placement.nodes)));
  for (auto& w : placement.warnings) {
    if (w == placement.widening) continue;  // printed once, on stderr, by launch
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
      f.message = fmt::format("cannot execute '{}': {}", command, std::strerror(error));
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
  return {k_exit_cannot_exec, fmt::format("cannot execute '{}': {}", command, std::strerror(error)),
          {}};
}

int launch(LaunchOs os, const Placement& placement, const LaunchRequest& request, LaunchOutput& out,
           LaunchOutput& err) {
  if (request.argv.empty()) throw Error(ErrorKind::Usage, "no command given");
  check_kernel_has(os.mem_policy, placement);
  if (!placement.widening.empty()) {
    err.write(format_warning(placement.widening));
  }
  if (request.dry_run) {
    out.write(lines_text(describe_launch(placement, request, true)));
    if (int e = os.exec.find_command(request.argv[0])) {
      ExecFailure f = exec_failure(request.argv[0], e, request.option_hint);
      err.write(format_error(Error(ErrorKind::Runtime, f.message, f.hint)));
      return f.status;
    }
    return k_exit_ok;
  }
  if (request.verbose) {
    err.write(lines_text(describe_launch(placement, request, false)));
  }
  if (placement.mem_policy) {
    if (int e = os.mem_policy.set_mempolicy(*placement.mem_policy, placement.mem_nodes)) {
      // set_mempolicy on the calling thread fails with EPERM only when a
      // seccomp filter refuses it (Docker's default profile without
      // CAP_SYS_NICE does).
      if (e == EPERM)
        throw Error(ErrorKind::Runtime,
                    fmt::format("cannot set memory policy {}: {}: set_mempolicy is refused by a "
                                "seccomp filter (container policy)",
                                policy_text(placement), std::strerror(e)),
                    "allow set_mempolicy in the container's seccomp profile (or grant "
                    "CAP_SYS_NICE), or leave out --mem");
      throw Error(ErrorKind::Runtime, fmt::format("cannot set memory policy {}: {}",
                                                  policy_text(placement), std::strerror(e)));
    }
  }
  if (int e = os.affinity.set_affinity(0, placement.cpus))
    throw Error(ErrorKind::Runtime,
                fmt::format("cannot bind to CPUs {}: {}", format_cpulist(placement.cpus),
                            std::strerror(e)),
                e == EINVAL  ? "the CPUs may have gone offline or out of affix's cpuset"
                : e == EPERM ? "sched_setaffinity is refused by a seccomp filter or security "
                               "policy (container policy)"
                             : "");
  for (auto& [name, value] : request.env) os.exec.set_env(name, value);
  if (request.spread) {
    const char* call = "ptrace";
    if (int fe = os.exec.follow_threads(placement.sequence, request.spread, call)) {
      bool refused = std::strcmp(call, "ptrace") == 0;
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot follow the command's threads for --spread: {}: {}", call,
                              std::strerror(fe)),
                  refused ? "the kernel refuses ptrace here (Yama ptrace_scope 3, a seccomp filter, "
                            "or a container without CAP_SYS_PTRACE); the command was not started"
                          : "the command was not started");
    }
  }
  int e = os.exec.exec(request.argv);
  if (e == 0) return k_exit_ok;
  ExecFailure f = exec_failure(request.argv[0], e, request.option_hint);
  err.write(format_error(Error(ErrorKind::Runtime, f.message, f.hint)));
  return f.status;
}

namespace {

class StreamOutput : public LaunchOutput {
public:
  explicit StreamOutput(std::ostream& os) : m_os(os) {}
  void write(const std::string& text) override { m_os << text << std::flush; }

private:
  std::ostream& m_os;
};

}  // namespace

int launch(LaunchOs os, const Placement& placement, const LaunchRequest& request, std::ostream& out,
           std::ostream& err) {
  StreamOutput o(out), e(err);
  return launch(os, placement, request, o, e);
}

}  // namespace affix
