// A child that affix outlives (ChildOs, os.hpp): it is forked held (blocked
// on a pipe) so that affix can put it into a cgroup before it runs a single
// instruction of the command, then released to exec; whether the exec
// succeeded comes back on a second pipe that the exec closes (O_CLOEXEC).
// While it runs, affix passes on the signals other processes send it.
#include "child_linux.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <optional>

namespace affix {

namespace {

constexpr int k_held[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr int k_passed[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};

sigset_t g_before;                 // affix's mask before hold_signals()
bool g_holding = false;
volatile sig_atomic_t g_child = 0;  // the child signals go to

struct Pipes {
  int go = -1;    // written (one byte) to release the child, closed to abandon it
  int exec = -1;  // the child's exec errno, or end of file once it has exec'd
};
std::map<pid_t, Pipes> g_held;

sigset_t held_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : k_held) sigaddset(&set, s);
  return set;
}

// A signal another process sent (kill, SI_USER; sigqueue, SI_QUEUE) goes on
// to the child; one the terminal sent to its whole foreground group
// (SI_KERNEL) has reached the child already.
void pass_on(int sig, siginfo_t* info, void*) {
  if (g_child > 0 && info && (info->si_code == SI_USER || info->si_code == SI_QUEUE))
    ::kill(static_cast<pid_t>(g_child), sig);
}

int status_of(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 128;
}

pid_t reap(pid_t pid, int& st) {
  pid_t r;
  do r = ::waitpid(pid, &st, 0);
  while (r < 0 && errno == EINTR);
  return r;
}

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

void child_hold_signals() {
  if (g_holding) return;
  sigset_t set = held_set();
  sigprocmask(SIG_BLOCK, &set, &g_before);
  g_holding = true;
}

pid_t child_start_held(const std::vector<std::string>& argv) {
  std::vector<char*> args = c_argv(argv);
  int go[2], exec_err[2];
  if (::pipe2(go, O_CLOEXEC) != 0) return -errno;
  if (::pipe2(exec_err, O_CLOEXEC) != 0) {
    int err = errno;
    ::close(go[0]);
    ::close(go[1]);
    return -err;
  }
  sigset_t before = g_before;
  bool restore = g_holding;
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    for (int fd : {go[0], go[1], exec_err[0], exec_err[1]}) ::close(fd);
    return -err;
  }
  if (pid == 0) {
    ::close(go[1]);
    ::close(exec_err[0]);
    char c = 0;
    ssize_t n;
    do n = ::read(go[0], &c, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1) ::_exit(125);  // abandoned
    if (restore) sigprocmask(SIG_SETMASK, &before, nullptr);
    ::execvp(args[0], args.data());
    int err = errno;
    ssize_t w = ::write(exec_err[1], &err, sizeof err);
    (void)w;
    ::_exit(err == ENOENT ? 127 : 126);
  }
  ::close(go[0]);
  ::close(exec_err[1]);
  g_held[pid] = Pipes{go[1], exec_err[0]};
  return pid;
}

int child_release(pid_t pid) {
  auto it = g_held.find(pid);
  if (it == g_held.end()) return ESRCH;
  Pipes p = it->second;
  g_held.erase(it);
  char c = 1;
  ssize_t w = ::write(p.go, &c, 1);
  ::close(p.go);
  if (w != 1) {
    int st = 0;
    ::kill(pid, SIGKILL);
    reap(pid, st);
    ::close(p.exec);
    return EPIPE;
  }
  int err = 0;
  ssize_t n;
  do n = ::read(p.exec, &err, sizeof err);
  while (n < 0 && errno == EINTR);
  ::close(p.exec);
  if (n != static_cast<ssize_t>(sizeof err)) return 0;  // closed by the exec
  int st = 0;
  reap(pid, st);
  return err == 0 ? EIO : err;
}

void child_abandon(pid_t pid) {
  auto it = g_held.find(pid);
  if (it != g_held.end()) {
    ::close(it->second.go);
    ::close(it->second.exec);
    g_held.erase(it);
  }
  ::kill(pid, SIGKILL);
  int st = 0;
  reap(pid, st);
}

namespace {

struct sigaction g_old[sizeof k_passed / sizeof k_passed[0]];
struct sigaction g_old_chld;
void on_child(int) {}  // only wakes a sleep that lets SIGCHLD in

}  // namespace

void child_pass_signals(pid_t pid) {
  struct sigaction pass {};
  pass.sa_sigaction = pass_on;
  pass.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&pass.sa_mask);
  g_child = pid;
  for (size_t i = 0; i < sizeof k_passed / sizeof k_passed[0]; ++i) sigaction(k_passed[i], &pass, &g_old[i]);
  struct sigaction chld {};
  chld.sa_handler = on_child;
  sigemptyset(&chld.sa_mask);
  sigaction(SIGCHLD, &chld, &g_old_chld);
}

void child_stop_passing_signals() {
  g_child = 0;
  for (size_t i = 0; i < sizeof k_passed / sizeof k_passed[0]; ++i) sigaction(k_passed[i], &g_old[i], nullptr);
  sigaction(SIGCHLD, &g_old_chld, nullptr);
}

std::optional<int> child_try_wait(pid_t pid) {
  siginfo_t info{};
  int r;
  do r = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  while (r < 0 && errno == EINTR);
  if (r < 0) return 128;
  if (info.si_pid == 0) return std::nullopt;
  if (info.si_code == CLD_EXITED) return info.si_status;
  return 128 + info.si_status;
}

int child_wait_passing_signals(pid_t pid) {
  child_pass_signals(pid);
  sigset_t set = held_set();
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  int st = 0;
  pid_t r = reap(pid, st);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  child_stop_passing_signals();
  if (r < 0) return 128;
  return status_of(st);
}

int child_run_program(const std::vector<std::string>& argv) {
  pid_t pid = child_start_held(argv);
  if (pid < 0) return pid;
  if (int err = child_release(pid); err != 0) return -err;
  int st = 0;
  if (reap(pid, st) < 0) return -errno;
  return status_of(st);
}

}  // namespace affix
