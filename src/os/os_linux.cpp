// LinuxOs (os.hpp): every interface of the os layer on the kernel itself.
// The only file that makes the kernel's memory-policy calls, and with the
// thread follower (thread_follow.cpp) and sched_linux.cpp (sched_setattr,
// sched_getattr) the only one that makes its scheduler calls.
// The memory calls are made with syscall(2) and the kernel's own
// <linux/mempolicy.h>, not through libnuma: linking libnuma's numaif.h
// wrappers links its constructor, which reads /proc and every node's sysfs
// files at every start (README, "Why not libnuma"). /proc stat lines are
// parsed by proc.cpp (parse_stat), the one /proc parser.
#include <dirent.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "child_linux.hpp"
#include "diag.hpp"
#include "exec_lookup.hpp"
#include "exec_privilege.hpp"
#include "interleave_weights.hpp"
#include "os.hpp"
#include "proc.hpp"
#include "sched_linux.hpp"
#include "sched_refusal.hpp"
#include "thread_follow.hpp"

namespace affix {

// MPOL_WEIGHTED_INTERLEAVE, mode 6 of <linux/mempolicy.h> since Linux 6.9;
// the headers of Debian 12 (Linux 6.1) end at MPOL_PREFERRED_MANY.
constexpr int k_mpol_weighted_interleave = 6;

int mem_policy_mode(MemPolicy policy, const CpuSet& nodes) {
  switch (policy) {
    case MemPolicy::Bind: return MPOL_BIND;
    case MemPolicy::Preferred: return nodes.count() > 1 ? MPOL_PREFERRED_MANY : MPOL_PREFERRED;
    case MemPolicy::Interleave: return MPOL_INTERLEAVE;
    case MemPolicy::Local: return MPOL_LOCAL;
    case MemPolicy::Weighted: return k_mpol_weighted_interleave;
  }
  return MPOL_DEFAULT;
}

const char* mem_policy_name(MemPolicy policy) {
  switch (policy) {
    case MemPolicy::Bind: return "bind";
    case MemPolicy::Preferred: return "preferred";
    case MemPolicy::Interleave: return "interleave";
    case MemPolicy::Local: return "local";
    case MemPolicy::Weighted: return "weighted";
  }
  return "?";
}

std::string mem_policy_text(MemPolicy policy, const CpuSet& nodes) {
  if (policy == MemPolicy::Local) return "local";
  std::string text = fmt::format("{} on node{} {}",
                                 policy == MemPolicy::Weighted ? "weighted interleave" : mem_policy_name(policy),
                                 nodes.count() == 1 ? "" : "s", format_cpulist(nodes));
  if (policy == MemPolicy::Preferred && nodes.count() > 1)
    text += " (MPOL_PREFERRED_MANY: the nearest of them with free memory first, then any node)";
  return text;
}

namespace {

// Kernel node masks are arrays of unsigned long. The memory calls take a
// bit count one larger than the mask (the kernel's own off-by-one, which
// libnuma's callers follow too).
constexpr size_t k_node_bits = 4096;

std::vector<unsigned long> node_mask(const CpuSet& set) {
  std::vector<unsigned long> mask(k_node_bits / (8 * sizeof(unsigned long)), 0);
  set.for_each([&](unsigned i) {
    if (i < k_node_bits) mask[i / (8 * sizeof(unsigned long))] |= 1ul << (i % (8 * sizeof(unsigned long)));
  });
  return mask;
}

// Where an unsigned long is 64 bits, a kernel CPU mask and CpuSet::words()
// have the same layout.
constexpr bool k_words_are_longs = sizeof(unsigned long) == sizeof(uint64_t);

// The stat line of /proc/PID/task/TID/stat: the thread's own, not the
// process's, which sums the CPU times of every thread (a walk over 10,000
// threads); start time and num_threads are the same in both. Parsed by
// parse_stat. 0, ESRCH where gone, EIO where it is not a stat line.
int read_task_stat(pid_t pid, pid_t tid, StatLine& out) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/stat", static_cast<int>(pid), static_cast<int>(tid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? ESRCH : errno;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf);
  int err = n < 0 ? errno : 0;
  ::close(fd);
  if (n < 0) return err == ENOENT ? ESRCH : err;
  auto st = parse_stat(std::string_view(buf, static_cast<size_t>(n)));
  if (!st) return EIO;
  out = std::move(*st);
  return 0;
}

class KernelOs final : public LinuxOs {
public:
  int set_affinity(pid_t tid, const CpuSet& cpus) override {
    // The kernel reads as many bytes as it is given, up to its own size, and
    // clears the rest: the set's own words will do, without a copy.
    if (k_words_are_longs && !cpus.empty()) {
      const auto& words = cpus.words();
      if (syscall(SYS_sched_setaffinity, tid, words.size() * sizeof(uint64_t), words.data()) != 0) return errno;
      return 0;
    }
    std::vector<unsigned long> mask(8192 / 64 + 1, 0);
    cpus.for_each([&](unsigned i) {
      if (i / 64 < mask.size()) mask[i / 64] |= 1ul << (i % 64);
    });
    if (sched_setaffinity(tid, mask.size() * sizeof(unsigned long), reinterpret_cast<cpu_set_t*>(mask.data())) != 0)
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

  int set_mempolicy(MemPolicy policy, const CpuSet& nodes) override {
    const int mode = mem_policy_mode(policy, nodes);
    if (policy == MemPolicy::Local) return syscall(SYS_set_mempolicy, mode, nullptr, 0) != 0 ? errno : 0;
    auto mask = node_mask(nodes);
    return syscall(SYS_set_mempolicy, mode, mask.data(), k_node_bits + 1) != 0 ? errno : 0;
  }

  // An mbind of no bytes checks the mode and nothing else (the kernel
  // returns before it looks at any mapping): EINVAL where the kernel does
  // not know MPOL_PREFERRED_MANY. It changes nothing.
  bool has_preferred_many() override {
    auto mask = node_mask(CpuSet::range(0, 0));
    return syscall(SYS_mbind, nullptr, 0, MPOL_PREFERRED_MANY, mask.data(), k_node_bits + 1, 0) == 0 || errno != EINVAL;
  }

  // The same probe for MPOL_WEIGHTED_INTERLEAVE: a kernel before 6.9 says
  // EINVAL for a mode beyond its MPOL_MAX.
  bool has_weighted_interleave() override {
    auto mask = node_mask(CpuSet::range(0, 0));
    return syscall(SYS_mbind, nullptr, 0, k_mpol_weighted_interleave, mask.data(), k_node_bits + 1, 0) == 0 ||
           errno != EINVAL;
  }

  // The weight files are written and read by interleave_weights.cpp.
  int check_weight_file(const std::string& name) override { return check_sysfs_weight_file(name); }
  int write_weight_file(const std::string& name, const std::string& text) override {
    return write_sysfs_weight_file(name, text);
  }
  InterleaveWeights read_weights() override { return read_interleave_weights(SysRoot()); }

  int mems_allowed(CpuSet& out) override {
    std::vector<unsigned long> mask(k_node_bits / (8 * sizeof(unsigned long)), 0);
    if (syscall(SYS_get_mempolicy, nullptr, mask.data(), k_node_bits + 1, nullptr, MPOL_F_MEMS_ALLOWED) != 0) return errno;
    out = CpuSet();
    for (size_t w = 0; w < mask.size(); ++w)
      for (unsigned long word = mask[w]; word != 0; word &= word - 1)
        out.set(static_cast<unsigned>(w * 8 * sizeof(unsigned long)) + static_cast<unsigned>(__builtin_ctzl(word)));
    return 0;
  }

  int migrate_pages(pid_t pid, const CpuSet& from, const CpuSet& to, long& not_moved) override {
    auto a = node_mask(from);
    auto b = node_mask(to);
    long r = syscall(SYS_migrate_pages, pid, k_node_bits + 1, a.data(), b.data());
    if (r < 0) return errno;
    not_moved = r;
    return 0;
  }

  int move_pages(pid_t pid, const std::vector<uint64_t>& pages, const int* nodes,
                 std::vector<int>& status) override {
    std::vector<void*> addrs(pages.size());
    for (size_t i = 0; i < pages.size(); ++i) addrs[i] = reinterpret_cast<void*>(static_cast<uintptr_t>(pages[i]));
    status.assign(pages.size(), 0);
    int flags = nodes && has_cap_sys_nice() ? MPOL_MF_MOVE_ALL : MPOL_MF_MOVE;
    long r = syscall(SYS_move_pages, pid, pages.size(), addrs.data(), nodes, status.data(), flags);
    return r < 0 ? errno : 0;
  }

  // getdents64 with one large buffer, kept between calls. The kernel walks
  // the thread list one entry at a time, oldest first; where the thread it
  // stands on exits, the walk ends there, and a next getdents resumes by
  // position (skipping a thread for each that exited before it). A walk
  // that ended on a thread that is still alive afterwards did not end
  // early: it reached the newest thread. So a listing is complete where one
  // getdents call returned it all (the buffer not full) and the last thread
  // it returned is alive after it (tgkill with signal 0). Otherwise it is
  // taken again, up to 3 times.
  int list_threads(pid_t pid, std::vector<pid_t>& out, bool& complete) override {
    char dir[64];
    std::snprintf(dir, sizeof dir, "/proc/%d/task", static_cast<int>(pid));
    int err = 0;
    for (int attempt = 0; attempt < 3; ++attempt) {
      out.clear();
      pid_t last = 0;
      err = list_numbers(dir, out, complete, last);
      if (err != 0) break;
      if (complete && last > 0 && syscall(SYS_tgkill, pid, last, 0) != 0 && errno != EPERM) complete = false;
      if (complete) break;
    }
    return err == ENOENT ? ESRCH : err;
  }

  int thread_count(pid_t pid, unsigned& out) override {
    StatLine st;
    if (int err = read_task_stat(pid, pid, st)) return err;
    if (st.num_threads > (1u << 30)) return EIO;
    out = static_cast<unsigned>(st.num_threads);
    return 0;
  }

  bool has_run(pid_t pid, pid_t tid) override {
    char path[80];
    std::snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", static_cast<int>(pid), static_cast<int>(tid));
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[128];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return false;
    auto st = parse_schedstat(std::string_view(buf, static_cast<size_t>(n)));
    return st && st->has_run();
  }

  int list_processes(std::vector<ProcessParent>& out) override {
    out.clear();
    std::vector<pid_t> pids;
    bool one_call = false;  // /proc lists processes in PID order: a resumed walk skips none that stay
    pid_t last = 0;
    if (int err = list_numbers("/proc", pids, one_call, last)) return err;
    StatLine st;
    for (pid_t pid : pids) {
      if (read_task_stat(pid, pid, st) != 0) continue;  // gone
      out.push_back({pid, st.ppid, st.start_time});
    }
    return 0;
  }

  // One read of the whole file (the kernel's walk goes on from child to
  // child while the one it stands on is there; a new read resumes by
  // position). Complete where one read returned it all and every child it
  // named is still there after it (kill with signal 0: a zombie not yet
  // reaped is still on its parent's list).
  int list_children(pid_t pid, pid_t tid, std::vector<pid_t>& out, bool& complete) override {
    char path[80];
    std::snprintf(path, sizeof path, "/proc/%d/task/%d/children", static_cast<int>(pid), static_cast<int>(tid));
    out.clear();
    complete = false;
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? ESRCH : errno;
    m_children.resize(64 * 1024);
    size_t used = 0;
    int err = 0;
    unsigned reads = 0;
    for (;;) {
      if (used == m_children.size()) m_children.resize(m_children.size() * 2);
      ssize_t n = ::read(fd, m_children.data() + used, m_children.size() - used);
      if (n < 0) {
        err = errno == ENOENT ? ESRCH : errno;
        break;
      }
      if (n == 0) break;
      ++reads;
      used += static_cast<size_t>(n);
    }
    ::close(fd);
    if (err != 0) return err;
    std::string_view text(m_children.data(), used);
    while (!text.empty()) {
      auto end = text.find(' ');
      if (auto id = parse_pid(text.substr(0, end))) out.push_back(*id);
      if (end == std::string_view::npos) break;
      text.remove_prefix(end + 1);
    }
    complete = reads <= 1;
    for (pid_t child : out)
      if (complete && ::kill(child, 0) != 0 && errno == ESRCH) complete = false;
    return 0;
  }

  std::optional<ProcessParent> process_parent(pid_t pid) override {
    StatLine st;
    if (read_task_stat(pid, pid, st) != 0) return std::nullopt;
    return ProcessParent{pid, st.ppid, st.start_time};
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

  std::optional<unsigned long long> start_time(pid_t id) override {
    StatLine st;
    if (read_task_stat(id, id, st) != 0) return std::nullopt;
    return st.start_time;
  }

  uint64_t now_ms() override {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
  }

  void sleep_ms(unsigned ms) override { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

  int exec(const std::vector<std::string>& argv) override {
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    return errno;
  }

  int find_command(const std::string& command) override { return exec_lookup(command, std::getenv("PATH")); }
  std::pair<std::string, std::string> traced_exec_loss(const std::string& command) override {
    std::optional<std::string> file = exec_file(command, std::getenv("PATH"));
    if (!file) return {};
    std::optional<FilePrivilege> p = read_file_privilege(*file);
    if (!p) return {*file, ""};
    return {*file, privilege_lost(*p, own_credentials())};
  }

  void hold_signals() override { child_hold_signals(); }
  pid_t start_held(const std::vector<std::string>& argv) override { return child_start_held(argv); }
  int release(pid_t pid) override { return child_release(pid); }
  void abandon(pid_t pid) override { child_abandon(pid); }
  int wait_passing_signals(pid_t pid) override { return child_wait_passing_signals(pid); }
  void pass_signals(pid_t pid) override { child_pass_signals(pid); }
  void stop_passing_signals() override { child_stop_passing_signals(); }
  std::optional<int> try_wait(pid_t pid) override { return child_try_wait(pid); }
  int run_program(const std::vector<std::string>& argv) override { return child_run_program(argv); }
  pid_t own_pid() override { return ::getpid(); }

  bool has_cap_sys_nice() override {
    if (m_caps < 0) {
      std::optional<StatusInfo> status;
      try {
        status = read_status(SysRoot(), "proc/self");
      } catch (const std::exception&) {
      }
      m_caps = status && ((status->cap_eff >> 23) & 1) ? 1 : 0;  // CAP_SYS_NICE
    }
    return m_caps == 1;
  }

  int follow_threads(const std::vector<unsigned>& cpus, unsigned per_cpu,
                     const char*& call) override {
    return start_thread_follower(SpreadPlan{cpus, per_cpu}, call);
  }

  std::optional<Tracer> tracer() override {
    SysRoot root;
    std::optional<StatusInfo> status;
    try {
      status = read_status(root, "proc/self");
    } catch (const std::exception&) {
    }
    if (!status || status->tracer <= 0) return std::nullopt;
    Tracer t{status->tracer, {}};
    try {
      if (auto stat = read_stat(root, proc_dir(t.pid))) t.comm = stat->comm;
    } catch (const std::exception&) {  // not a stat line: the comm stays unknown
    }
    return t;
  }

  void set_env(const std::string& name, const std::string& value) override {
    ::setenv(name.c_str(), value.c_str(), 1);
  }

  // Scheduling: sched_linux.cpp. The probe runs once, where a policy option asks.
  int get_sched(pid_t tid, SchedAttr& out) override { return linux_get_sched(tid, out, sched_support().uclamp); }
  int set_sched(pid_t tid, const SchedAttr& attr) override { return linux_set_sched(tid, attr); }
  SchedSupport sched_support() override {
    if (!m_sched_support) m_sched_support = linux_sched_support();
    return *m_sched_support;
  }
  SchedFacts sched_facts(const CpuSet& cpus) override {
    SchedFacts f = read_sched_facts(SysRoot(), cpus);
    f.cap_sys_nice = has_cap_sys_nice();
    return f;
  }

private:
  // The decimal names of a /proc directory, ascending. `one_call`: one
  // getdents call returned them all, and the buffer was not full; `last`:
  // the last name it returned (the kernel's order, before sorting).
  int list_numbers(const char* dir, std::vector<pid_t>& out, bool& one_call, pid_t& last) {
    int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno;
    m_dirents.resize(1024 * 1024);
    int err = 0;
    unsigned calls = 0;
    bool full = false;
    for (;;) {
      ssize_t n = getdents64(fd, m_dirents.data(), m_dirents.size());
      if (n < 0) {
        err = errno;
        break;
      }
      if (n == 0) break;
      ++calls;
      full = full || static_cast<size_t>(n) + 512 > m_dirents.size();
      for (ssize_t off = 0; off < n;) {
        const auto* e = reinterpret_cast<const dirent64*>(m_dirents.data() + off);
        off += e->d_reclen;
        auto id = parse_pid(e->d_name);
        if (!id) continue;
        out.push_back(*id);
        last = *id;
      }
    }
    ::close(fd);
    one_call = err == 0 && calls == 1 && !full;
    std::sort(out.begin(), out.end());
    return err;
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

  std::vector<char> m_dirents;        // list_numbers' buffer
  std::vector<char> m_children;       // list_children's buffer
  std::vector<unsigned long> m_mask;  // the last sched_getaffinity result
  size_t m_mask_bytes = 0;            // the kernel's mask size, once known
  int m_caps = -1;                    // has_cap_sys_nice, once known
  std::optional<SchedSupport> m_sched_support;  // sched_support, once probed
};

}  // namespace

LinuxOs& linux_os() {
  static KernelOs os;
  return os;
}

}  // namespace affix
