#pragma once
// What /proc says of scheduling, through a SysRoot (captured roots too):
// a thread's policy from /proc/PID/task/TID/sched, and the root domains of
// /proc/schedstat. The parsers are exposed for tests.

#include <sys/types.h>

#include <map>
#include <optional>
#include <string_view>

#include "cpuset.hpp"
#include "sched.hpp"
#include "sysroot.hpp"

namespace affix {

// /proc/PID/task/TID/sched: "policy" (the kernel's number), "prio" (the
// kernel's priority: 100 + 20 + nice for other, batch and idle; 99 - P for
// fifo and rr; -1 for deadline), "se.slice" (ns; Linux 6.12 and later, or
// backports), "uclamp.min" and "uclamp.max" (CONFIG_UCLAMP_TASK). A
// deadline thread's runtime, deadline and period are not there (its
// dl.runtime and dl.deadline are what is left of the current period):
// they stay 0. nullopt where the text has no policy or prio, or a policy
// affix does not know.
std::optional<SchedAttr> parse_sched_file(std::string_view text);
std::optional<SchedAttr> read_thread_sched(const SysRoot& root, pid_t pid, pid_t tid);

// /proc/schedstat: for each CPU with scheduling domains, the span of its
// top one, which is the CPUs of its root domain (kernel/sched/topology.c:
// the domains of a root domain are built over its span). The domain lines
// are "domainN MASK ..." (versions 15, 16) or "domainN NAME MASK ..."
// (version 17). A CPU without domains (isolated, or alone in a partition)
// is left out.
std::map<unsigned, CpuSet> parse_schedstat_domains(std::string_view text);

// The union of the root domains of `cpus`' CPUs that have domains; nullopt
// where none has one, or schedstat cannot be read.
std::optional<CpuSet> read_root_domain(const SysRoot& root, const CpuSet& cpus);

}  // namespace affix
