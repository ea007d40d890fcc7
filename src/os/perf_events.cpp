// The cpu-migrations event of perf_event_open, per thread, each with its own
// mmap'd ring (see perf_events.hpp). The only file that calls
// perf_event_open. The probe's thread moves itself between two of affix's
// own CPUs through the AffinityOs it is given (os.hpp).
#include "perf_events.hpp"

#include <linux/perf_event.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

#include "os.hpp"
#include "sysroot.hpp"

namespace affix {

namespace {

// A sample as sample_type TID|TIME|CPU lays it out after its header.
struct SampleBody {
  uint32_t pid, tid;
  uint64_t time;
  uint32_t cpu, reserved;
};
constexpr size_t k_sample_size = sizeof(perf_event_header) + sizeof(SampleBody);

struct Ring {
  int fd = -1;
  char* base = nullptr;
  size_t length = 0;
  Drained pending;  // drained at a watermark, not yet taken
  bool ended = false;
};

size_t page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

int perf_open(pid_t tid, unsigned ring_pages) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_MIGRATIONS;
  attr.sample_period = 1;
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  // exclude_kernel stays 0: the event is raised from the scheduler, with
  // kernel registers; with exclude_kernel 1 it opens and counts nothing.
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<uint32_t>(ring_pages * page_size() / 2);
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// The first word of /proc/sys/kernel/perf_event_paranoid, or "unknown".
std::string paranoid_level() {
  std::optional<std::string> text;
  try {
    text = SysRoot().read("proc/sys/kernel/perf_event_paranoid");
  } catch (const std::exception&) {
  }
  std::string_view level = text ? trim_space(*text) : std::string_view();
  level = level.substr(0, level.find_first_of(" \t\n"));
  if (level.empty()) return "unknown";
  return std::string(level);
}

// Calls `each(header, record)` for every record between the ring's tail
// and its head (the record copied out, wrapped or not), then frees them.
// Returns false where the ring was full (the kernel drops what follows).
template <class Each>
bool read_ring(char* base, size_t record_room, Each each) {
  auto* page = reinterpret_cast<perf_event_mmap_page*>(base);
  uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = page->data_tail;
  const uint64_t size = page->data_size;
  const char* data = base + page->data_offset;
  bool room = head - tail + record_room <= size;
  char record[256];
  while (tail < head) {
    perf_event_header h;
    std::memcpy(&h, data + tail % size, sizeof h);  // 8-byte aligned: never wraps
    if (h.size < sizeof h) break;                   // not a record: stop here
    size_t n = std::min<size_t>(h.size, sizeof record);
    for (size_t i = 0; i < n; ++i) record[i] = data[(tail + i) % size];
    each(h, static_cast<const char*>(record), n);
    tail += h.size;
  }
  __atomic_store_n(&page->data_tail, head, __ATOMIC_RELEASE);
  return room;
}

// Copies every sample between the ring's tail and head into `pending`.
void drain(Ring& ring) {
  bool room = read_ring(ring.base, k_sample_size, [&](const perf_event_header& h, const char* record, size_t n) {
    if (h.type == PERF_RECORD_SAMPLE && n >= k_sample_size) {
      SampleBody body;
      std::memcpy(&body, record + sizeof h, sizeof body);
      ring.pending.samples.push_back(MigrationSample{body.time, body.cpu});
    } else if (h.type == PERF_RECORD_LOST) {
      ring.pending.overflowed = true;
    }
  });
  if (!room) ring.pending.overflowed = true;
}

// Waits on `epoll` until `deadline_ns` (CLOCK_MONOTONIC), calling `ready`
// for each event, with every signal unblocked while it sleeps (the caller
// blocks SIGINT/SIGTERM elsewhere). False where a signal interrupted it.
template <class Ready>
bool epoll_until(int epoll, uint64_t deadline_ns, Ready ready) {
  epoll_event events[64];
  for (;;) {
    uint64_t now = monotonic_ns();
    if (now >= deadline_ns) return true;
    int ms = static_cast<int>((deadline_ns - now + 999999) / 1000000);
    sigset_t none;  // signals the caller blocks are let in here only
    sigemptyset(&none);
    int n = epoll_pwait(epoll, events, 64, ms, &none);
    if (n < 0 && errno == EINTR) return false;
    if (n < 0) return true;
    for (int i = 0; i < n; ++i) ready(events[i]);
  }
}

class LinuxMigrationEvents final : public MigrationEvents {
public:
  explicit LinuxMigrationEvents(unsigned ring_pages)
    : m_pages(ring_pages), m_epoll(epoll_create1(EPOLL_CLOEXEC)) {}
  ~LinuxMigrationEvents() override {
    for (auto& [tid, ring] : m_rings) release(ring);
    if (m_epoll >= 0) ::close(m_epoll);
  }
  LinuxMigrationEvents(const LinuxMigrationEvents&) = delete;
  LinuxMigrationEvents& operator=(const LinuxMigrationEvents&) = delete;

