// The follower of run --spread (thread_follow.hpp). OS-level: with
// os_linux.cpp, the only file that calls the kernel directly; the only one
// that includes <sys/ptrace.h>.
#include "thread_follow.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <unordered_set>

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

// Whether `tid` is a thread of process `pid` (not a process a clone made).
bool is_thread_of(pid_t pid, pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d", pid, tid);
  return ::access(path, F_OK) == 0;
}

bool is_stop_signal(int sig) {
  return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

// G's loop: until the last followed thread is gone (ECHILD).
[[noreturn]] void follow(pid_t command, const SpreadPlan& plan) {
  std::unordered_set<pid_t> known{command};  // placed (or left alone) once
  std::unordered_set<pid_t> processes;       // new processes, detached at their first stop
  size_t created = 0;
  // A thread seen for the first time, at whichever of its two stops comes first.
  auto first_seen = [&](pid_t tid) {
    if (!known.insert(tid).second) return;
    if (is_thread_of(command, tid)) set_one_cpu(tid, spread_cpu(plan, created++));
    else processes.insert(tid);
  };
  for (;;) {
    int status = 0;
    pid_t tid = ::waitpid(-1, &status, __WALL);
    if (tid < 0) {
      if (errno == EINTR) continue;
      ::_exit(0);  // ECHILD: nothing is followed any more
    }
    if (!WIFSTOPPED(status)) {  // exited or killed
      known.erase(tid);
      processes.erase(tid);
      continue;
    }
    int sig = WSTOPSIG(status);
    int event = status >> 16;
    if (event == PTRACE_EVENT_CLONE) {
      unsigned long child = 0;
      if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &child) == 0) first_seen(static_cast<pid_t>(child));
      ptrace(PTRACE_CONT, tid, 0, 0);
    } else if (event == PTRACE_EVENT_STOP) {
      if (!known.count(tid)) first_seen(tid);  // a new thread's own first stop
      if (processes.count(tid)) {
        processes.erase(tid);
        known.erase(tid);
        ptrace(PTRACE_DETACH, tid, 0, 0);
      } else if (is_stop_signal(sig)) {
        ptrace(PTRACE_LISTEN, tid, 0, 0);  // a group stop: CONT would end it
      } else {
        ptrace(PTRACE_CONT, tid, 0, 0);
      }
    } else if (event != 0) {  // PTRACE_EVENT_EXEC
      ptrace(PTRACE_CONT, tid, 0, 0);
    } else {  // a signal-delivery stop: deliver the signal untouched
      ptrace(PTRACE_CONT, tid, 0, sig);
    }
  }
}

}  // namespace

int start_thread_follower(const SpreadPlan& plan, const char*& call) {
  pid_t command = ::getpid();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    call = "pipe";
    return errno;
  }
  pid_t h = ::fork();
  if (h < 0) {
    int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    call = "fork";
    return e;
  }
  if (h == 0) {  // H
    ::close(fds[0]);
    pid_t g = ::fork();
    if (g < 0) {
      int answer[2] = {1, errno};
      write_all(fds[1], answer, sizeof answer);
      ::_exit(0);
    }
    if (g > 0) ::_exit(0);
    // G: out of the command's session (no terminal signals: a Ctrl-C is the
    // command's), no descriptor of the command's kept open.
    ::setsid();
    ::signal(SIGCHLD, SIG_DFL);  // an ignored SIGCHLD (inherited) would hide the exits
    int answer[2] = {0, 0};
    if (ptrace(PTRACE_SEIZE, command, 0, PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC) != 0)
      answer[0] = 2, answer[1] = errno;
    write_all(fds[1], answer, sizeof answer);
    if (answer[0] != 0) ::_exit(0);
    int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    ::syscall(SYS_close_range, 3U, ~0U, 0U);
    follow(command, plan);
  }
  ::close(fds[1]);
  int answer[2] = {0, 0};
  bool got = read_all(fds[0], answer, sizeof answer);
  ::close(fds[0]);
  int hs = 0;
  while (::waitpid(h, &hs, 0) < 0 && errno == EINTR) {
  }
  if (!got) {
    call = "fork";
    return ECHILD;  // the helper died before it answered
  }
  if (answer[0] == 0) return 0;
  call = answer[0] == 1 ? "fork" : "ptrace";
  return answer[1];
}

}  // namespace affix
