// The only file that talks to the kernel's scheduler and memory-policy calls.
#include <dirent.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>
#include <thread>

#include "os.hpp"

namespace affix {

const char* mem_policy_name(MemPolicy policy) {
  switch (policy) {
    case MemPolicy::Bind: return "bind";
    case MemPolicy::Preferred: return "preferred";
    case MemPolicy::Interleave: return "interleave";
    case MemPolicy::Local: return "local";
  }
  return "?";
}

namespace {

// Kernel masks are arrays of unsigned long; size them to cover the set and
// at least the kernel's own size.
std::vector<unsigned long> to_mask(const CpuSet& set, size_t min_bits) {
  size_t bits = std::max<size_t>(set.end(), min_bits);
  std::vector<unsigned long> mask((bits + 63) / 64 + 1, 0);
  set.for_each([&](unsigned i) { mask[i / 64] |= 1ul << (i % 64); });
  return mask;
}

// Where an unsigned long is 64 bits, a kernel mask and CpuSet::words() have
// the same layout.
constexpr bool k_words_are_longs = sizeof(unsigned long) == sizeof(uint64_t);

class LinuxOs final : public Os {
public:
  int set_affinity(pid_t tid, const CpuSet& cpus) override {
    // The kernel reads as many bytes as it is given, up to its own size, and
    // clears the rest: the set's own words will do, without a copy.
    if (k_words_are_longs && !cpus.empty()) {
      const auto& words = cpus.words();
      if (syscall(SYS_sched_setaffinity, tid, words.size() * sizeof(uint64_t), words.data()) != 0)
        return errno;
      return 0;
    }
    auto mask = to_mask(cpus, 8192);
    if (sched_setaffinity(tid, mask.size() * sizeof(unsigned long),
                          reinterpret_cast<cpu_set_t*>(mask.data())) != 0)
      return errno;
    return 0;
  }

  // pin reads every thread's list on every pass, so this keeps one buffer of
  // the kernel's own mask size (the raw call returns it; the first call finds
  // it, growing from 8192 bits while the kernel says EINVAL) and turns it
  // into a set word by word.
  int get_affinity(pid_t tid, CpuSet& out) override {
    if (m_mask_bytes == 0) {
      for (size_t bits = 8192; bits <= (1u << 20); bits *= 4) {
        m_mask.assign(bits / 64, 0);
        long r = syscall(SYS_sched_getaffinity, tid, m_mask.size() * sizeof(unsigned long), m_mask.data());
        if (r > 0) {
          m_mask_bytes = static_cast<size_t>(r);
          m_mask.resize((m_mask_bytes + sizeof(unsigned long) - 1) / sizeof(unsigned long));
          return mask_to_set(out);
        }
        if (errno != EINVAL) return errno;
      }
      m_mask.clear();
      return EINVAL;
    }
    if (syscall(SYS_sched_getaffinity, tid, m_mask_bytes, m_mask.data()) < 0) return errno;
    return mask_to_set(out);
  }

  // pin's check passes read every thread's list; at thousands of threads
  // that is kernel time (a cache-cold task each) that splits well across
  // the CPUs affix may use: one worker per 1000 threads, each with its own
  // buffer. A worker that cannot be started (RLIMIT_NPROC, say) leaves its
  // share to the caller.
  void check_affinities(const std::vector<pid_t>& tids, const std::vector<const CpuSet*>& want,
                        std::vector<int>& result) override {
    const size_t n = tids.size();
    if (m_mask_bytes == 0 || !k_words_are_longs || n < 2 * k_threads_per_worker) {
      Os::check_affinities(tids, want, result);
      return;
    }
    result.assign(n, 0);
    in_parallel(n, [&](size_t begin, size_t end) { check_range(tids, want, result, begin, end); });
  }

  // pin's first pass over a large process, split the same way.
  void move_affinities(const std::vector<pid_t>& tids, const std::vector<const CpuSet*>& want,
                       std::vector<AffinityMove>& out) override {
    const size_t n = tids.size();
    if (m_mask_bytes == 0 && n >= 2 * k_threads_per_worker) {
      CpuSet self;
      get_affinity(0, self);  // learns the kernel's mask size
    }
    if (m_mask_bytes == 0 || !k_words_are_longs || n < 2 * k_threads_per_worker) {
      Os::move_affinities(tids, want, out);
      return;
    }
    out.assign(n, AffinityMove{});
    in_parallel(n, [&](size_t begin, size_t end) { move_range(tids, want, out, begin, end); });
  }

  int set_mempolicy(MemPolicy policy, const CpuSet& nodes) override {
    int mode = MPOL_DEFAULT;
    switch (policy) {
      case MemPolicy::Bind: mode = MPOL_BIND; break;
      case MemPolicy::Preferred: mode = MPOL_PREFERRED; break;
      case MemPolicy::Interleave: mode = MPOL_INTERLEAVE; break;
      case MemPolicy::Local: mode = MPOL_LOCAL; break;
    }
    if (policy == MemPolicy::Local) {
      if (syscall(SYS_set_mempolicy, mode, nullptr, 0) != 0) return errno;
      return 0;
    }
    auto mask = to_mask(nodes, 1024);
    if (syscall(SYS_set_mempolicy, mode, mask.data(), mask.size() * 64 + 1) != 0) return errno;
    return 0;
  }

