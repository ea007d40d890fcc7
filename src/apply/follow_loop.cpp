#include "follow_loop.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "error.hpp"

namespace affix {

uint64_t follow_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

void systemd_notify(const char* state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  if (!path || (path[0] != '/' && path[0] != '@') || std::strlen(path) >= sizeof(sockaddr_un::sun_path)) return;
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  sockaddr_un to{};
  to.sun_family = AF_UNIX;
  const size_t len = std::strlen(path);
  std::memcpy(to.sun_path, path, len);
  if (to.sun_path[0] == '@') to.sun_path[0] = '\0';  // an abstract socket
  sendto(fd, state, std::strlen(state), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&to),
         static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + len));
  close(fd);
}

namespace {

constexpr uint64_t k_coalesce_ns = 10000000;  // 10 ms

class ConnectorSource final : public FollowSource {
public:
  explicit ConnectorSource(std::unique_ptr<ProcEvents> events) : m_events(std::move(events)) {}
  int fd() const override { return m_events->fd(); }
  bool drain(std::vector<ProcEvent>& out) override { return m_events->drain(out); }
  int grow() override { return m_events->grow_buffer(); }

private:
  std::unique_ptr<ProcEvents> m_events;
};

}  // namespace

std::unique_ptr<FollowSource> connector_source(std::unique_ptr<ProcEvents> events) {
  return std::make_unique<ConnectorSource>(std::move(events));
}

FollowLoop::FollowLoop(FollowHandler& handler, std::unique_ptr<FollowSource> source, FollowOptions options)
    : m_handler(handler), m_source(std::move(source)), m_options(options) {
  if (m_options.tick_ms == 0) m_options.tick_ms = 1000;
  if (m_options.poll_ms == 0) m_options.poll_ms = 1000;
}

void FollowLoop::scan() {
  m_scan_due = false;
  ++m_stats.scans;
  m_handler.scan();
}

void FollowLoop::placed(pid_t pid, std::optional<unsigned long long> start_time) {
  if (start_time)
    m_placed[pid] = Placed{*start_time, follow_now_ns()};
  else
    m_placed.erase(pid);
}

const FollowLoop::Placed* FollowLoop::placement(pid_t pid) {
  auto it = m_placed.find(pid);
  if (it == m_placed.end()) return nullptr;
  auto now = m_handler.start_time(pid);
  if (!now || *now != it->second.start_time) {  // gone, or another process under its PID
    m_placed.erase(it);
    return nullptr;
  }
  return &it->second;
}

void FollowLoop::handle(const std::vector<ProcEvent>& events, bool whole) {
  if (!whole) {
    ++m_stats.overruns;
    m_stats.buffer_bytes = m_source ? m_source->grow() : 0;
    m_handler.note(fmt::format(
        "the kernel dropped process events (its socket's buffer was full): buffer now {} KiB, every process "
        "scanned again",
        m_stats.buffer_bytes / 1024));
    m_scan_due = true;
  }
  // An exec renames the process (COMM) before its EXEC event is sent:
  // one look at it, at the exec, where both are in the batch.
  std::vector<pid_t> execs;
  for (const auto& e : events)
    if (e.kind == ProcEvent::Kind::Exec) execs.push_back(e.tgid);
  std::sort(execs.begin(), execs.end());
  for (const auto& e : events) {
    if (e.kind == ProcEvent::Kind::Ack) continue;
    ++m_stats.events;
    // Gaps in this CPU's numbers: events the kernel did not deliver.
    auto next = m_next_seq.find(e.cpu);
    if (next != m_next_seq.end() && e.seq != next->second) {
      ++m_stats.gaps;
      if (!m_scan_due)
        m_handler.note(fmt::format("process events lost (CPU {}: event {} came where {} was due): every process "
                                   "scanned again",
                                   e.cpu, e.seq, next->second));
      m_scan_due = true;
    }
    m_next_seq[e.cpu] = e.seq + 1;
    switch (e.kind) {
      case ProcEvent::Kind::Fork: {
        const pid_t parent = e.tgid, child = e.child_tgid;
        const Placed* p = placement(parent);
        if (!p) break;  // its parent is placed by no rule: nor is it (see the header)
        if (!e.new_process()) {  // a thread of a placed process
          m_handler.thread(child, e.child_pid);
          break;
        }
        if (e.time_ns < p->at_ns) {  // forked before its parent was placed: it has the old placement
          auto got = m_handler.inherit(child, parent);
          if (got) ++m_stats.inherited;
          placed(child, got);
        } else if (auto st = m_handler.start_time(child)) {
          // Placed by the kernel (inherited at the fork); remembered for its own children.
          m_placed[child] = Placed{*st, e.time_ns};
        }
        break;
      }
      case ProcEvent::Kind::Exec: placed(e.tgid, m_handler.process(e.tgid, e.time_ns)); break;
      case ProcEvent::Kind::Comm:
        if (e.pid == e.tgid) {
          if (!std::binary_search(execs.begin(), execs.end(), e.tgid))
            placed(e.tgid, m_handler.process(e.tgid, e.time_ns));
        }
        else if (placement(e.tgid))
          m_handler.thread(e.tgid, e.pid);
        break;
      case ProcEvent::Kind::Exit:
        if (e.pid == e.tgid) {
          m_placed.erase(e.tgid);
          m_handler.gone(e.tgid);
        }
        break;
      default: break;
    }
  }
}

