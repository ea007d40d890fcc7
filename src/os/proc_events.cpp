#include "proc_events.hpp"

#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace affix {

namespace {

template <class T>
T load(const unsigned char* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

constexpr size_t k_nlmsg_header = 16;  // struct nlmsghdr
constexpr size_t k_cn_header = 20;     // struct cn_msg, before its data
constexpr size_t k_event_header = 16;  // struct proc_event: what, cpu, timestamp_ns

// proc_event's `what` (linux/cn_proc.h; an enum inside the struct in C++).
constexpr uint32_t k_fork = proc_event::PROC_EVENT_FORK;
constexpr uint32_t k_exec = proc_event::PROC_EVENT_EXEC;
constexpr uint32_t k_exit = proc_event::PROC_EVENT_EXIT;
constexpr uint32_t k_comm = proc_event::PROC_EVENT_COMM;
constexpr uint32_t k_none = proc_event::PROC_EVENT_NONE;  // an acknowledgement

// PROC_PID_INIT_INO: the inode of the initial PID namespace (include/linux/proc_ns.h).
constexpr unsigned long k_init_pid_ns = 0xEFFFFFFCUL;

// Datagrams one recvmmsg(2) takes, and the room for each: a proc_event
// message is under 100 bytes (a longer one is cut, MSG_TRUNC, and
// parse_proc_events skips it).
constexpr unsigned k_batch = 64;
constexpr size_t k_slot = 512;

// Reads the datagrams queued on `fd` now, k_batch at a call, and parses
// those the kernel sent (the sender's port is 0): any process may send to
// this socket's port, and a forged fork or exec would have a root
// follower move what it names. false where the kernel dropped some
// (ENOBUFS); what was read is still appended.
bool receive(int fd, std::vector<ProcEvent>& out) {
  bool whole = true;
  alignas(8) static thread_local unsigned char slots[k_batch][k_slot];
  for (;;) {
    mmsghdr msgs[k_batch];
    iovec iov[k_batch];
    sockaddr_nl from[k_batch];
    std::memset(msgs, 0, sizeof msgs);
    for (unsigned i = 0; i < k_batch; ++i) {
      iov[i] = iovec{slots[i], k_slot};
      msgs[i].msg_hdr.msg_iov = &iov[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
      msgs[i].msg_hdr.msg_name = &from[i];
      msgs[i].msg_hdr.msg_namelen = sizeof from[i];
    }
    int n = recvmmsg(fd, msgs, k_batch, MSG_DONTWAIT, nullptr);
    if (n < 0) {
      if (errno == ENOBUFS) {
        whole = false;
        continue;
      }
      if (errno == EINTR) continue;
      return whole;
    }
    for (int i = 0; i < n; ++i) {
      const msghdr& h = msgs[i].msg_hdr;
      if (h.msg_namelen < sizeof(sockaddr_nl) || from[i].nl_family != AF_NETLINK || from[i].nl_pid != 0) continue;
      parse_proc_events(slots[i], std::min<size_t>(msgs[i].msg_len, k_slot), out);
    }
    if (n < static_cast<int>(k_batch)) return whole;  // all there was
  }
}

}  // namespace

size_t parse_proc_events(const void* data, size_t size, std::vector<ProcEvent>& out) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  size_t appended = 0;
  size_t at = 0;
  while (size - at >= k_nlmsg_header) {
    const unsigned char* msg = bytes + at;
    const auto len = load<uint32_t>(msg);
    const auto type = load<uint16_t>(msg + 4);
    if (len < k_nlmsg_header || len > size - at) break;  // cut short: nothing after it can be trusted
    const size_t next = (static_cast<size_t>(len) + 3) & ~size_t{3};
    at = next > size - at ? size : at + next;
    if (type != NLMSG_DONE && type < NLMSG_MIN_TYPE) continue;  // noop, error, overrun
    const unsigned char* cn = msg + k_nlmsg_header;
    const size_t cn_room = len - k_nlmsg_header;
    if (cn_room < k_cn_header) continue;
    if (load<uint32_t>(cn) != CN_IDX_PROC || load<uint32_t>(cn + 4) != CN_VAL_PROC) continue;
    const size_t data_len = load<uint16_t>(cn + 16);
    if (data_len > cn_room - k_cn_header || data_len < k_event_header) continue;
    const unsigned char* ev = cn + k_cn_header;
    ProcEvent e;
    const auto what = load<uint32_t>(ev);
    e.cpu = load<uint32_t>(ev + 4);
    e.time_ns = load<uint64_t>(ev + 8);
    e.seq = load<uint32_t>(cn + 8);
    const unsigned char* body = ev + k_event_header;
    const size_t body_len = data_len - k_event_header;
    auto id = [&](size_t i) { return static_cast<pid_t>(load<int32_t>(body + 4 * i)); };
    if (what == k_fork && body_len >= 16) {
      e.kind = ProcEvent::Kind::Fork;
      e.pid = id(0), e.tgid = id(1), e.child_pid = id(2), e.child_tgid = id(3);
    } else if ((what == k_exec || what == k_exit) && body_len >= 8) {
      e.kind = what == k_exec ? ProcEvent::Kind::Exec : ProcEvent::Kind::Exit;
      e.pid = id(0), e.tgid = id(1);
    } else if (what == k_comm && body_len >= 8) {
      e.kind = ProcEvent::Kind::Comm;
      e.pid = id(0), e.tgid = id(1);
      const auto* name = reinterpret_cast<const char*>(body + 8);
      const size_t room = std::min<size_t>(body_len - 8, 16);
      e.comm.assign(name, strnlen(name, room));
    } else if (what == k_none && body_len >= 4) {
      e.kind = ProcEvent::Kind::Ack;
      e.error = static_cast<int>(load<uint32_t>(body));
      e.ack = load<uint32_t>(cn + 12);
    } else if (what == k_fork || what == k_exec || what == k_exit || what == k_none || what == k_comm) {
      continue;  // too short for what it says it is
    }
    out.push_back(e);
    ++appended;
  }
  return appended;
}

namespace {

// Sends one PROC_CN_MCAST_* operation to the kernel's connector, with
// `seq` and `ack` for its acknowledgement to echo (ack + 1).
int send_op(int fd, uint32_t op, uint32_t seq = 0, uint32_t ack = 0) {
  unsigned char buf[k_nlmsg_header + k_cn_header + sizeof(uint32_t)] = {};
  nlmsghdr nl{};
  nl.nlmsg_len = sizeof buf;
  nl.nlmsg_type = NLMSG_DONE;
  nl.nlmsg_pid = 0;  // the kernel fills in the socket's port
  std::memcpy(buf, &nl, sizeof nl);
  cn_msg cn{};
  cn.id.idx = CN_IDX_PROC;
  cn.id.val = CN_VAL_PROC;
  cn.len = sizeof(uint32_t);
  cn.seq = seq;
  cn.ack = ack;
  std::memcpy(buf + k_nlmsg_header, &cn, k_cn_header);
  std::memcpy(buf + k_nlmsg_header + k_cn_header, &op, sizeof op);
  sockaddr_nl to{};
  to.nl_family = AF_NETLINK;
  if (sendto(fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0) return errno;
  return 0;
}

uint64_t now_ns_of_clock() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

std::unique_ptr<ProcEvents> ProcEvents::open(std::string& why) {
  struct stat ns{};
  if (stat("/proc/self/ns/pid", &ns) == 0 && ns.st_ino != k_init_pid_ns) {
    why = "affix runs in a PID namespace of its own, and the events name the kernel's process IDs";
    return nullptr;
  }
  int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
  if (fd < 0) {
    why = fmt::format("no process events connector: {}", std::strerror(errno));
    return nullptr;
  }
  std::unique_ptr<ProcEvents> events(new ProcEvents(fd));
  // Room for a burst of events (forks on every CPU of a busy machine);
  // beyond the administrator's limit only with CAP_NET_ADMIN (which
  // subscribing needs anyway).
  int room = 4 << 20;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &room, sizeof room) != 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &room, sizeof room);
  sockaddr_nl me{};
  me.nl_family = AF_NETLINK;
  me.nl_groups = CN_IDX_PROC;
  if (bind(fd, reinterpret_cast<sockaddr*>(&me), sizeof me) != 0) {
    int err = errno;
    why = err == EPERM ? "subscribing to the process events connector needs CAP_NET_ADMIN"
                       : fmt::format("cannot subscribe to the process events connector: {}", std::strerror(err));
    return nullptr;
  }
  // Whose acknowledgement it is: every subscriber gets each one.
  const auto seq = static_cast<uint32_t>(getpid());
  const auto ack = static_cast<uint32_t>((now_ns_of_clock() ^ (uint64_t{seq} << 16)) & 0x7fffffffU);
  if (int err = send_op(fd, PROC_CN_MCAST_LISTEN, seq, ack); err != 0) {
    why = err == ECONNREFUSED ? "no process events connector in affix's network namespace"
                              : fmt::format("cannot subscribe to the process events connector: {}", std::strerror(err));
    return nullptr;
  }
  // The kernel acknowledges the subscription with an event of its own
  // (PROC_EVENT_NONE) before it returns from the send; other events may
  // come first.
  std::vector<ProcEvent> seen;
  for (int waited = 0; waited < 100; waited += 10) {
    seen.clear();
    receive(fd, seen);  // a full buffer lost others' events, not the answer (sent to us last)
    for (const auto& e : seen) {
      if (e.kind != ProcEvent::Kind::Ack || e.ack != ack + 1) continue;  // (Linux 6.x numbers seq itself)
      if (e.error == 0) return events;
      why = e.error == EPERM ? "the kernel refused the process events subscription: it needs CAP_NET_ADMIN in the "
                               "initial user namespace"
                             : fmt::format("the kernel refused the process events subscription: {}",
                                           std::strerror(e.error));
      return nullptr;
    }
    pollfd p{fd, POLLIN, 0};
    poll(&p, 1, 10);
  }
  why = "the process events connector did not answer (the kernel may be built without CONFIG_PROC_EVENTS)";
  return nullptr;
}

ProcEvents::~ProcEvents() {
  // The kernel counts the subscriptions and sends events while any is left.
  send_op(m_fd, PROC_CN_MCAST_IGNORE);
  close(m_fd);
}

bool ProcEvents::drain(std::vector<ProcEvent>& out) { return receive(m_fd, out); }

int ProcEvents::grow_buffer(int limit) {
  int now = 0;
  socklen_t len = sizeof now;
  getsockopt(m_fd, SOL_SOCKET, SO_RCVBUF, &now, &len);
  // The kernel reports twice what was asked (its bookkeeping): ask for the
  // double of half of it.
  int want = std::min(limit, std::max(now, 1 << 20));
  if (setsockopt(m_fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof want) != 0)
    setsockopt(m_fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof want);
  len = sizeof now;
  getsockopt(m_fd, SOL_SOCKET, SO_RCVBUF, &now, &len);
  return now;
}

CloneState clone_state_of(const std::string& text, const std::string& wchan) {
  std::istringstream in(text);
  std::string first;
  if (!(in >> first) || first == "running") return CloneState::Unknown;
  char* end = nullptr;
  long nr = std::strtol(first.c_str(), &end, 10);
  if (end == first.c_str() || *end != '\0') return CloneState::Unknown;
  switch (nr) {
#ifdef SYS_clone
    case SYS_clone:
#endif
#ifdef SYS_fork
    case SYS_fork:
#endif
#ifdef SYS_vfork
    case SYS_vfork:
#endif
#ifdef SYS_clone3
    case SYS_clone3:
#endif
      break;
    default: return CloneState::Outside;  // another call, or -1: none
  }
  std::istringstream w(wchan);
  std::string where;
  w >> where;
  return where == "kernel_clone" || where == "_do_fork" || where == "do_fork" ? CloneState::Outside
                                                                              : CloneState::Inside;
}

namespace {

class LinuxForkWatch final : public ForkWatchOs {
public:
  bool watch(std::string& why) override {
    m_events = ProcEvents::open(why);
    return m_events != nullptr;
  }