  int migrate_pages(pid_t pid, const CpuSet& from, const CpuSet& to, long& not_moved) override {
    auto a = to_mask(from, 1024);
    auto b = to_mask(to, 1024);
    size_t n = std::max(a.size(), b.size());
    a.resize(n, 0);
    b.resize(n, 0);
    long r = syscall(SYS_migrate_pages, pid, n * 64 + 1, a.data(), b.data());
    if (r < 0) return errno;
    not_moved = r;
    return 0;
  }

  // getdents64 with one large buffer, kept between calls: pin lists a
  // process's threads on every pass, and readdir's 32 KiB buffer takes a
  // dozen calls for 10,000 threads.
  int list_threads(pid_t pid, std::vector<pid_t>& out) override {
    out.clear();
    std::string dir = "/proc/" + std::to_string(pid) + "/task";
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? ESRCH : errno;
    m_dirents.resize(256 * 1024);
    int err = 0;
    for (;;) {
      ssize_t n = getdents64(fd, m_dirents.data(), m_dirents.size());
      if (n < 0) {
        err = errno;
        break;
      }
      if (n == 0) break;
      for (ssize_t off = 0; off < n;) {
        const auto* e = reinterpret_cast<const dirent64*>(m_dirents.data() + off);
        off += e->d_reclen;
        pid_t tid = 0;
        const char* c = e->d_name;
        if (*c < '0' || *c > '9') continue;
        for (; *c >= '0' && *c <= '9'; ++c) tid = tid * 10 + (*c - '0');
        out.push_back(tid);
      }
    }
    ::close(fd);
    if (err != 0) return err == ENOENT ? ESRCH : err;
    std::sort(out.begin(), out.end());
    return 0;
  }

  int thread_count(pid_t pid, unsigned& out) override {
    unsigned long long n = 0;
    int err = stat_field(pid, 20, n);  // num_threads
    if (err != 0) return err;
    if (n > (1u << 30)) return EIO;
    out = static_cast<unsigned>(n);
    return 0;
  }

  int pidfd_open(pid_t pid) override {
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0) return -errno;
    return static_cast<int>(fd);
#else
    (void)pid;
    return -ENOSYS;
#endif
  }

  bool pidfd_alive(int fd) override {
    pollfd p{fd, POLLIN, 0};
    int r = poll(&p, 1, 0);
    return r == 0;  // readable means the process has exited
  }

  void close_fd(int fd) override { ::close(fd); }

  std::optional<unsigned long long> start_time(pid_t pid) override {
    unsigned long long t = 0;
    if (stat_field(pid, 22, t) != 0) return std::nullopt;
    return t;
  }

  void sleep_ms(unsigned ms) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }

  int exec(const std::vector<std::string>& argv) override {
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    return errno;
  }

  bool has_cap_sys_nice() override {
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line)) {
      if (line.rfind("CapEff:", 0) != 0) continue;
      unsigned long long caps = std::strtoull(line.c_str() + 7, nullptr, 16);
      return (caps >> 23) & 1;  // CAP_SYS_NICE
    }
    return false;
  }

  void set_env(const std::string& name, const std::string& value) override {
    ::setenv(name.c_str(), value.c_str(), 1);
  }