  bool usable() const { return m_epoll >= 0; }
  int last_errno() const { return m_errno; }

  OpenResult open(pid_t tid) override {
    close(tid);
    int fd = perf_open(tid, m_pages);
    if (fd < 0) return failed(errno);
    if (!leaves_spare_files(fd)) {  // the thread is read by path instead
      ::close(fd);
      m_errno = EMFILE;
      return OpenResult::NoRoom;
    }
    Ring ring;
    ring.fd = fd;
    ring.length = (1 + m_pages) * page_size();
    void* base = mmap(nullptr, ring.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      m_errno = err;
      return OpenResult::NoRoom;  // EPERM beyond perf_event_mlock_kb, ENOMEM
    }
    ring.base = static_cast<char*>(base);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = static_cast<uint64_t>(tid);
    epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev);  // without it the ring is drained at intervals only
    m_rings.emplace(tid, ring);
    return OpenResult::Opened;
  }

  std::optional<EventTotals> totals(pid_t tid) override {
    auto it = m_rings.find(tid);
    if (it == m_rings.end()) return std::nullopt;
    uint64_t values[3] = {0, 0, 0};  // count, time enabled, time running
    if (::read(it->second.fd, values, sizeof values) != static_cast<ssize_t>(sizeof values))
      return std::nullopt;
    return EventTotals{values[0], values[2], it->second.ended};
  }

  Drained take(pid_t tid) override {
    auto it = m_rings.find(tid);
    if (it == m_rings.end()) return {};
    drain(it->second);
    Drained out = std::move(it->second.pending);
    it->second.pending = Drained{};
    return out;
  }

  void close(pid_t tid) override {
    auto it = m_rings.find(tid);
    if (it == m_rings.end()) return;
    release(it->second);
    m_rings.erase(it);
  }

  bool wait_until(uint64_t deadline_ns) override {
    return epoll_until(m_epoll, deadline_ns, [&](const epoll_event& event) {
      auto it = m_rings.find(static_cast<pid_t>(event.data.u64));
      if (it == m_rings.end()) return;
      drain(it->second);
      if (event.events & (EPOLLHUP | EPOLLERR)) {  // the thread exited
        it->second.ended = true;
        epoll_ctl(m_epoll, EPOLL_CTL_DEL, it->second.fd, nullptr);
      }
    });
  }

private:
  OpenResult failed(int err) {
    m_errno = err;
    if (err == ESRCH) return OpenResult::Gone;
    if (err == EMFILE || err == ENFILE || err == ENOMEM) return OpenResult::NoRoom;
    return OpenResult::Refused;
  }
  static void release(Ring& ring) {
    if (ring.base) munmap(ring.base, ring.length);
    if (ring.fd >= 0) ::close(ring.fd);
    ring.base = nullptr;
    ring.fd = -1;
  }

  unsigned m_pages;
  int m_epoll;
  int m_errno = 0;
  std::unordered_map<pid_t, Ring> m_rings;
};

bool move_self_to(AffinityOs& affinity, unsigned cpu) {
  return affinity.set_affinity(0, CpuSet::range(cpu, cpu)) == 0;
}

// A little CPU time on the calling thread: it runs, so an event open on it
// has a running time.
void spin_a_moment() {
  timespec t0, t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000);
}

// The probe: a thread of affix's own, with the event open, moves to one CPU
// it may use, then to another; the kernel must have counted the move. Where
// affix may use one CPU only, or may not move itself, no move can be made:
// the event must still open and, while the thread runs, be read back with a
// running time (a live event); else the counts are sampled. Returns "" where
// the events may be used, else why not.
std::string probe(AffinityOs& affinity, LinuxMigrationEvents& events) {
  CpuSet mine;
  int a = -1, b = -1;
  if (affinity.get_affinity(0, mine) == 0 && !mine.empty()) {
    a = static_cast<int>(mine.first());
    if (auto next = mine.next(mine.first())) b = static_cast<int>(*next);
  }
  std::atomic<pid_t> tid{0};
  std::atomic<int> stage{0};  // 0 wait, 1 move, 2 moved, 3 could not move
  std::thread mover([&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    tid.notify_one();
    stage.wait(0);
    bool moved = b >= 0 && move_self_to(affinity, static_cast<unsigned>(a)) &&
                 move_self_to(affinity, static_cast<unsigned>(b));
    spin_a_moment();
    stage = moved ? 2 : 3;
  });
  tid.wait(0);
  OpenResult opened = events.open(tid);
  stage = 1;
  stage.notify_one();
  mover.join();
  if (opened != OpenResult::Opened) {
    return fmt::format("perf_event_open: {} (kernel.perf_event_paranoid = {})",
                       std::strerror(events.last_errno()), paranoid_level());
  }
  auto totals = events.totals(tid);
  auto drained = events.take(tid);
  events.close(tid);
  if (stage == 3) {  // no move to count: the event is live, or it is not used
    if (!totals || totals->run_ns == 0) return "the cpu-migrations event opens but never runs here";
    return {};
  }
  if (!totals || totals->count == 0 || drained.samples.empty())
    return "the cpu-migrations event opens but counts nothing here";
  return {};
}

