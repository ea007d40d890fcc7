// Scheduling policies: names, the request laid over a thread's own
// attributes, and their words (sched.hpp).
#include "sched.hpp"

#include <fmt/format.h>

#include "error.hpp"

namespace affix {

int sched_policy_number(SchedPolicy policy) {
  switch (policy) {
    case SchedPolicy::Other: return 0;
    case SchedPolicy::Fifo: return 1;
    case SchedPolicy::RR: return 2;
    case SchedPolicy::Batch: return 3;
    case SchedPolicy::Idle: return 5;
    case SchedPolicy::Deadline: return 6;
  }
  return 0;
}

std::optional<SchedPolicy> sched_policy_of_number(long number) {
  switch (number) {
    case 0: return SchedPolicy::Other;
    case 1: return SchedPolicy::Fifo;
    case 2: return SchedPolicy::RR;
    case 3: return SchedPolicy::Batch;
    case 5: return SchedPolicy::Idle;
    case 6: return SchedPolicy::Deadline;
  }
  return std::nullopt;
}

const char* sched_policy_name(SchedPolicy policy) {
  switch (policy) {
    case SchedPolicy::Other: return "other";
    case SchedPolicy::Batch: return "batch";
    case SchedPolicy::Idle: return "idle";
    case SchedPolicy::Fifo: return "fifo";
    case SchedPolicy::RR: return "rr";
    case SchedPolicy::Deadline: return "deadline";
  }
  return "?";
}

bool is_fair(SchedPolicy policy) { return policy == SchedPolicy::Other || policy == SchedPolicy::Batch; }
bool is_realtime(SchedPolicy policy) { return policy == SchedPolicy::Fifo || policy == SchedPolicy::RR; }

SchedPolicy policy_after(const SchedRequest& request, const SchedAttr& current) {
  return request.policy ? request.policy->policy : current.policy;
}

std::optional<SchedAttr> sched_want(const SchedRequest& request, const SchedAttr& current, std::string& why) {
  SchedAttr want = current;
  SchedPolicy policy = policy_after(request, current);
  if ((request.nice || request.slice_ns) && !is_fair(policy)) {
    why = fmt::format("it runs under {}, which has no {}; --nice and --sched-slice apply to the other and batch "
                      "policies", sched_policy_name(policy), request.nice ? "nice value" : "EEVDF slice");
    return std::nullopt;
  }
  if (request.policy) {
    const PolicyRequest& p = *request.policy;
    if (!(is_fair(p.policy) && is_fair(current.policy))) want.slice_ns = 0;  // the kernel's default slice
    want.policy = p.policy;
    want.priority = is_realtime(p.policy) ? p.priority : 0;
    want.runtime_ns = p.runtime_ns;
    want.deadline_ns = p.deadline_ns;
    want.period_ns = p.period_ns;
  }
  if (!is_fair(want.policy) && want.policy != SchedPolicy::Idle) want.nice = 0;
  if (request.nice) want.nice = *request.nice;
  if (request.slice_ns) want.slice_ns = *request.slice_ns;
  // The clamps are set only where asked: setting them makes them the
  // thread's own (the kernel's user_defined), which a policy change then keeps.
  want.util_min = request.util_min;
  want.util_max = request.util_max;
  return want;
}

SchedAttr sched_restorable(const SchedAttr& read, const SchedRequest& request) {
  SchedAttr out = read;
  if (!request.util_min) out.util_min = out.util_max = std::nullopt;
  return out;
}

bool sched_satisfies(const SchedAttr& have, const SchedRequest& request) {
  if (request.policy) {
    const PolicyRequest& p = *request.policy;
    if (have.policy != p.policy) return false;
    if (is_realtime(p.policy) && have.priority != p.priority) return false;
    if (p.policy == SchedPolicy::Deadline &&
        (have.runtime_ns != p.runtime_ns || have.deadline_ns != p.deadline_ns || have.period_ns != p.period_ns))
      return false;
  }
  if (request.nice && (!is_fair(have.policy) || have.nice != *request.nice)) return false;
  if (request.slice_ns && (!is_fair(have.policy) || have.slice_ns != *request.slice_ns)) return false;
  if (request.util_min && (have.util_min != request.util_min || have.util_max != request.util_max)) return false;
  return true;
}

std::string duration_text(uint64_t ns) {
  struct Unit {
    uint64_t ns;
    const char* name;
  };
  constexpr Unit k_units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}};
  for (const Unit& u : k_units) {
    if (ns < u.ns) continue;
    // Up to three decimals of the unit where they are exact: 1.5ms, 0.75 ms is 750us.
    for (uint64_t scale = 1; scale <= 1000; scale *= 10) {
      uint64_t step = u.ns / scale;
      if (ns % step != 0) continue;
      uint64_t whole = ns / u.ns, part = (ns % u.ns) / step;
      if (scale == 1) return fmt::format("{}{}", whole, u.name);
      std::string digits = fmt::format("{:0{}}", part, scale == 10 ? 1 : scale == 100 ? 2 : 3);
      return fmt::format("{}.{}{}", whole, digits, u.name);
    }
  }
  return fmt::format("{}ns", ns);
}