private:
  static constexpr size_t k_threads_per_worker = 1000;

  // Field `field` (>= 3) of /proc/PID/task/PID/stat as a number: the
  // thread's own stat, not the process's, which sums the CPU times of every
  // thread (a walk over 10,000 threads); start time and num_threads are the
  // same in both. 0, ESRCH where gone, EIO where it is not a stat line.
  static int stat_field(pid_t pid, int field, unsigned long long& out) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", static_cast<int>(pid), static_cast<int>(pid));
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? ESRCH : errno;
    char buf[1024];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    int err = n < 0 ? errno : 0;
    ::close(fd);
    if (n < 0) return err == ENOENT ? ESRCH : err;
    buf[n] = '\0';
    const char* p = strrchr(buf, ')');
    if (!p) return EIO;
    ++p;
    // Field 3 is the first after ')'.
    for (int i = 3;; ++i) {
      while (*p == ' ') ++p;
      if (!*p) return EIO;
      if (i == field) break;
      while (*p && *p != ' ') ++p;
    }
    if (*p < '0' || *p > '9') return EIO;
    unsigned long long v = 0;
    for (; *p >= '0' && *p <= '9'; ++p) {
      if (v > (~0ull - 9) / 10) return EIO;
      v = v * 10 + static_cast<unsigned long long>(*p - '0');
    }
    out = v;
    return 0;
  }

  // Runs work(begin, end) over [0, n) in shares, one per worker, the
  // caller's thread taking the first.
  template <typename Work>
  void in_parallel(size_t n, Work work) {
    size_t workers = std::min<size_t>({n / k_threads_per_worker, usable_cpus(), 16});
    if (workers < 2) {
      work(0, n);
      return;
    }
    const size_t chunk = (n + workers - 1) / workers;
    std::vector<std::thread> pool;
    size_t mine_end = chunk;  // the caller's share: [0, mine_end)
    for (size_t w = workers - 1; w >= 1; --w) {
      size_t begin = w * chunk, end = std::min(n, begin + chunk);
      if (begin >= end) continue;
      try {
        pool.emplace_back([&work, begin, end] { work(begin, end); });
      } catch (const std::system_error&) {
        mine_end = end;  // do this share and every one below it here
        break;
      }
    }
    work(0, mine_end);
    for (auto& th : pool) th.join();
  }

  // move_affinities over tids[begin, end); safe to run on several threads
  // at once (its own buffer; set_affinity keeps no state).
  void move_range(const std::vector<pid_t>& tids, const std::vector<const CpuSet*>& want,
                  std::vector<AffinityMove>& out, size_t begin, size_t end) {
    const size_t words = m_mask_bytes / sizeof(uint64_t);
    std::vector<uint64_t> buf(words + 1);
    for (size_t i = begin; i < end; ++i) {
      auto& r = out[i];
      r.reached = true;
      if (syscall(SYS_sched_getaffinity, tids[i], m_mask_bytes, buf.data()) < 0) {
        r.read_error = errno;
        if (r.read_error == ESRCH) continue;
        return;
      }
      r.before.assign_words(buf.data(), words);
      if (r.before == *want[i]) continue;
      r.tried_set = true;
      r.set_error = set_affinity(tids[i], *want[i]);
      if (r.set_error != 0 && r.set_error != ESRCH) return;
    }
  }

  // Reads the lists of tids[begin, end) into result (see check_affinities);
  // safe to run on several threads at once.
  void check_range(const std::vector<pid_t>& tids, const std::vector<const CpuSet*>& want,
                   std::vector<int>& result, size_t begin, size_t end) const {
    const size_t words = m_mask_bytes / sizeof(uint64_t);
    std::vector<uint64_t> buf(words + 1);
    for (size_t i = begin; i < end; ++i) {
      long r = syscall(SYS_sched_getaffinity, tids[i], m_mask_bytes, buf.data());
      if (r < 0) {
        result[i] = errno;
        continue;
      }
      const auto& w = want[i]->words();  // no trailing zero words
      bool same = w.size() <= words;
      for (size_t k = 0; same && k < words; ++k) same = buf[k] == (k < w.size() ? w[k] : 0);
      result[i] = same ? 0 : 1;
    }
  }

  // The CPUs affix itself may run on (once).
  size_t usable_cpus() {
    if (m_usable_cpus == 0) {
      std::vector<uint64_t> buf(m_mask_bytes / sizeof(uint64_t) + 1, 0);
      long r = syscall(SYS_sched_getaffinity, 0, m_mask_bytes, buf.data());
      size_t count = 0;
      if (r > 0)
        for (auto word : buf) count += static_cast<size_t>(__builtin_popcountll(word));
      m_usable_cpus = std::max<size_t>(count, 1);
    }
    return m_usable_cpus;
  }

  int mask_to_set(CpuSet& out) const {
    if constexpr (k_words_are_longs) {
      out.assign_words(reinterpret_cast<const uint64_t*>(m_mask.data()), m_mask.size());
    } else {
      out = CpuSet();
      for (size_t w = 0; w < m_mask.size(); ++w) {
        for (unsigned long word = m_mask[w]; word != 0; word &= word - 1)
          out.set(static_cast<unsigned>(w * 8 * sizeof(unsigned long) + static_cast<unsigned>(__builtin_ctzl(word))));
      }
    }
    return 0;
  }

  std::vector<char> m_dirents;       // list_threads' buffer
  std::vector<unsigned long> m_mask;  // the last sched_getaffinity result
  size_t m_mask_bytes = 0;            // the kernel's mask size, once known
  size_t m_usable_cpus = 0;           // usable_cpus(), once known
};

}  // namespace

Os& linux_os() {
  static LinuxOs os;
  return os;
}

}  // namespace affix

// libnuma prints its own warnings unless the program overrides these weak
// symbols: route them through affix's format, one line each (libnuma's
// format strings may end with a newline of their own; numa_error reports a
// failed call with errno set, as perror would).
extern "C" void numa_error(char* where) {
  int err = errno;
  fprintf(stderr, "affix: warning: libnuma: %s: %s\n", where ? where : "?", strerror(err));
}
extern "C" void numa_warn(int num, char* fmt, ...) {
  (void)num;
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt ? fmt : "?", ap);
  va_end(ap);
  size_t n = strlen(text);
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r')) text[--n] = '\0';
  fprintf(stderr, "affix: warning: libnuma: %s\n", text);
}
