#include "launch.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>

#include "diag.hpp"
#include "error.hpp"
#include "launch_output.hpp"
#include "launch_sched.hpp"
#include "memory_text.hpp"
#include "weights_apply.hpp"
#include "text.hpp"

namespace affix {

namespace {

// Preferring several nodes needs MPOL_PREFERRED_MANY (Linux 5.15), weighted
// interleave MPOL_WEIGHTED_INTERLEAVE (6.9); where the kernel lacks it, the
// run fails before anything is set, and so does a dry run.
void check_kernel_has(MemPolicyOs& os, const Placement& p) {
  if (p.mem_policy == MemPolicy::Weighted && !os.has_weighted_interleave())
    throw Error(ErrorKind::Runtime,
                fmt::format("cannot interleave by weights on nodes {}: this kernel has no MPOL_WEIGHTED_INTERLEAVE "
                            "(Linux 6.9 and later have it)",
                            format_cpulist(p.mem_nodes)),
                "use --mem interleave (every node alike), or boot Linux 6.9 or later");
  if (!p.mem_policy || *p.mem_policy != MemPolicy::Preferred || p.mem_nodes.count() < 2) return;
  if (os.has_preferred_many()) return;
  throw Error(ErrorKind::Runtime,
              fmt::format("cannot prefer several nodes ({}): this kernel has no MPOL_PREFERRED_MANY "
                          "(Linux 5.15 and later have it)",
                          format_cpulist(p.mem_nodes)),
              "name one node (--mem preferred:N), or use --mem interleave or --mem bind");
}

// The memory policy, the scheduling policy and the CPUs (in the order
// cpus_first says), the environment, the follower, the exec:
// what comes after the weights. Throws as launch() does; returns exec's
// 126 or 127 (its error printed), or 0 where a fake's exec returns.
int place_and_exec(LaunchOs& os, const Placement& placement, const LaunchRequest& request,
                   const std::optional<LaunchSched>& sched, bool cpus_first, LaunchOutput& err);

// Puts back the weights written for a command that does not start; what
// could not be put back is added to the message (or, for an exec that
// failed, said in a warning).
Error with_weights_back(LaunchOs& os, const WeightWrite& written, const Error& e) {
  if (!written.changed()) return e;
  std::string stays = restore_weights(os.weights, written);
  if (stays.empty()) return Error(e.kind(), std::string(e.what()) + "; the interleave weights were put back", e.hint());
  return Error(e.kind(), std::string(e.what()) + "; not every interleave weight was put back",
               e.hint().empty() ? stays : e.hint() + "; " + stays);
}

// --spread follows the command with ptrace, under which the kernel drops
// what a set-user-ID, set-group-ID or file-capability program gives
// (exec_privilege.hpp): refused before anything, also by a dry run.
void check_traced_exec(ExecOs& os, const LaunchRequest& request) {
  if (!request.spread) return;
  auto [file, lost] = os.traced_exec_loss(request.argv[0]);
  if (lost.empty()) return;
  throw Error(ErrorKind::Runtime,
              fmt::format("cannot run '{}' with --spread: the kernel would run it without its {}, as it does "
                          "for a traced program (--spread follows its threads with ptrace); the command was not "
                          "started",
                          printable(file), lost),
              "run it without --spread, or spread its threads once it runs: 'affix pin --spread WHERE PID'");
}

}  // namespace

int launch(LaunchOs os, const Placement& placement, const LaunchRequest& request, LaunchOutput& out,
           LaunchOutput& err) {
  if (request.argv.empty()) throw Error(ErrorKind::Usage, "no command given");
  check_kernel_has(os.mem_policy, placement);
  check_traced_exec(os.exec, request);
  // Only with a scheduling option: a plain launch reads nothing more.
  std::optional<LaunchSched> sched = plan_launch_sched(os.sched, request.sched);
  const bool cpus_first = !sched || sched->cpus_first;
  if (!placement.widening.empty()) {
    err.write(format_warning(placement.widening));
  }
  for (const NearDevice& n : placement.near)
    if (!n.warning.empty()) err.write(format_warning(n.warning));
  if (placement.gpu)
    for (const std::string& w : placement.gpu->warnings) err.write(format_warning(w));
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
  // The weights first (all or nothing, read back), so that -v says what
  // the kernel took.
  WeightWrite written;
  std::optional<InterleaveWeights> read_back;
  if (placement.weights && placement.weights->changes()) {
    err.write(format_warning(weights_warning(*placement.weights)));
    AppliedWeights applied = apply_weights(os.weights, *placement.weights);
    written = applied.written;
    read_back = std::move(applied.now);
  }
  if (request.verbose) {
    try {
      err.write(lines_text(describe_launch(placement, request, false, cpus_first, read_back ? &*read_back : nullptr)));
    } catch (const Error& e) {
      throw with_weights_back(os, written, e);
    }
  }
  int status = 0;
  try {
    status = place_and_exec(os, placement, request, sched, cpus_first, err);
  } catch (const Error& e) {
    throw with_weights_back(os, written, e);
  }
  if (status != k_exit_ok && written.changed()) {
    std::string stays = restore_weights(os.weights, written);
    if (!stays.empty()) err.write(format_warning("not every interleave weight was put back: " + stays));
  }
  return status;
}

namespace {

int place_and_exec(LaunchOs& os, const Placement& placement, const LaunchRequest& request,
                   const std::optional<LaunchSched>& sched, bool cpus_first, LaunchOutput& err) {
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
      // A process has one tracer: strace, gdb or an outer --spread already
      // follows affix (the kernel says EPERM, as for a policy's refusal).
      if (refused && fe == EPERM)
        if (auto t = os.exec.tracer())
          throw Error(ErrorKind::Runtime,
                      fmt::format("cannot follow the command's threads for --spread: ptrace: {}: affix is "
                                  "already traced by process {} ({})",
                                  errno_text(fe), t->pid, t->comm.empty() ? "?" : printable(t->comm)),
                      "a process has one tracer at a time (strace, gdb, an outer 'affix --spread'): run "
                      "--spread outside it, or leave out --spread; the command was not started");
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