// A switch record's body as sample_id_all with TID|TIME|CPU lays it out.
struct SwitchBody {
  uint32_t next_prev_pid, next_prev_tid;
  uint32_t pid, tid;
  uint64_t time;
  uint32_t cpu, reserved;
};
constexpr size_t k_switch_size = sizeof(perf_event_header) + sizeof(SwitchBody);

int perf_open_switches(unsigned cpu, unsigned ring_pages) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
  attr.sample_id_all = 1;
  attr.context_switch = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<uint32_t>(ring_pages * page_size() / 2);
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, -1, static_cast<int>(cpu), -1, PERF_FLAG_FD_CLOEXEC));
}

class LinuxSwitchEvents final : public SwitchEvents {
public:
  explicit LinuxSwitchEvents(unsigned ring_pages) : m_pages(ring_pages), m_epoll(epoll_create1(EPOLL_CLOEXEC)) {}
  ~LinuxSwitchEvents() override {
    for (CpuRing& r : m_rings) {
      if (r.base) munmap(r.base, r.length);
      if (r.fd >= 0) ::close(r.fd);
    }
    if (m_epoll >= 0) ::close(m_epoll);
  }
  LinuxSwitchEvents(const LinuxSwitchEvents&) = delete;
  LinuxSwitchEvents& operator=(const LinuxSwitchEvents&) = delete;

  // "" where it opened, else why not.
  std::string open(unsigned cpu) {
    if (m_epoll < 0) return fmt::format("epoll_create1: {}", std::strerror(errno));
    CpuRing r;
    r.fd = perf_open_switches(cpu, m_pages);
    if (r.fd < 0)
      return fmt::format("perf_event_open: {} (kernel.perf_event_paranoid = {})", std::strerror(errno),
                         paranoid_level());
    r.length = (1 + m_pages) * page_size();
    void* base = mmap(nullptr, r.length, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
    if (base == MAP_FAILED) {
      int err = errno;
      ::close(r.fd);
      return fmt::format("mmap of the CPU {} ring: {}", cpu, std::strerror(err));
    }
    r.base = static_cast<char*>(base);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = m_rings.size();
    epoll_ctl(m_epoll, EPOLL_CTL_ADD, r.fd, &ev);  // without it the ring is drained at take() only
    m_rings.push_back(r);
    return {};
  }

  bool take(std::vector<SwitchRecord>& out) override {
    bool whole = true;
    for (CpuRing& r : m_rings) {
      drain(r);
      whole = whole && !r.lost;
      out.insert(out.end(), r.pending.begin(), r.pending.end());
      r.pending.clear();
      r.lost = false;
    }
    return whole;
  }

  bool wait_until(uint64_t deadline_ns) override {
    return epoll_until(m_epoll, deadline_ns, [&](const epoll_event& event) {
      if (event.data.u64 < m_rings.size()) drain(m_rings[event.data.u64]);
    });
  }

private:
  struct CpuRing {
    int fd = -1;
    char* base = nullptr;
    size_t length = 0;
    std::vector<SwitchRecord> pending;
    bool lost = false;
  };
  static void drain(CpuRing& r) {
    bool room = read_ring(r.base, k_switch_size, [&](const perf_event_header& h, const char* record, size_t n) {
      if (h.type == PERF_RECORD_SWITCH_CPU_WIDE && n >= k_switch_size) {
        SwitchBody body;
        std::memcpy(&body, record + sizeof h, sizeof body);
        r.pending.push_back(SwitchRecord{body.time, body.cpu, (h.misc & PERF_RECORD_MISC_SWITCH_OUT) != 0,
                                         static_cast<pid_t>(body.pid), static_cast<pid_t>(body.tid)});
      } else if (h.type == PERF_RECORD_LOST) {
        r.lost = true;
      }
    });
    if (!room) r.lost = true;
  }

  unsigned m_pages;
  int m_epoll;
  std::vector<CpuRing> m_rings;
};

}  // namespace

std::unique_ptr<SwitchEvents> open_switch_events(const std::vector<unsigned>& cpus, unsigned ring_pages,
                                                 std::string& why_not) {
  auto events = std::make_unique<LinuxSwitchEvents>(ring_pages);
  for (unsigned cpu : cpus) {
    why_not = events->open(cpu);
    if (!why_not.empty()) return nullptr;
  }
  return events;
}

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

std::unique_ptr<MigrationEvents> open_migration_events(AffinityOs& affinity, unsigned ring_pages,
                                                       std::string& why_not) {
  auto events = std::make_unique<LinuxMigrationEvents>(ring_pages);
  if (!events->usable()) {
    why_not = fmt::format("epoll_create1: {}", std::strerror(errno));
    return nullptr;
  }
  why_not = probe(affinity, *events);
  if (!why_not.empty()) return nullptr;
  return events;
}

}  // namespace affix
