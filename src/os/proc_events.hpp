#pragma once
// The kernel's process events connector (netlink NETLINK_CONNECTOR, group
// CN_IDX_PROC): one message for every fork, thread creation, exec and exit
// on the machine, sent by the kernel once the new task is visible in /proc
// (proc_fork_connector, at the end of copy_process). Subscribing needs
// CAP_NET_ADMIN, affix in the initial network namespace (the connector
// lives there only) and in the initial PID namespace (the events carry the
// kernel's global IDs); where any is missing, open() says why and the
// caller goes on without events.
//
// Used by `pin --tree` (pin.cpp: a fork by a thread affix moved, ended
// after the move, names its child; a thread that forked since was not
// inside a fork begun before) and by `apply --follow` (src/apply/
// follow_loop.*: forks, execs and comm changes of the whole machine).
//
// Also here: what /proc says of a thread being inside clone(2) now
// (CloneState), which pin reads where no event comes.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace affix {

struct ProcEvent {
  enum class Kind { Fork, Exec, Exit, Comm, Ack, Other };
  Kind kind = Kind::Other;
  uint64_t time_ns = 0;  // when the kernel sent it (CLOCK_MONOTONIC)
  // The CPU the kernel sent it from (proc_event.cpu). The kernel numbers
  // its events per CPU (cn_msg.seq, counted by each CPU from 0): a gap in
  // one CPU's numbers is events lost (apply --follow rescans).
  uint32_t cpu = 0;
  // Fork: the creator as the kernel names it (the new task's real parent:
  // for a process, the thread that forked it; for a thread, its process's
  // parent). Exec, Exit: the task itself.
  pid_t pid = 0, tgid = 0;
  pid_t child_pid = 0, child_tgid = 0;  // Fork: the new task (a process where they are equal)
  std::string comm;  // Comm: the task's new name (prctl(PR_SET_NAME), pthread_setname_np, exec)
  // Ack (the kernel's answer to a subscription, sent to every subscriber):
  // the errno it gives (0: subscribed), and the cn_msg's seq and ack (the
  // request's ack + 1, which tells whose it is; the seq is the request's
  // on some kernels, the kernel's own count on others). Every other kind:
  // seq is the kernel's number of it on its CPU (`cpu`).
  int error = 0;
  uint32_t seq = 0, ack = 0;
  bool new_process() const { return kind == Kind::Fork && child_pid == child_tgid; }
};

// Appends the events of one datagram read from the connector's socket
// (netlink messages, each a cn_msg of id {CN_IDX_PROC, CN_VAL_PROC}
// holding a proc_event). Messages of another kind, of another connector,
// or cut short are skipped; the kernel's acknowledgement of a subscription
// is Kind::Ack, any other event Kind::Other. Returns how many events it
// appended. A comm is cut at its first NUL (16 bytes at most).
size_t parse_proc_events(const void* data, size_t size, std::vector<ProcEvent>& out);

// One subscription (a socket): events from open() on.
class ProcEvents {
public:
  // Subscribes to every process event; nullptr where it cannot, with why
  // in `why` ("needs CAP_NET_ADMIN", ...).
  static std::unique_ptr<ProcEvents> open(std::string& why);
  ~ProcEvents();
  ProcEvents(const ProcEvents&) = delete;
  ProcEvents& operator=(const ProcEvents&) = delete;
  // Reads every event queued now, without waiting (64 datagrams a
  // recvmmsg). Only the kernel's: a datagram another process sent to this
  // socket (its sender's port is not 0) is dropped unread. False where the
  // kernel dropped some because the socket's buffer was full (ENOBUFS):
  // what was read is still true.
  bool drain(std::vector<ProcEvent>& out);
  // The socket, for poll(2) (readable: events queued).
  int fd() const { return m_fd; }
  // Doubles the socket's receive buffer, up to `limit` bytes (after an
  // ENOBUFS: the kernel dropped events the buffer had no room for).
  // Returns the size the kernel now gives it (what getsockopt says).
  int grow_buffer(int limit = 64 << 20);

private:
  explicit ProcEvents(int fd) : m_fd(fd) {}
  int m_fd;
};

// Whether a thread is inside clone(2), fork(2), vfork(2) or clone3(2) now.
enum class CloneState {
  Outside,  // gone, never run since it was created, or blocked in another call or outside any
  Inside,   // blocked inside one of them, before the new task is made
  Unknown,  // running or waiting for a CPU (the kernel does not say where), or unreadable
};

// What pin --tree asks of the operating system about forks.
class ForkWatchOs {
public:
  virtual ~ForkWatchOs() = default;
  // Subscribes to the process events connector; false with why where it cannot.
  virtual bool watch(std::string& why) = 0;
  // The events since the last call (none before watch()).
  virtual void events(std::vector<ProcEvent>& out) = 0;
  // The events' clock: CLOCK_MONOTONIC in nanoseconds.
  virtual uint64_t now_ns() = 0;
  // From /proc/PID/task/TID/syscall (the call a thread that is not running
  // is in) and its schedstat (whether it has run).
  virtual CloneState clone_state(pid_t pid, pid_t tid) = 0;
};

// The Linux one.
std::unique_ptr<ForkWatchOs> linux_fork_watch();

// The state from a syscall file's text ("56 0x... ...", "-1 0x...
// 0x...", "running"), where it could be read, and, for one inside a clone,
// its wchan file's (read after it): asleep in kernel_clone itself (older
// kernels: _do_fork, do_fork) and not in copy_process below it, the new
// task is made, and its creator only waits for it to exec or exit
// (vfork): outside.
CloneState clone_state_of(const std::string& syscall_text, const std::string& wchan_text = {});

}  // namespace affix
