#pragma once
// `affix run`'s scheduling policy (launch.cpp): what affix itself is to get
// before the exec (the request laid over its own attributes), in which order
// with the CPU affinity, and setting it with the kernel's refusals
// explained (sched_refusal.hpp). The command inherits both at the exec.

#include <optional>

#include "cpuset.hpp"
#include "sched.hpp"

namespace affix {

struct LaunchSched {
  SchedAttr current;  // affix's own, before
  SchedAttr want;     // what it is to get
  bool cpus_first = true;  // the CPUs before the policy (a deadline one), else after
};

// nullopt without a scheduling option (then nothing is read). Reads
// affix's own attributes; throws Error(Runtime) where the kernel lacks what
// the request names (check_sched_support), or where --nice or
// --sched-slice meet a policy without them: each as the real run would fail.
std::optional<LaunchSched> plan_launch_sched(SchedOs& os, const SchedRequest& request);

// --dry-run: throws the real run's Error(Runtime) where a deadline policy
// would be refused on `cpus` (predict_deadline_refusal).
void foresee_launch_sched(SchedOs& os, const LaunchSched& plan, const SchedRequest& request, const CpuSet& cpus);

// Sets it on affix itself and reads it back; throws Error(Runtime) with the
// kernel's reason and a hint where it is refused, or not kept.
void apply_launch_sched(SchedOs& os, const LaunchSched& plan, const SchedRequest& request, const CpuSet& cpus);

}  // namespace affix