  void events(std::vector<ProcEvent>& out) override {
    if (m_events) m_events->drain(out);  // lost ones are only proofs not had
  }

  uint64_t now_ns() override { return now_ns_of_clock(); }

  CloneState clone_state(pid_t pid, pid_t tid) override {
    const std::string dir = fmt::format("/proc/{}/task/{}/", pid, tid);
    // Never run since it was created: it cannot have begun a clone (its
    // registers, copied from its creator's, still name the creator's call).
    // Only where the kernel keeps these counts (it does for affix itself).
    if (counts_kept()) {
      std::ifstream st(dir + "schedstat");
      unsigned long long run = 0, wait = 0, slices = 0;
      if (st >> run >> wait >> slices && run == 0 && slices == 0) return CloneState::Outside;
    }
    int fd = ::open((dir + "syscall").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT || errno == ESRCH ? CloneState::Outside : CloneState::Unknown;
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    int err = errno;
    close(fd);
    if (n < 0) return err == ESRCH ? CloneState::Outside : CloneState::Unknown;
    std::string text(buf, static_cast<size_t>(n));
    if (clone_state_of(text) != CloneState::Inside) return clone_state_of(text);
    std::ifstream wchan(dir + "wchan");
    std::string where;
    std::getline(wchan, where);
    return clone_state_of(text, where);
  }

private:
  bool counts_kept() {
    if (m_counts < 0) {
      std::ifstream st("/proc/thread-self/schedstat");
      unsigned long long run = 0, wait = 0, slices = 0;
      m_counts = st >> run >> wait >> slices && (run != 0 || slices != 0) ? 1 : 0;
    }
    return m_counts == 1;
  }

  std::unique_ptr<ProcEvents> m_events;
  int m_counts = -1;
};

}  // namespace

std::unique_ptr<ForkWatchOs> linux_fork_watch() { return std::make_unique<LinuxForkWatch>(); }

}  // namespace affix
