#include "launch.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "diag.hpp"
#include "error.hpp"
#include "launch_output.hpp"
#include "launch_sched.hpp"
#include "text.hpp"

namespace affix {

namespace {

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

}  // namespace

int launch(LaunchOs os, const Placement& placement, const LaunchRequest& request, LaunchOutput& out,
           LaunchOutput& err) {
  if (request.argv.empty()) throw Error(ErrorKind::Usage, "no command given");
  check_kernel_has(os.mem_policy, placement);
  // Only with a scheduling option: a plain launch reads nothing more.
  std::optional<LaunchSched> sched = plan_launch_sched(os.sched, request.sched);
  const bool cpus_first = !sched || sched->cpus_first;
  if (!placement.widening.empty()) {
    err.write(format_warning(placement.widening));
  }
  for (const NearDevice& n : placement.near)
    if (!n.warning.empty()) err.write(format_warning(n.warning));
  if (request.dry_run) {
    out.write(lines_text(describe_launch(placement, request, true, cpus_first)));
    // What the real run would meet, after the lines that say what it would do.
    if (sched) foresee_launch_sched(os.sched, *sched, request.sched, placement.cpus);
    if (int e = os.exec.find_command(request.argv[0])) {
      ExecFailure f = exec_failure(request.argv[0], e, request.option_hint);
      err.write(format_error(Error(ErrorKind::Runtime, f.message, f.hint)));
      return f.status;
    }
    return k_exit_ok;
  }
  if (request.verbose) {
    err.write(lines_text(describe_launch(placement, request, false, cpus_first)));
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
                                mem_policy_text(*placement.mem_policy, placement.mem_nodes), errno_text(e)),
                    "allow set_mempolicy in the container's seccomp profile (or grant "
                    "CAP_SYS_NICE), or leave out --mem");
      throw Error(ErrorKind::Runtime, fmt::format("cannot set memory policy {}: {}",
                                                  mem_policy_text(*placement.mem_policy, placement.mem_nodes), errno_text(e)));
    }
  }
  if (sched && !cpus_first) apply_launch_sched(os.sched, *sched, request.sched, placement.cpus);
  if (int e = os.affinity.set_affinity(0, placement.cpus))
    throw Error(ErrorKind::Runtime,
                fmt::format("cannot bind to CPUs {}: {}", format_cpulist(placement.cpus),
                            errno_text(e)),
                e == EINVAL  ? "the CPUs may have gone offline or out of affix's cpuset"
                : e == EPERM ? "sched_setaffinity is refused by a seccomp filter or security "
                               "policy (container policy)"
                : e == EBUSY ? "affix itself runs under SCHED_DEADLINE (it was started so), and a deadline "
                               "thread's CPUs cannot be fewer than its root domain's: --policy sets another "
                               "policy before the CPUs"
                             : "");
  if (sched && cpus_first) apply_launch_sched(os.sched, *sched, request.sched, placement.cpus);
  // A program that creates threads fails at its first clone under deadline,
  // with its own words: say why first (-v's line says it already).
  if (sched && sched->want.policy == SchedPolicy::Deadline && !request.verbose)
    err.write(format_warning("the command runs under SCHED_DEADLINE, which cannot create threads or processes (the "
                             "kernel refuses clone: EAGAIN); a program that does gets its policy once its threads "
                             "run: 'affix pin --policy deadline:... PID'"));
  for (auto& [name, value] : request.env) os.exec.set_env(name, value);
  if (request.spread) {
    const char* call = "ptrace";
    if (int fe = os.exec.follow_threads(placement.sequence, request.spread, call)) {
      bool refused = std::strcmp(call, "ptrace") == 0;
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot follow the command's threads for --spread: {}: {}", call,
                              errno_text(fe)),
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
