// sched_setattr and sched_getattr on the kernel itself (SchedOs, for
// os_linux.cpp's LinuxOs). Raw syscalls: glibc 2.36 has no wrappers, and
// struct sched_attr is defined here as the kernel's uapi does
// (include/uapi/linux/sched/types.h), size-versioned: the kernel reads
// `size` bytes of it and zero-fills the rest of its own.
#include "sched_linux.hpp"

#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace affix {

namespace {

struct KernelSchedAttr {
  uint32_t size = 0;
  uint32_t sched_policy = 0;
  uint64_t sched_flags = 0;
  int32_t sched_nice = 0;         // SCHED_OTHER, SCHED_BATCH
  uint32_t sched_priority = 0;    // SCHED_FIFO, SCHED_RR
  uint64_t sched_runtime = 0;     // SCHED_DEADLINE; SCHED_OTHER/BATCH: the EEVDF slice (6.12)
  uint64_t sched_deadline = 0;
  uint64_t sched_period = 0;
  uint32_t sched_util_min = 0;    // from SCHED_ATTR_SIZE_VER1 on (Linux 5.3)
  uint32_t sched_util_max = 0;
};
constexpr uint32_t k_size_ver0 = 48;  // SCHED_ATTR_SIZE_VER0
constexpr uint32_t k_size_ver1 = 56;  // SCHED_ATTR_SIZE_VER1
static_assert(sizeof(KernelSchedAttr) == k_size_ver1);

// include/uapi/linux/sched.h
constexpr uint64_t k_flag_reset_on_fork = 0x01;
constexpr uint64_t k_flag_util_clamp_min = 0x20;
constexpr uint64_t k_flag_util_clamp_max = 0x40;

// Whether the release ("6.12.48+deb12-amd64") is `major`.`minor` or later.
bool release_at_least(const char* release, unsigned major, unsigned minor) {
  unsigned a = 0, b = 0;
  if (std::sscanf(release, "%u.%u", &a, &b) != 2) return false;
  return a > major || (a == major && b >= minor);
}

}  // namespace

int linux_get_sched(pid_t tid, SchedAttr& out, bool uclamp) {
  KernelSchedAttr a;
  if (syscall(SYS_sched_getattr, tid, &a, k_size_ver1, 0) != 0) return errno;
  auto policy = sched_policy_of_number(a.sched_policy);
  if (!policy) return EINVAL;  // a policy affix does not know (SCHED_EXT)
  out = SchedAttr{};
  out.policy = *policy;
  out.reset_on_fork = (a.sched_flags & k_flag_reset_on_fork) != 0;
  switch (*policy) {
    case SchedPolicy::Fifo:
    case SchedPolicy::RR: out.priority = a.sched_priority; break;
    case SchedPolicy::Deadline:
      out.runtime_ns = a.sched_runtime;
      out.deadline_ns = a.sched_deadline;
      out.period_ns = a.sched_period;
      break;
    case SchedPolicy::Other:
    case SchedPolicy::Batch:
    case SchedPolicy::Idle:
      out.nice = a.sched_nice;
      if (*policy != SchedPolicy::Idle) out.slice_ns = a.sched_runtime;
      break;
  }
  // Only a kernel with CONFIG_UCLAMP_TASK fills the clamps in.
  if (uclamp && a.size >= k_size_ver1) {
    out.util_min = a.sched_util_min;
    out.util_max = a.sched_util_max;
  }
  return 0;
}

int linux_set_sched(pid_t tid, const SchedAttr& attr) {
  KernelSchedAttr a;
  a.size = attr.util_min || attr.util_max ? k_size_ver1 : k_size_ver0;
  a.sched_policy = static_cast<uint32_t>(sched_policy_number(attr.policy));
  if (attr.reset_on_fork) a.sched_flags |= k_flag_reset_on_fork;
  switch (attr.policy) {
    case SchedPolicy::Fifo:
    case SchedPolicy::RR: a.sched_priority = attr.priority; break;
    case SchedPolicy::Deadline:
      a.sched_runtime = attr.runtime_ns;
      a.sched_deadline = attr.deadline_ns;
      a.sched_period = attr.period_ns;
      break;
    case SchedPolicy::Other:
    case SchedPolicy::Batch:
      a.sched_nice = attr.nice;
      a.sched_runtime = attr.slice_ns;  // 0: the kernel's own slice (and before 6.12, ignored)
      break;
    case SchedPolicy::Idle: a.sched_nice = attr.nice; break;
  }
  if (attr.util_min) {
    a.sched_flags |= k_flag_util_clamp_min;
    a.sched_util_min = *attr.util_min;
  }
  if (attr.util_max) {
    a.sched_flags |= k_flag_util_clamp_max;
    a.sched_util_max = *attr.util_max;
  }
  return syscall(SYS_sched_setattr, tid, &a, 0) != 0 ? errno : 0;
}

SchedSupport linux_sched_support() {
  SchedSupport s;
  utsname u{};
  if (uname(&u) == 0) s.release = u.release;
  // CONFIG_UCLAMP_TASK adds these sysctls (kernel/sched/core.c).
  s.uclamp = access("/proc/sys/kernel/sched_util_clamp_min", F_OK) == 0;
  // A kernel that keeps a thread's own slice reports every fair thread's
  // slice in sched_runtime (get_params, kernel/sched/syscalls.c, 6.12);
  // one before reports 0. Asked of affix itself where it is one, else of
  // the release.
  SchedAttr self;
  if (linux_get_sched(0, self, false) == 0 && is_fair(self.policy)) s.slice = self.slice_ns > 0;
  else s.slice = release_at_least(u.release, 6, 12);
  return s;
}

}  // namespace affix