namespace {

std::string policy_text(SchedPolicy policy, unsigned priority, uint64_t runtime, uint64_t deadline, uint64_t period) {
  if (is_realtime(policy)) return fmt::format("{}:{}", sched_policy_name(policy), priority);
  if (policy == SchedPolicy::Deadline) {
    if (deadline == 0) return "deadline";  // its parameters unknown (read from /proc)
    return fmt::format("deadline:{}/{}/{}", duration_text(runtime), duration_text(deadline),
                       duration_text(period == 0 ? deadline : period));
  }
  return sched_policy_name(policy);
}

std::string uclamp_text(std::optional<unsigned> min, std::optional<unsigned> max) {
  return fmt::format("uclamp {}:{}", min.value_or(0), max.value_or(1024));
}

}  // namespace

std::string sched_request_text(const SchedRequest& r) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (r.policy)
    add("policy " + policy_text(r.policy->policy, r.policy->priority, r.policy->runtime_ns, r.policy->deadline_ns,
                                r.policy->period_ns));
  if (r.nice) add(fmt::format("nice {}", *r.nice));
  if (r.slice_ns) add("slice " + duration_text(*r.slice_ns));
  if (r.util_min) add(uclamp_text(r.util_min, r.util_max));
  return out;
}

std::string sched_attr_text(const SchedAttr& a) {
  std::string out = policy_text(a.policy, a.priority, a.runtime_ns, a.deadline_ns, a.period_ns);
  if (is_fair(a.policy) && a.nice != 0) out += fmt::format(" nice {}", a.nice);
  if (is_fair(a.policy) && a.slice_ns != 0) out += " slice " + duration_text(a.slice_ns);
  if ((a.util_min && *a.util_min != 0) || (a.util_max && *a.util_max != 1024))
    out += " " + uclamp_text(a.util_min, a.util_max);
  return out;
}

std::string sched_have_text(const SchedAttr& a, const SchedRequest& r) {
  std::string out = "policy " + policy_text(a.policy, a.priority, a.runtime_ns, a.deadline_ns, a.period_ns);
  if (r.nice) out += fmt::format(", nice {}", a.nice);
  if (r.slice_ns) out += ", slice " + (a.slice_ns ? duration_text(a.slice_ns) : std::string("none"));
  if (r.util_min)
    out += ", " + (a.util_min ? uclamp_text(a.util_min, a.util_max) : std::string("uclamp unknown"));
  return out;
}

void check_sched_support(const SchedRequest& request, const SchedSupport& support) {
  if (request.slice_ns && !support.slice)
    throw Error(ErrorKind::Runtime,
                fmt::format("--sched-slice needs Linux 6.12 or later: this kernel ({}) keeps no EEVDF slice of a "
                            "thread's own", support.release),
                "the slice is sched_attr.sched_runtime of an other or batch thread, which kernels before 6.12 "
                "ignore; leave out --sched-slice");
  if (request.util_min && !support.uclamp)
    throw Error(ErrorKind::Runtime, "--uclamp needs utilization clamping: this kernel was built without CONFIG_UCLAMP_TASK",
                "Debian's kernels are built without it (sched_setattr refuses the clamps: EOPNOTSUPP); leave out "
                "--uclamp");
}

}  // namespace affix
