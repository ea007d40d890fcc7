#pragma once
// The operating system behind a narrow interface. os_linux.cpp is the only
// file that includes <sched.h>, <numa.h>, <numaif.h>; tests use the recording
// fake in tests/fake_os.hpp. Every call returns 0 or an errno value instead of
// throwing, so callers decide how to explain a refusal.

#include <sys/types.h>

#include <cerrno>

#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"

namespace affix {

enum class MemPolicy { Bind, Preferred, Interleave, Local };
const char* mem_policy_name(MemPolicy policy);  // "bind", ...

// What a batch move did to one thread (Os::move_affinities).
struct AffinityMove {
  bool reached = false;    // false: not tried, the batch stopped at a failure before it
  int read_error = 0;      // errno of reading its list (ESRCH: it is gone)
  CpuSet before;           // its list as read
  bool tried_set = false;  // its list was not the target: it was set
  int set_error = 0;       // errno of setting it (ESRCH: it is gone)
};

class Os {
public:
  virtual ~Os() = default;

  // sched_setaffinity / sched_getaffinity on one thread (0 = the caller).
  virtual int set_affinity(pid_t tid, const CpuSet& cpus) = 0;
  virtual int get_affinity(pid_t tid, CpuSet& out) = 0;
  // A batch check: result[i] is 0 when thread tids[i] has CPU list
  // *want[i], 1 when it has another, else the errno of reading it. The real
  // Os reads a large batch on several CPUs at once; this default reads one
  // thread after the other through get_affinity.
  virtual void check_affinities(const std::vector<pid_t>& tids, const std::vector<const CpuSet*>& want,
                                std::vector<int>& result) {
    result.assign(tids.size(), 0);
    CpuSet current;
    for (size_t i = 0; i < tids.size(); ++i) {
      int err = get_affinity(tids[i], current);
      result[i] = err != 0 ? err : current == *want[i] ? 0 : 1;
    }
  }
  // A batch move: for each tids[i], reads its list and, where that is not
  // *want[i], sets *want[i] (out[i] says what happened). A failure other
  // than ESRCH stops the batch (the real Os: the share of one worker). The
  // real Os moves a large batch on several CPUs at once; this default moves
  // one thread after the other through get_affinity and set_affinity.
  virtual void move_affinities(const std::vector<pid_t>& tids, const std::vector<const CpuSet*>& want,
                               std::vector<AffinityMove>& out) {
    out.assign(tids.size(), AffinityMove{});
    for (size_t i = 0; i < tids.size(); ++i) {
      auto& r = out[i];
      r.reached = true;
      r.read_error = get_affinity(tids[i], r.before);
      if (r.read_error == ESRCH) continue;
      if (r.read_error != 0) break;
      if (r.before == *want[i]) continue;
      r.tried_set = true;
      r.set_error = set_affinity(tids[i], *want[i]);
      if (r.set_error != 0 && r.set_error != ESRCH) break;
    }
  }
  // set_mempolicy for the calling thread (nodes ignored for Local).
  virtual int set_mempolicy(MemPolicy policy, const CpuSet& nodes) = 0;
  // migrate_pages(pid, from, to): returns 0 or errno; `not_moved` gets the
  // kernel's count of pages that could not be moved.
  virtual int migrate_pages(pid_t pid, const CpuSet& from, const CpuSet& to,
                            long& not_moved) = 0;
  // Thread IDs in /proc/PID/task, in ascending order; errno on failure
  // (ESRCH when the process is gone).
  virtual int list_threads(pid_t pid, std::vector<pid_t>& out) = 0;
  // The number of threads of process `pid` (field 20 of its leader's
  // /proc/PID/task/PID/stat: the kernel's count, which changes together with
  // the /proc/PID/task listing); errno on failure (ESRCH when gone).
  virtual int thread_count(pid_t pid, unsigned& out) = 0;
  // pidfd_open(pid); returns a descriptor >= 0, or -errno (ENOSYS where the
  // kernel lacks it).
  virtual int pidfd_open(pid_t pid) = 0;
  // Whether the process behind a pidfd is still alive (poll for POLLIN).
  virtual bool pidfd_alive(int fd) = 0;
  virtual void close_fd(int fd) = 0;
  // Start time (field 22 of /proc/PID/stat), nullopt where gone.
  virtual std::optional<unsigned long long> start_time(pid_t pid) = 0;
  // Sleep between confirmation passes.
  virtual void sleep_ms(unsigned ms) = 0;
  // execvp; returns only on failure, with errno.
  virtual int exec(const std::vector<std::string>& argv) = 0;
  // What exec would find for argv[0] without executing it: 0, or the errno
  // exec would fail with (exec_lookup.hpp; run --dry-run).
  virtual int find_command(const std::string& command);
  // setenv (overwrite).
  virtual void set_env(const std::string& name, const std::string& value) = 0;
  // Whether affix itself holds CAP_SYS_NICE (CapEff in /proc/self/status):
  // with it, the kernel lets it move anyone's threads, so an EPERM comes from
  // a security policy (a seccomp filter, an LSM), not from ownership.
  virtual bool has_cap_sys_nice() = 0;
};

// The hint for an EPERM from sched_setaffinity or migrate_pages on another
// process.
inline const char* eperm_hint(Os& os) {
  return os.has_cap_sys_nice()
             ? "affix has CAP_SYS_NICE, so a security policy refused it: a seccomp filter or a "
               "security module (as in a container)"
             : "moving another user's process needs CAP_SYS_NICE";
}

// The real one.
Os& linux_os();

}  // namespace affix
