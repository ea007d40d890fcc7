// Why the kernel refused a scheduling policy (sched_refusal.hpp). The
// kernel's rules are those of __sched_setscheduler and
// user_check_sched_setscheduler (kernel/sched/syscalls.c, Linux 6.12) and
// dl_task_check_affinity (kernel/sched/core.c).
#include "sched_refusal.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "text.hpp"

namespace affix {

namespace {

std::string domain_text(const SchedFacts& f) {
  return f.root_domain ? format_cpulist(*f.root_domain) : std::string("wider");
}

// Where a deadline thread may go: a root domain of its own.
std::string partition_hint(const CpuSet& cpus, const SchedFacts& f) {
  std::string all = f.root_domain ? fmt::format("give it all of CPUs {}, or ", format_cpulist(*f.root_domain)) : "";
  return fmt::format("{}make CPUs {} a root domain of their own and start the thread there: 'affix shield', or a "
                     "cgroup v2 cpuset partition (cpuset.cpus.partition=root)",
                     all, format_cpulist(cpus));
}

SchedRefusal not_permitted(const SchedAttr& want, const SchedAttr& current, const SchedFacts& f) {
  // With CONFIG_RT_GROUP_SCHED a cgroup without real-time runtime refuses
  // fifo and rr even to root (__sched_setscheduler).
  if (f.cap_sys_nice && is_realtime(want.policy))
    return {"permission denied: the thread's cgroup gives real-time threads no runtime (CONFIG_RT_GROUP_SCHED: its "
            "cpu.rt_runtime_us is 0), or a security policy refused it",
            "give the cgroup real-time runtime (cpu.rt_runtime_us above 0), or start the thread outside it"};
  if (f.cap_sys_nice)
    return {"permission denied", "affix has CAP_SYS_NICE, so a security policy refused it: a seccomp filter or a "
                                 "security module (as in a container)"};
  if (is_realtime(want.policy))
    return {fmt::format("permission denied: {}:{} needs CAP_SYS_NICE or an RLIMIT_RTPRIO of at least {}",
                        sched_policy_name(want.policy), want.priority, want.priority),
            "run affix as root, or raise the thread's limit first (prlimit --rtprio, ulimit -r, LimitRTPRIO= of "
            "a systemd unit)"};
  if (current.policy == SchedPolicy::Idle && want.policy != SchedPolicy::Idle)
    return {"permission denied: leaving the idle policy needs CAP_SYS_NICE or an RLIMIT_NICE that allows its nice",
            "run affix as root, or raise the thread's limit first (prlimit --nice, ulimit -e, LimitNICE=)"};
  if (is_fair(want.policy) && want.nice < current.nice)
    return {fmt::format("permission denied: lowering nice from {} to {} needs CAP_SYS_NICE or an RLIMIT_NICE of at "
                        "least {}", current.nice, want.nice, 20 - want.nice),
            "run affix as root, or raise the thread's limit first (prlimit --nice, ulimit -e, LimitNICE=)"};
  return {"permission denied", "changing another user's thread needs CAP_SYS_NICE"};
}

}  // namespace

SchedRefusal explain_deadline_cpus(const CpuSet& cpus, const SchedFacts& f) {
  return {fmt::format("a SCHED_DEADLINE thread must be allowed every CPU of its root domain ({}), and CPUs {} are "
                      "not all of it", domain_text(f), format_cpulist(cpus)),
          partition_hint(cpus, f)};
}

SchedRefusal explain_sched_refusal(const SchedAttr& want, const SchedAttr& current, int err, const SchedFacts& f) {
  const bool deadline = want.policy == SchedPolicy::Deadline;
  switch (err) {
    case EPERM:
      if (!deadline) return not_permitted(want, current, f);
      if (!f.cap_sys_nice)
        return {"permission denied: SCHED_DEADLINE needs CAP_SYS_NICE",
                "only a privileged user (root, or CAP_SYS_NICE) may make a thread SCHED_DEADLINE"};
      if (f.rt_runtime_us && *f.rt_runtime_us == 0)
        return {"the kernel gives deadline threads no bandwidth: kernel.sched_rt_runtime_us is 0",
                "set kernel.sched_rt_runtime_us above 0 (950000, of every 1000000, is the default)"};
      if (f.root_domain && f.root_domain->is_subset_of(f.cpus))
        return {"permission denied", "affix has CAP_SYS_NICE and the thread may use its whole root domain, so a "
                                     "security policy refused it: a seccomp filter or a security module"};
      return explain_deadline_cpus(f.cpus, f);
    case EBUSY:
      if (!deadline) break;
      return {fmt::format("deadline admission control refused it: the CPUs of its root domain ({}) have not "
                          "{} of every {} left for another deadline thread",
                          domain_text(f), duration_text(want.runtime_ns),
                          duration_text(want.period_ns ? want.period_ns : want.deadline_ns)),
              fmt::format("each CPU gives deadline threads at most kernel.sched_rt_runtime_us of every "
                          "sched_rt_period_us ({} of {}), shared by every deadline thread of the root domain; ask "
                          "for less runtime or a longer period",
                          f.rt_runtime_us ? std::to_string(*f.rt_runtime_us) : "?",
                          f.rt_period_us ? std::to_string(*f.rt_period_us) : "?")};
    case EINVAL:
      if (deadline && f.dl_period_min_us && f.dl_period_max_us) {
        uint64_t period = want.period_ns ? want.period_ns : want.deadline_ns;
        if (period < uint64_t(*f.dl_period_min_us) * 1000 || period > uint64_t(*f.dl_period_max_us) * 1000)
          return {fmt::format("the kernel takes deadline periods from {}us to {}us only "
                              "(kernel.sched_deadline_period_min_us, sched_deadline_period_max_us), not {}",
                              *f.dl_period_min_us, *f.dl_period_max_us, duration_text(period)),
                  "choose a period in that range"};
      }
      break;
    case EOPNOTSUPP:
      return {"this kernel was built without CONFIG_UCLAMP_TASK",
              "Debian's kernels are built without it; leave out --uclamp"};
  }
  return {errno_text(err), {}};
}

std::optional<SchedRefusal> predict_deadline_refusal(const CpuSet& cpus, const SchedFacts& f) {
  // sched_rt_runtime_us -1 turns admission control off: any CPUs then.
  if (f.rt_runtime_us && *f.rt_runtime_us < 0) return std::nullopt;
  if (!f.root_domain || f.root_domain->is_subset_of(cpus)) return std::nullopt;
  return explain_deadline_cpus(cpus, f);
}

}  // namespace affix
