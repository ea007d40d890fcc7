#pragma once
// The kernel's side of SchedOs (sched.hpp), for os_linux.cpp's LinuxOs:
// raw sched_getattr and sched_setattr, and the probes of SchedSupport.
// Nothing else calls these.

#include <sys/types.h>

#include "sched.hpp"

namespace affix {

// sched_getattr; the clamps are filled in only where `uclamp` (the kernel
// has them: SchedSupport::uclamp). 0 or errno (EINVAL: a policy affix does
// not know).
int linux_get_sched(pid_t tid, SchedAttr& out, bool uclamp);
// sched_setattr of every attribute of `attr`; 0 or errno.
int linux_set_sched(pid_t tid, const SchedAttr& attr);
// What the kernel can keep (sched.hpp), without changing anything.
SchedSupport linux_sched_support();

}  // namespace affix