void FollowLoop::on_signal(int signo, bool& stop) {
  if (signo == SIGTERM || signo == SIGINT) {
    systemd_notify("STOPPING=1");
    stop = true;
    return;
  }
  if (signo == SIGHUP) {
    systemd_notify("RELOADING=1");
    const bool taken = m_handler.reload();
    systemd_notify("READY=1");
    if (taken) {
      ++m_stats.reloads;
      m_placed.clear();  // the new rules decide afresh
      m_scan_due = true;
    } else {
      ++m_stats.reload_errors;
    }
  }
}

int FollowLoop::run(int signal_fd) {
  scan();
  systemd_notify("READY=1");
  uint64_t next_tick = follow_now_ns() + uint64_t{m_options.tick_ms} * 1000000;
  uint64_t next_poll = follow_now_ns() + uint64_t{m_options.poll_ms} * 1000000;
  std::vector<ProcEvent> events;
  for (;;) {
    uint64_t now = follow_now_ns();
    uint64_t due = next_tick;
    if (!m_source && next_poll < due) due = next_poll;
    int wait_ms = due > now ? static_cast<int>((due - now + 999999) / 1000000) : 0;
    pollfd fds[2] = {{signal_fd, POLLIN, 0}, {m_source ? m_source->fd() : -1, POLLIN, 0}};
    int n = poll(fds, 2, wait_ms);
    if (n < 0 && errno != EINTR) throw Error(ErrorKind::Runtime, fmt::format("poll: {}", std::strerror(errno)));
    // Events first, then one signal: what came before a SIGTERM is handled.
    if (n > 0 && m_source && (fds[1].revents & (POLLIN | POLLERR))) {
      events.clear();
      bool whole = m_source->drain(events);
      handle(events, whole);
      // Events come one by one (a fork, a rename, an exec and an exit for
      // every command a shell runs): waking for each costs more than the
      // event. A pause after each batch lets the next ones queue and be
      // read together (at 1,000 execs a second, a dozen a wake-up), for
      // at most k_coalesce_ns more delay.
      if (!events.empty()) {
        timespec pause{0, static_cast<long>(k_coalesce_ns)};
        nanosleep(&pause, nullptr);
      }
    }
    if (n > 0 && (fds[0].revents & POLLIN)) {
      signalfd_siginfo si{};
      bool stop = false;
      ssize_t got = read(signal_fd, &si, sizeof si);
      if (got == static_cast<ssize_t>(sizeof si)) on_signal(static_cast<int>(si.ssi_signo), stop);
      if (stop) return static_cast<int>(si.ssi_signo);
    }
    if (m_scan_due) scan();
    now = follow_now_ns();
    if (!m_source && now >= next_poll) {
      scan();
      next_poll = now + uint64_t{m_options.poll_ms} * 1000000;
    }
    if (now >= next_tick) {
      m_handler.tick();
      next_tick = now + uint64_t{m_options.tick_ms} * 1000000;
    }
  }
}

int follow_signal_fd() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0)
    throw Error(ErrorKind::Runtime, "cannot block SIGHUP, SIGTERM and SIGINT");
  int fd = signalfd(-1, &set, SFD_CLOEXEC);
  if (fd < 0) throw Error(ErrorKind::Runtime, fmt::format("signalfd: {}", std::strerror(errno)));
  return fd;
}

}  // namespace affix
