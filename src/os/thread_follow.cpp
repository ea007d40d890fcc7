// The follower of run --spread (thread_follow.hpp). OS-level: with
// os_linux.cpp, the only file that makes the kernel's scheduler calls (the
// follower sets the new threads' CPUs from a process of its own); the only
// one that includes <sys/ptrace.h>.
#include "thread_follow.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "diag.hpp"
#include "exec_privilege.hpp"
#include "spread_pools.hpp"
#include "text.hpp"

namespace affix {

namespace {

bool write_all(int fd, const void* data, size_t size) {
  auto* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, void* data, size_t size) {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void set_one_cpu(pid_t tid, unsigned cpu) {
  cpu_set_t* set = CPU_ALLOC(cpu + 1);
  if (!set) return;
  size_t size = CPU_ALLOC_SIZE(cpu + 1);
  CPU_ZERO_S(size, set);
  CPU_SET_S(cpu, size, set);
  sched_setaffinity(tid, size, set);  // ESRCH: killed meanwhile (a group exit)
  CPU_FREE(set);
}

void set_cpus(pid_t tid, const cpu_set_t& cpus) {
  sched_setaffinity(tid, sizeof cpus, &cpus);  // ESRCH: gone meanwhile
}

// The CPU list of `tid` (empty where it cannot be read: gone).
CpuList thread_cpus(pid_t tid) {
  cpu_set_t fixed;  // CPU_SETSIZE (1024) CPUs: no allocation
  if (sched_getaffinity(tid, sizeof fixed, &fixed) == 0) {
    CpuList cpus;
    int left = CPU_COUNT(&fixed);
    for (unsigned c = 0; left > 0; ++c)
      if (CPU_ISSET(c, &fixed)) cpus.push_back(c), --left;
    return cpus;
  }
  if (errno != EINVAL) return {};
  for (unsigned n = 2 * CPU_SETSIZE;; n *= 2) {
    cpu_set_t* set = CPU_ALLOC(n);
    if (!set) return {};
    size_t size = CPU_ALLOC_SIZE(n);
    CPU_ZERO_S(size, set);
    CpuList cpus;
    int r = sched_getaffinity(tid, size, set);
    if (r == 0)
      for (unsigned c = 0; c < n; ++c)
        if (CPU_ISSET_S(c, size, set)) cpus.push_back(c);
    int e = errno;
    CPU_FREE(set);
    if (r == 0) return cpus;
    if (e != EINVAL || n >= (1U << 20)) return {};
  }
}

// Whether `tid` is a thread of process `pid` (not a process a clone made).
bool is_thread_of(pid_t pid, pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d", pid, tid);
  return ::access(path, F_OK) == 0;
}

bool is_stop_signal(int sig) {
  return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

// At an exec of the followed process (after affix's own): where the file
// it now runs gives privileges the kernel dropped under this tracer, a
// warning on the command's stderr (`warn_fd`; -1: none).
void warn_traced_exec(pid_t pid, int warn_fd) {
  if (warn_fd < 0) return;
  char link[64];
  std::snprintf(link, sizeof link, "/proc/%d/exe", pid);
  char file[4096];
  ssize_t n = ::readlink(link, file, sizeof file - 1);
  if (n <= 0) return;
  file[n] = '\0';
  std::optional<FilePrivilege> p = read_file_privilege(file);
  if (!p) return;
  std::string lost = privilege_lost(*p, own_credentials());
  if (lost.empty()) return;
  std::string text = format_warning("'" + printable(file) + "' (process " + std::to_string(pid) +
                                    ") runs without its " + lost +
                                    ": the kernel ignores it in a program followed by --spread (ptrace)");
  ssize_t w = ::write(warn_fd, text.data(), text.size());
  (void)w;
}

// The TracerPid of thread `tid` of `pid` (/proc/PID/task/TID/status), or -1
// where it cannot be read (the thread is gone).
pid_t tracer_of(pid_t pid, pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/status", pid, tid);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[4096];
  size_t used = 0;
  for (;;) {
    ssize_t n = ::read(fd, text + used, sizeof text - 1 - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<size_t>(n);
    if (used == sizeof text - 1) break;
  }
  ::close(fd);
  text[used] = 0;
  const char* line = std::strstr(text, "\nTracerPid:");
  if (!line) return -1;
  return static_cast<pid_t>(std::strtol(line + 11, nullptr, 10));
}

// How often G looks for threads that no stop announces (CLONE_UNTRACED):
// every 50 ms, or 100 times as long as the last look took (a command with
// thousands of threads), so that looking costs at most 1% of a CPU.
constexpr long k_scan_us = 50000;
constexpr long k_scan_share = 100;

volatile sig_atomic_t g_tick = 0;
void on_tick(int) { g_tick = 1; }

// Each SIGALRM makes waitpid return EINTR (or, where it came while G was
// busy with a stop, is seen after the next one): G scans then.
void set_ticks(long us) {
  struct itimerval every {};
  every.it_interval.tv_sec = us / 1000000;
  every.it_interval.tv_usec = us % 1000000;
  every.it_value = every.it_interval;
  setitimer(ITIMER_REAL, &every, nullptr);
}

void start_ticks() {
  struct sigaction tick {};
  tick.sa_handler = on_tick;  // no SA_RESTART
  sigemptyset(&tick.sa_mask);
  sigaction(SIGALRM, &tick, nullptr);
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  sigprocmask(SIG_UNBLOCK, &alarm, nullptr);
  set_ticks(k_scan_us);
}

long now_us() {
  struct timespec t {};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

// G's loop: until the last followed thread is gone (ECHILD).
[[noreturn]] void follow(pid_t command, const SpreadPlan& plan, int warn_fd) {
  bool first_exec = true;  // affix's own exec of the command, checked before it (launch.cpp)
  // The CPU list the command started with (its main thread keeps it).
  cpu_set_t selection;
  CPU_ZERO(&selection);
  if (sched_getaffinity(command, sizeof selection, &selection) != 0)
    for (unsigned cpu : plan.cpus)
      if (cpu < CPU_SETSIZE) CPU_SET(cpu, &selection);
  std::unordered_set<pid_t> known{command};  // placed (or left alone) once
  std::unordered_set<pid_t> processes;       // new processes, detached at their first stop
  std::unordered_set<pid_t> unfollowed;      // placed by a scan, not traced (no end is reported)
  // A new thread is placed at its creator's clone event, where the creator is
  // known (spread_pools.hpp: a command that set its own CPUs keeps them); one
  // whose own first stop comes first waits there for that event: its first
  // stop's signal, to end the stop with once placed.
  std::unordered_map<pid_t, int> held;
  SpreadPools pools(plan);
  pools.start(command, thread_cpus(command));
  // A new thread or process seen for the first time, at whichever of its two
  // stops comes first (creator 0: at its own stop).
  auto first_seen = [&](pid_t creator, pid_t tid) {
    if (!known.insert(tid).second) return;
    if (!is_thread_of(command, tid)) processes.insert(tid);
    else if (auto cpu = pools.place(creator, tid, thread_cpus(tid))) set_one_cpu(tid, *cpu);
  };
  auto resume = [](pid_t tid, int sig) {
    if (is_stop_signal(sig)) ptrace(PTRACE_LISTEN, tid, 0, 0);  // a group stop: CONT would end it
    else ptrace(PTRACE_CONT, tid, 0, 0);
  };
  // A thread made with CLONE_UNTRACED stops nowhere: find it in
  // /proc/PID/task (untraced: TracerPid 0), trace it from then on (its own
  // clones stop, its end is reported) and give it the next CPU. One G cannot
  // trace (it is gone, or the kernel refuses) is remembered while it is listed.
  auto scan = [&] {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/task", command);
    DIR* dir = ::opendir(path);
    if (!dir) return;
    std::unordered_set<pid_t> listed;
    while (dirent* e = ::readdir(dir)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      auto tid = static_cast<pid_t>(std::strtol(e->d_name, nullptr, 10));
      if (!unfollowed.empty()) listed.insert(tid);
      if (known.count(tid) || tracer_of(command, tid) != 0) continue;  // G's own: at its stops
      // Traced before it is placed: a thread that clones as soon as it has
      // its CPU (or at any time after) makes a thread whose creation stops,
      // not one that keeps the old list until the next scan.
      if (ptrace(PTRACE_SEIZE, tid, 0, PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC) != 0) {
        if (errno == ESRCH) continue;  // gone
        unfollowed.insert(tid), listed.insert(tid);
      }
      known.insert(tid);
      if (auto cpu = pools.place(0, tid, thread_cpus(tid))) set_one_cpu(tid, *cpu);
    }
    ::closedir(dir);
    for (auto it = unfollowed.begin(); it != unfollowed.end();) {
      if (listed.count(*it)) {
        ++it;
      } else {
        known.erase(*it);
        pools.forget(*it);
        it = unfollowed.erase(it);
      }
    }
  };
  start_ticks();
  long every_us = k_scan_us;
  for (;;) {
    int status = 0;
    pid_t tid = ::waitpid(-1, &status, __WALL);
    if (tid < 0 && errno != EINTR) ::_exit(0);  // ECHILD: nothing is followed any more
    if (g_tick) {
      g_tick = 0;
      long start = now_us();
      scan();
      long want = std::max(k_scan_us, (now_us() - start) * k_scan_share);
      if (want > every_us * 5 / 4 || want < every_us * 3 / 4) set_ticks(every_us = want);
    }
    if (tid < 0) continue;
    if (!WIFSTOPPED(status)) {  // exited or killed
      known.erase(tid);
      processes.erase(tid);
      held.erase(tid);
      pools.forget(tid);
      continue;
    }
    int sig = WSTOPSIG(status);
    int event = status >> 16;
    if (event == PTRACE_EVENT_CLONE) {
      unsigned long child = 0;
      if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &child) == 0) {
        auto c = static_cast<pid_t>(child);
        first_seen(tid, c);
        if (auto h = held.find(c); h != held.end()) {
          resume(c, h->second);
          held.erase(h);
        }
      }
      ptrace(PTRACE_CONT, tid, 0, 0);
    } else if (event == PTRACE_EVENT_STOP) {
      if (!known.count(tid)) {  // a new thread's own first stop, before its creator's event
        if (is_thread_of(command, tid)) {
          held.emplace(tid, sig);
          continue;
        }
        first_seen(0, tid);
      }
      if (processes.count(tid)) {
        processes.erase(tid);
        known.erase(tid);
        ptrace(PTRACE_DETACH, tid, 0, 0);
      } else {
        resume(tid, sig);
      }
    } else if (event == PTRACE_EVENT_EXEC) {
      if (!first_exec) warn_traced_exec(tid, warn_fd);
      first_exec = false;
      // A thread other than the main one exec'd: it is the process now (TID
      // `tid`, the PID) and its old TID ends unreported. The main thread
      // gets the command's CPU list back; the old TID is free for a new thread.
      unsigned long former = 0;
      if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &former) == 0 && static_cast<pid_t>(former) != tid) {
        known.erase(static_cast<pid_t>(former));
        unfollowed.erase(static_cast<pid_t>(former));
        held.erase(static_cast<pid_t>(former));
        pools.forget(static_cast<pid_t>(former));
        set_cpus(tid, selection);
      }
      ptrace(PTRACE_CONT, tid, 0, 0);
    } else if (event != 0) {
      ptrace(PTRACE_CONT, tid, 0, 0);
    } else {  // a signal-delivery stop: deliver the signal untouched
      ptrace(PTRACE_CONT, tid, 0, sig);
    }
  }
}

}  // namespace

int start_thread_follower(const SpreadPlan& plan, const char*& call) {
  pid_t command = ::getpid();
  // up: H and G to P (G's PID, then G's answer); down: P to G (attach now).
  int up[2], down[2];
  if (::pipe2(up, O_CLOEXEC) != 0) {
    call = "pipe";
    return errno;
  }
  if (::pipe2(down, O_CLOEXEC) != 0) {
    int e = errno;
    ::close(up[0]);
    ::close(up[1]);
    call = "pipe";
    return e;
  }
  pid_t h = ::fork();
  if (h < 0) {
    int e = errno;
    for (int fd : {up[0], up[1], down[0], down[1]}) ::close(fd);
    call = "fork";
    return e;
  }
  if (h == 0) {  // H
    ::close(up[0]);
    ::close(down[1]);
    pid_t g = ::fork();
    if (g != 0) {
      int first[2] = {g < 0 ? 1 : 0, g < 0 ? errno : g};
      write_all(up[1], first, sizeof first);
      ::_exit(0);
    }
    // G: out of the command's session (no terminal signals: a Ctrl-C is the
    // command's), no descriptor of the command's kept open.
    ::setsid();
    ::signal(SIGCHLD, SIG_DFL);  // an ignored SIGCHLD (inherited) would hide the exits
    char go = 0;
    if (!read_all(down[0], &go, 1)) ::_exit(0);
    int answer[2] = {0, 0};
    if (ptrace(PTRACE_SEIZE, command, 0, PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC) != 0)
      answer[0] = 2, answer[1] = errno;
    write_all(up[1], answer, sizeof answer);
    if (answer[0] != 0) ::_exit(0);
    // The command's stderr, kept for the warning of a later exec.
    int warn_fd = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
    int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    if (warn_fd >= 4) ::syscall(SYS_close_range, 3U, static_cast<unsigned>(warn_fd) - 1, 0U);
    if (warn_fd >= 3) ::syscall(SYS_close_range, static_cast<unsigned>(warn_fd) + 1, ~0U, 0U);
    else ::syscall(SYS_close_range, 3U, ~0U, 0U);
    follow(command, plan, warn_fd);
  }
  ::close(up[1]);
  ::close(down[0]);
  int first[2] = {0, 0}, answer[2] = {0, 0};
  bool got = read_all(up[0], first, sizeof first) && first[0] == 0;
  if (got) {
    // Yama ptrace_scope 1 lets only ancestors attach, and G is none: name it
    // (EINVAL without Yama), for as long as it takes G to attach.
    ::prctl(PR_SET_PTRACER, static_cast<unsigned long>(first[1]), 0, 0, 0);
    char go = 1;
    got = write_all(down[1], &go, 1) && read_all(up[0], answer, sizeof answer);
    ::prctl(PR_SET_PTRACER, 0UL, 0, 0, 0);
  }
  ::close(up[0]);
  ::close(down[1]);
  int hs = 0;
  while (::waitpid(h, &hs, 0) < 0 && errno == EINTR) {
  }
  if (first[0] != 0) {
    call = "fork";
    return first[1];
  }
  if (!got) {
    call = "fork";
    return ECHILD;  // the helper died before it answered
  }
  if (answer[0] == 0) return 0;
  call = "ptrace";
  return answer[1];
}

}  // namespace affix
