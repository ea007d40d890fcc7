// explain's words for the scheduling options (explain_sched.hpp).
#include "explain_sched.hpp"

#include <fmt/format.h>

namespace affix {

namespace {

bool deadline(const SchedRequest& r) { return r.policy && r.policy->policy == SchedPolicy::Deadline; }

const char* launcher_name(AsFormat format) {
  switch (format) {
    case AsFormat::Systemd: return "systemd";
    case AsFormat::Nginx: return "nginx";
    case AsFormat::Docker: return "docker";
    case AsFormat::Taskset: return "taskset";
    case AsFormat::Numactl: return "numactl";
  }
  return "?";
}

}  // namespace

std::string explain_sched_line(const SchedRequest& r) {
  std::string out = sched_request_text(r);
  if (deadline(r))
    out += " (set after the CPUs: the kernel admits a deadline thread only where it may run on every CPU of its "
           "root domain; it cannot create threads or processes)";
  return out;
}

void write_sched_json(JsonWriter& j, const SchedRequest& r) {
  auto optional_ns = [&](const char* name, bool has, uint64_t ns) {
    j.key(name);
    if (has) j.value(static_cast<unsigned long long>(ns));
    else j.null();
  };
  j.begin_object();
  j.key("policy");
  if (r.policy) j.value(sched_policy_name(r.policy->policy));
  else j.null();
  j.key("priority");
  if (r.policy && is_realtime(r.policy->policy)) j.value(r.policy->priority);
  else j.null();
  optional_ns("runtime_ns", deadline(r), deadline(r) ? r.policy->runtime_ns : 0);
  optional_ns("deadline_ns", deadline(r), deadline(r) ? r.policy->deadline_ns : 0);
  optional_ns("period_ns", deadline(r), deadline(r) ? r.policy->period_ns : 0);
  j.key("nice");
  if (r.nice) j.value(*r.nice);
  else j.null();
  optional_ns("slice_ns", r.slice_ns.has_value(), r.slice_ns.value_or(0));
  j.key("uclamp");
  if (r.util_min) {
    j.begin_object();
    j.field("min", *r.util_min);
    j.field("max", r.util_max.value_or(1024));
    j.end_object();
  } else {
    j.null();
  }
  j.field("cpus_first", deadline(r));
  j.end_object();
}

std::string systemd_sched_lines(const SchedRequest& r) {
  std::string out;
  if (r.policy && !deadline(r)) {
    out += fmt::format("CPUSchedulingPolicy={}\n", sched_policy_name(r.policy->policy));
    if (is_realtime(r.policy->policy)) out += fmt::format("CPUSchedulingPriority={}\n", r.policy->priority);
  }
  if (r.nice) out += fmt::format("Nice={}\n", *r.nice);
  return out;
}

std::vector<std::string> sched_as_warnings(const SchedRequest& r, AsFormat format) {
  std::vector<std::string> out;
  if (!r.any()) return out;
  if (format != AsFormat::Systemd) {
    out.push_back(fmt::format("{} cannot set a scheduling policy: these lines leave out {}; start the program "
                              "under affix with the same options instead ('affix [OPTIONS] WHERE COMMAND')",
                              launcher_name(format), sched_request_text(r)));
    return out;
  }
  if (deadline(r))
    out.push_back(fmt::format("systemd has no CPUSchedulingPolicy=deadline: these lines leave out {}; start the "
                              "service under 'affix --policy deadline:... WHERE COMMAND' (ExecStart=)",
                              sched_request_text(SchedRequest{r.policy, {}, {}, {}, {}})));
  if (r.slice_ns)
    out.push_back(fmt::format("systemd has no setting for the EEVDF slice: these lines leave out --sched-slice {} "
                              "(sched_attr.sched_runtime); start the service under 'affix --sched-slice ...' "
                              "(ExecStart=)", duration_text(*r.slice_ns)));
  if (r.util_min)
    out.push_back(fmt::format("systemd has no setting for a thread's utilization clamps: these lines leave out "
                              "--uclamp {}:{} (CPUQuota= and CPUWeight= are other things)",
                              *r.util_min, r.util_max.value_or(1024)));
  return out;
}

}  // namespace affix
