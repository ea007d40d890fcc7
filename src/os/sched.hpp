#pragma once
// Scheduling policies (affix(1), SCHEDULING): what --policy, --nice,
// --sched-slice and --uclamp ask for (SchedRequest), a thread's attributes
// as the kernel reads them back (SchedAttr), the SchedOs interface to
// sched_setattr and sched_getattr (implemented in sched_linux.cpp), and
// their words. Pure but for SchedOs; the refusals are explained in
// sched_refusal.cpp.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "cpuset.hpp"

namespace affix {

// SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR,
// SCHED_DEADLINE (include/uapi/linux/sched.h).
enum class SchedPolicy { Other, Batch, Idle, Fifo, RR, Deadline };
// The kernel's number of a policy (0, 3, 5, 1, 2, 6), and back (nullopt
// for one affix does not know, such as SCHED_EXT).
int sched_policy_number(SchedPolicy policy);
std::optional<SchedPolicy> sched_policy_of_number(long number);
const char* sched_policy_name(SchedPolicy policy);  // "other", "fifo", ... as --policy spells them
// The policies whose threads have a nice value and an EEVDF slice of
// their own (the kernel's fair_policy(): SCHED_OTHER and SCHED_BATCH).
bool is_fair(SchedPolicy policy);
bool is_realtime(SchedPolicy policy);  // fifo, rr

// A thread's scheduling attributes (struct sched_attr, read back by
// sched_getattr).
struct SchedAttr {
  SchedPolicy policy = SchedPolicy::Other;
  int nice = 0;            // other, batch (and idle, where it has no effect)
  unsigned priority = 0;   // fifo, rr: 1-99
  uint64_t slice_ns = 0;   // other, batch: the EEVDF slice (Linux 6.12+; 0 where the kernel keeps none)
  uint64_t runtime_ns = 0, deadline_ns = 0, period_ns = 0;  // deadline
  std::optional<unsigned> util_min, util_max;  // uclamp, where the kernel has it (0-1024)
  bool reset_on_fork = false;
  bool operator==(const SchedAttr&) const = default;
};

// --policy: a policy and its parameters.
struct PolicyRequest {
  SchedPolicy policy = SchedPolicy::Other;
  unsigned priority = 0;                                    // fifo, rr
  uint64_t runtime_ns = 0, deadline_ns = 0, period_ns = 0;  // deadline
  bool operator==(const PolicyRequest&) const = default;
};

// What the scheduling options ask for; each part left out is kept as the
// thread has it.
struct SchedRequest {
  std::optional<PolicyRequest> policy;  // --policy
  std::optional<int> nice;              // --nice
  std::optional<uint64_t> slice_ns;     // --sched-slice
  std::optional<unsigned> util_min, util_max;  // --uclamp MIN:MAX (both or neither)
  bool any() const { return policy || nice || slice_ns || util_min; }
  bool operator==(const SchedRequest&) const = default;
};

// The policy a thread ends up with: the request's, else its own.
SchedPolicy policy_after(const SchedRequest& request, const SchedAttr& current);

// What a thread is to get: its own attributes with the request laid over
// them (sched_setattr sets them all at once). nullopt where the request
// cannot apply to it: --nice or --sched-slice on a thread whose policy
// stays one without them (fifo, rr, deadline, idle); `why` then says so.
std::optional<SchedAttr> sched_want(const SchedRequest& request, const SchedAttr& current, std::string& why);

// Attributes read from a thread as they are to be set back on it: the
// clamps only where the request sets them (sched_want).
SchedAttr sched_restorable(const SchedAttr& read, const SchedRequest& request);

// Whether a thread's attributes are what the request asks (pin --check,
// and the pin engine's "on its place").
bool sched_satisfies(const SchedAttr& have, const SchedRequest& request);

// Whether a move sets the CPU list first: where the thread is to be
// SCHED_DEADLINE. The kernel admits a deadline thread only where it may
// run on every CPU of its root domain (it refuses the policy with EPERM
// while the list is narrower, and refuses to narrow a deadline thread's
// list with EBUSY), so a list goes before a deadline policy and after any
// other (affix(1), SCHEDULING, "Order of the calls").
inline bool cpus_first(SchedPolicy target) { return target == SchedPolicy::Deadline; }

// Words. A duration as the options write it, the shortest exact unit:
// "10ms", "1.5ms", "200us", "1024ns", "1s".
std::string duration_text(uint64_t ns);
// The request as the options write it, parts joined with ", ": "policy
// fifo:50", "policy batch, nice 5, slice 1ms", "uclamp 0:512".
std::string sched_request_text(const SchedRequest& request);
// A thread's attributes, as show prints them: "other", "other nice 5",
// "batch slice 3ms", "fifo:50", "deadline:10ms/20ms/20ms", "idle", with
// " uclamp MIN:MAX" where that is not 0:1024.
std::string sched_attr_text(const SchedAttr& attr);
// The parts of a thread's attributes that the request names, in its words
// ("policy other, nice 0"), for pin --check and -v.
std::string sched_have_text(const SchedAttr& have, const SchedRequest& request);

// What this kernel can keep, probed without changing anything.
struct SchedSupport {
  bool slice = true;    // a thread's own EEVDF slice (Linux 6.12 and later)
  bool uclamp = true;   // utilization clamping (CONFIG_UCLAMP_TASK)
  std::string release;  // the kernel's release (uname -r), for the messages
};

// Throws Error(Runtime) where the request names what the kernel lacks:
// --sched-slice before Linux 6.12, --uclamp without CONFIG_UCLAMP_TASK.
void check_sched_support(const SchedRequest& request, const SchedSupport& support);

// What a refusal is explained with.
struct SchedFacts {
  bool cap_sys_nice = false;     // affix holds CAP_SYS_NICE
  CpuSet cpus;                   // the CPUs the thread may run on
  // The CPUs of the root domain of those CPUs (the span of their top
  // scheduling domain in /proc/schedstat); nullopt where unknown.
  std::optional<CpuSet> root_domain;
  std::optional<long long> rt_runtime_us, rt_period_us;        // kernel.sched_rt_{runtime,period}_us
  std::optional<long long> dl_period_min_us, dl_period_max_us;  // kernel.sched_deadline_period_{min,max}_us
};

// A thread's scheduling attributes: sched_setattr and sched_getattr (raw
// syscalls: glibc 2.36 has no wrappers). Used by run (launch.cpp), pin
// (pin.cpp, pin_rollback.cpp) and show. Every call returns 0 or an errno
// value.
class SchedOs {
public:
  virtual ~SchedOs() = default;
  // sched_getattr on one thread (0 = the caller).
  virtual int get_sched(pid_t tid, SchedAttr& out) = 0;
  // sched_setattr on one thread with every attribute of `attr` (uclamp
  // only where attr has it: SCHED_FLAG_UTIL_CLAMP_MIN/MAX).
  virtual int set_sched(pid_t tid, const SchedAttr& attr) = 0;
  virtual SchedSupport sched_support() = 0;
  // What a refusal on a thread allowed `cpus` is explained with (read only
  // once refused: /proc/schedstat, sysctls, affix's own capabilities).
  virtual SchedFacts sched_facts(const CpuSet& cpus) = 0;
};

}  // namespace affix
