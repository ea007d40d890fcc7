// run's scheduling policy (launch_sched.hpp).
#include "launch_sched.hpp"

#include <fmt/format.h>

#include "error.hpp"
#include "sched_refusal.hpp"
#include "text.hpp"

namespace affix {

std::optional<LaunchSched> plan_launch_sched(SchedOs& os, const SchedRequest& request) {
  if (!request.any()) return std::nullopt;
  check_sched_support(request, os.sched_support());
  LaunchSched plan;
  if (int e = os.get_sched(0, plan.current))
    throw Error(ErrorKind::Runtime, fmt::format("cannot read affix's own scheduling policy: {}", errno_text(e)),
                "sched_getattr is refused by a seccomp filter or security policy (container policy)");
  std::string why;
  auto want = sched_want(request, plan.current, why);
  if (!want)
    throw Error(ErrorKind::Runtime, fmt::format("cannot set {}: {}", sched_request_text(request), why),
                "add --policy other (or batch) to change the policy too");
  plan.want = *want;
  plan.cpus_first = cpus_first(want->policy);
  return plan;
}

void foresee_launch_sched(SchedOs& os, const LaunchSched& plan, const SchedRequest& request, const CpuSet& cpus) {
  if (plan.want.policy != SchedPolicy::Deadline) return;
  if (auto refusal = predict_deadline_refusal(cpus, os.sched_facts(cpus)))
    throw Error(ErrorKind::Runtime, fmt::format("cannot set {}: {}", sched_request_text(request), refusal->reason),
                refusal->hint);
}

void apply_launch_sched(SchedOs& os, const LaunchSched& plan, const SchedRequest& request, const CpuSet& cpus) {
  if (int e = os.set_sched(0, plan.want)) {
    SchedRefusal r = explain_sched_refusal(plan.want, plan.current, e, os.sched_facts(cpus));
    throw Error(ErrorKind::Runtime, fmt::format("cannot set {}: {}", sched_request_text(request), r.reason), r.hint);
  }
  // Read back: what the command will run under is what the kernel kept.
  SchedAttr kept;
  if (int e = os.get_sched(0, kept))
    throw Error(ErrorKind::Runtime, fmt::format("cannot read affix's own scheduling policy: {}", errno_text(e)),
                "sched_getattr is refused by a seccomp filter or security policy (container policy)");
  if (!sched_satisfies(kept, request))
    throw Error(ErrorKind::Runtime,
                fmt::format("cannot set {}: the kernel kept {}", sched_request_text(request), sched_have_text(kept, request)),
                "the command was not started");
}

}  // namespace affix
