#pragma once
// The operating system behind narrow interfaces, implemented for Linux in
// os_linux.cpp: the only file of affix that includes <linux/mempolicy.h>,
// and with the thread follower (thread_follow.cpp, which sets CPUs in a
// process of its own) the only one that includes <sched.h>; the scheduling
// policies are sched.hpp's SchedOs (sched_linux.cpp). Tests use the
// recording fakes in tests/support/fake_os.hpp.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpuset.hpp"
#include "interleave_weights.hpp"
#include "sched.hpp"

namespace affix {

// Weighted is MPOL_WEIGHTED_INTERLEAVE (Linux 6.9): interleave by the
// kernel's per-node weights (interleave_weights.hpp).
enum class MemPolicy { Bind, Preferred, Interleave, Local, Weighted };
const char* mem_policy_name(MemPolicy policy);  // "bind", ..., "weighted"

// The mode set_mempolicy(2) gets for a policy over `nodes`: the kernel's
// MPOL_* number (<linux/mempolicy.h>): bind MPOL_BIND 2, preferred
// MPOL_PREFERRED 1 (over several nodes MPOL_PREFERRED_MANY 5), interleave
// MPOL_INTERLEAVE 3, local MPOL_LOCAL 4, weighted MPOL_WEIGHTED_INTERLEAVE 6
// (os_linux.cpp; tests/mempolicy_mode_test.cpp).
int mem_policy_mode(MemPolicy policy, const CpuSet& nodes);

// What set_mempolicy is asked for: "preferred on nodes 0-1
// (MPOL_PREFERRED_MANY: ...)" where several nodes are preferred, else
// "bind on node 0", "weighted interleave on nodes 0,2", "local", ...
std::string mem_policy_text(MemPolicy policy, const CpuSet& nodes);

// A process, its parent and its start time, as /proc lists them.
struct ProcessParent {
  pid_t pid = 0;
  pid_t ppid = 0;
  unsigned long long start_time = 0;
};

// Each interface below is as narrow as its callers: a caller takes the ones
// it uses, and a test's fake implements only those. Every call returns 0 or
// an errno value instead of throwing, so callers decide how to explain a
// refusal.

// CPU affinity. Used by run (launch.cpp), pin (pin.cpp, pin_rollback.cpp),
// the allowed set (allowed.cpp: affix's own), watch (watch_tracker.cpp) and
// the cpu-migrations probe (perf_events.cpp).
class AffinityOs {
public:
  virtual ~AffinityOs() = default;
  // sched_setaffinity / sched_getaffinity on one thread (0 = the caller).
  virtual int set_affinity(pid_t tid, const CpuSet& cpus) = 0;
  virtual int get_affinity(pid_t tid, CpuSet& out) = 0;
};

// The calling thread's memory policy. Used by run (launch.cpp) and explain.
class MemPolicyOs {
public:
  virtual ~MemPolicyOs() = default;
  // set_mempolicy for the calling thread (nodes ignored for Local).
  // Preferred over several nodes is MPOL_PREFERRED_MANY.
  virtual int set_mempolicy(MemPolicy policy, const CpuSet& nodes) = 0;
  // Whether this kernel has MPOL_PREFERRED_MANY (Linux 5.15 and later).
  virtual bool has_preferred_many() = 0;
  // Whether this kernel has MPOL_WEIGHTED_INTERLEAVE (Linux 6.9 and later).
  virtual bool has_weighted_interleave() = 0;
};

// The kernel's interleave weights, /sys/kernel/mm/mempolicy/weighted_interleave
// (interleave_weights.hpp): the machine's, for every process's weighted
// interleave. Used by run (weights_apply.cpp).
class WeightsOs {
public:
  virtual ~WeightsOs() = default;
  // Whether affix may write the file `name` of that directory ("node2",
  // "auto"): it is opened for writing and closed, nothing written. 0 or
  // errno (EACCES: not root).
  virtual int check_weight_file(const std::string& name) = 0;
  // Writes `text` ("3\n", "true\n") to that file in one write. 0 or errno.
  virtual int write_weight_file(const std::string& name, const std::string& text) = 0;
  // What the kernel has now (read_interleave_weights of /).
  virtual InterleaveWeights read_weights() = 0;
};

// Another process's pages. Used by pin --migrate (migrate.cpp).
class PagesOs {
public:
  virtual ~PagesOs() = default;
  // The memory nodes the caller may use (its cpuset's Mems_allowed).
  virtual int mems_allowed(CpuSet& out) = 0;
  // migrate_pages(pid, from, to): returns 0 or errno; `not_moved` gets the
  // kernel's count of pages that could not be moved. With `from` empty it
  // moves nothing and only checks that affix may move the process's pages.
  virtual int migrate_pages(pid_t pid, const CpuSet& from, const CpuSet& to, long& not_moved) = 0;
  // move_pages(pid, ...): with `nodes` null, status[i] gets the node of the
  // page at pages[i] (or -errno: -ENOENT where no page is there); else it
  // moves pages[i] to nodes[i] and status[i] gets where it is now (or
  // -errno). All pages of the process, shared ones too, where affix holds
  // CAP_SYS_NICE (MPOL_MF_MOVE_ALL, as migrate_pages does), else those it
  // maps alone. An empty call only checks that affix may.
  virtual int move_pages(pid_t pid, const std::vector<uint64_t>& pages, const int* nodes,
                         std::vector<int>& status) = 0;
};

// Processes and threads: their lists, parents, start times, and pidfds that
// hold a process. Used by pin (pin.cpp, pin_rollback.cpp).
class TaskOs {
public:
  virtual ~TaskOs() = default;
  // Thread IDs in /proc/PID/task, in ascending order; errno on failure
  // (ESRCH when the process is gone). `complete` is false where the
  // kernel's walk of the thread list was cut short (it ends early where the
  // thread it stands on exits, and resumes by position: see os_linux.cpp),
  // so that a thread that existed all along may be missing.
  virtual int list_threads(pid_t pid, std::vector<pid_t>& out, bool& complete) = 0;
  // The number of threads of process `pid` (field 20 of its leader's
  // /proc/PID/task/PID/stat: the kernel's count, which changes together with
  // the /proc/PID/task listing); errno on failure (ESRCH when gone).
  virtual int thread_count(pid_t pid, unsigned& out) = 0;
  // Whether thread `tid` of process `pid` has run (the third field of
  // /proc/PID/task/TID/schedstat, the times it was given a CPU, or the
  // first, its time on one, is not 0): then its creation is complete. False
  // where it cannot be read.
  virtual bool has_run(pid_t pid, pid_t tid) = 0;
  // Every process of /proc with its parent (field 4 of its stat), ascending
  // PID; processes that exit while they are read are left out.
  virtual int list_processes(std::vector<ProcessParent>& out) = 0;
  // The children of thread `tid` of process `pid`
  // (/proc/PID/task/TID/children), unsorted; errno on failure (ESRCH where
  // the thread is gone). `complete` is false where the kernel's walk may
  // have skipped a child that existed all along: it resumes by position
  // where the child it stood on was released, and at every new read.
  virtual int list_children(pid_t pid, pid_t tid, std::vector<pid_t>& out, bool& complete) = 0;
  // A process's parent and start time (its stat); nullopt where gone.
  virtual std::optional<ProcessParent> process_parent(pid_t pid) = 0;
  // pidfd_open(pid); returns a descriptor >= 0, or -errno (ENOSYS where the
  // kernel lacks it, EINVAL for a thread that is not a process's main one).
  virtual int pidfd_open(pid_t pid) = 0;
  // Whether the process behind a pidfd is still alive (poll for POLLIN).
  virtual bool pidfd_alive(int fd) = 0;
  virtual void close_fd(int fd) = 0;
  // Start time of a process or thread (field 22 of /proc/ID/stat), nullopt
  // where gone.
  virtual std::optional<unsigned long long> start_time(pid_t id) = 0;
};

// A monotonic clock, and a sleep on it. Used by pin (pin.cpp).
class Clock {
public:
  virtual ~Clock() = default;
  virtual uint64_t now_ms() = 0;
  virtual void sleep_ms(unsigned ms) = 0;
};

// A process's tracer (ptrace): its PID and comm (raw, as the kernel keeps
// it; empty where it could not be read).
struct Tracer {
  pid_t pid = 0;
  std::string comm;
};

// Starting the command: its environment, its thread follower and its exec.
// Used by run (launch.cpp).
class ExecOs {
public:
  virtual ~ExecOs() = default;
  // execvp; returns only on failure, with errno.
  virtual int exec(const std::vector<std::string>& argv) = 0;
  // What exec would find for argv[0] without executing it: 0, or the errno
  // exec would fail with (exec_lookup() under this process's PATH; run
  // --dry-run).
  virtual int find_command(const std::string& command) = 0;
  // run --spread: start the helper that follows the calling process's thread
  // creation (thread_follow.hpp) and gives the k-th new thread
  // cpus[(k / per_cpu) % cpus.size()]. Returns 0 once it is attached (exec
  // next), or the errno of the call that failed, named in `call` ("ptrace"
  // where the kernel refuses to let affix follow: EPERM).
  virtual int follow_threads(const std::vector<unsigned>& cpus, unsigned per_cpu,
                             const char*& call) = 0;
  // The process tracing affix itself (TracerPid of /proc/self/status:
  // strace, gdb, an outer run --spread), which keeps the follower from
  // attaching (a process has one tracer); nullopt where none is (or it is
  // in another PID namespace, where /proc shows 0).
  virtual std::optional<Tracer> tracer() = 0;
  // setenv (overwrite).
  virtual void set_env(const std::string& name, const std::string& value) = 0;
  // run --spread: the file exec would run for `command` (under this
  // process's PATH) and what the kernel would drop from it under affix's
  // tracer (privilege_lost, exec_privilege.hpp: "set-user-ID root"); the
  // second "" where nothing (or no file is found).
  virtual std::pair<std::string, std::string> traced_exec_loss(const std::string& command) = 0;
};

// A command started as a child that affix outlives: affix shield runs it
// inside the shield, waits for it, then removes the shield (affix(1),
// SHIELD). Used by shield_launch.cpp.
class ChildOs {
public:
  virtual ~ChildOs() = default;
  // Blocks SIGINT, SIGTERM, SIGHUP and SIGQUIT in affix, so that a shield
  // is made and removed whole; a child started now gets them back at its
  // exec.
  virtual void hold_signals() = 0;
  // Forks a child that waits until release(), then execvp(argv) with the
  // signal mask affix had before hold_signals(). Its PID, or -errno.
  virtual pid_t start_held(const std::vector<std::string>& argv) = 0;
  // Lets the held child exec: 0 once the exec succeeded, else the exec's
  // errno (the child has then exited and was reaped).
  virtual int release(pid_t pid) = 0;
  // Kills a held child (SIGKILL) and reaps it.
  virtual void abandon(pid_t pid) = 0;
  // Waits for the released child to end, passing on to it SIGINT, SIGTERM,
  // SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGWINCH sent to affix by another
  // process (a terminal's Ctrl-C reaches the child itself, once). Its
  // status as a shell gives it: the exit status, or 128+N where signal N
  // ended it. The signals are held again when it returns.
  virtual int wait_passing_signals(pid_t pid) = 0;
  // The same in steps, for a caller that works while the child runs
  // (affix watch): from pass_signals() to stop_passing_signals() the
  // signals above, sent by another process, go on to `pid` whenever the
  // caller lets them in (it keeps them blocked but while it sleeps), and
  // SIGCHLD, let in the same way, ends such a sleep. try_wait: where the
  // child has ended, its status as wait_passing_signals gives it, the child
  // left a zombie (its /proc files still there) until wait_passing_signals
  // reaps it; nullopt while it runs.
  virtual void pass_signals(pid_t pid) = 0;
  virtual void stop_passing_signals() = 0;
  virtual std::optional<int> try_wait(pid_t pid) = 0;
  // Runs a program to its end (systemctl): its exit status, 128+N for
  // signal N, or -errno where it could not be started (-ENOENT: not
  // installed).
  virtual int run_program(const std::vector<std::string>& argv) = 0;
  virtual pid_t own_pid() = 0;
};

// What affix itself may do. Used where another process refuses a move (pin,
// migrate: eperm_hint).
class CapabilityOs {
public:
  virtual ~CapabilityOs() = default;
  // Whether affix itself holds CAP_SYS_NICE (CapEff in /proc/self/status):
  // with it, the kernel lets it move anyone's threads, so an EPERM comes from
  // a security policy (a seccomp filter, an LSM), not from ownership.
  virtual bool has_cap_sys_nice() = 0;
};

// The hint for an EPERM from sched_setaffinity or migrate_pages on another
// process.
inline const char* eperm_hint(CapabilityOs& os) {
  return os.has_cap_sys_nice()
             ? "affix has CAP_SYS_NICE, so a security policy refused it: a seccomp filter or a "
               "security module (as in a container)"
             : "moving another user's process needs CAP_SYS_NICE";
}

// The real kernel: one object behind every interface above and SchedOs
// (sched.hpp) (os_linux.cpp).
// The commands (src/cli) hold it and pass each caller the parts it uses.
class LinuxOs : public AffinityOs,
                public MemPolicyOs,
                public WeightsOs,
                public PagesOs,
                public TaskOs,
                public Clock,
                public ExecOs,
                public ChildOs,
                public CapabilityOs,
                public SchedOs {
protected:
  LinuxOs() = default;
};
LinuxOs& linux_os();

}  // namespace affix
