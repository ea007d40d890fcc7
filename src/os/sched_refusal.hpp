#pragma once
// Why the kernel refused a scheduling policy or a deadline thread's CPU
// list, in words, with a hint (affix(1), SCHEDULING, "Refusals"): the same
// for run (of itself) and pin (of each thread), and read where it is
// refused only, so a launch without a policy reads nothing more. The facts
// (SchedFacts, sched.hpp) come from /proc (sched_proc.cpp); the words from
// explain_sched_refusal, which is pure.

#include <optional>
#include <string>

#include "cpuset.hpp"
#include "sched.hpp"
#include "sysroot.hpp"

namespace affix {

struct SchedRefusal {
  std::string reason;  // after "cannot set ...: "
  std::string hint;
};

// sched_setattr of `want` (asked as `request`) refused with `err`, on a
// thread whose attributes were `current`.
SchedRefusal explain_sched_refusal(const SchedAttr& want, const SchedAttr& current, int err, const SchedFacts& facts);

// sched_setaffinity refused with EBUSY: the thread is SCHED_DEADLINE and
// `cpus` are fewer than its root domain.
SchedRefusal explain_deadline_cpus(const CpuSet& cpus, const SchedFacts& facts);

// Where a SCHED_DEADLINE thread may not be given `cpus` (their root domain
// is wider), the reason and hint, as the kernel would refuse it; nullopt
// where it would be admitted or that cannot be told (explain, --dry-run).
std::optional<SchedRefusal> predict_deadline_refusal(const CpuSet& cpus, const SchedFacts& facts);

// The facts of /proc: the root domain of `cpus` and the sysctls (the
// capability and the owner are the caller's to fill).
SchedFacts read_sched_facts(const SysRoot& root, const CpuSet& cpus);

}  // namespace affix
