// Test helper: runs a program and stops it at one system call, to run a
// shell command at that instant (a seccomp user notification: the program
// waits inside the call until the command has finished). Then the call
// goes on as it would have, or fails with a chosen errno; every later call
// goes on untouched. So a test puts a thread creation, a fork or a PID
// reuse exactly between two steps of affix.
//
//   notify_run SYSCALL ARG0 ERRNO|continue COMMAND PROGRAM [ARG...]
//
// SYSCALL: sched_setaffinity, migrate_pages, move_pages; ARG0: the call's
// first argument (the TID or PID it acts on) that stops it, or "any".
// ERRNO: EPERM, EINVAL, ESRCH. COMMAND runs with sh -c. Exit status: the
// program's own; 120 when the helper itself fails.
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

#if defined(__x86_64__)
constexpr unsigned k_arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned k_arch = AUDIT_ARCH_AARCH64;
#else
#error "notify_run: unsupported architecture"
#endif

int fail(const std::string& what) {
  fprintf(stderr, "notify_run: %s\n", what.c_str());
  return 120;
}

int syscall_number(const std::string& name) {
  if (name == "sched_setaffinity") return SYS_sched_setaffinity;
  if (name == "migrate_pages") return SYS_migrate_pages;
  if (name == "move_pages") return SYS_move_pages;
  return -1;
}

int errno_value(const std::string& name) {
  if (name == "continue") return 0;
  if (name == "EPERM") return EPERM;
  if (name == "EINVAL") return EINVAL;
  if (name == "ESRCH") return ESRCH;
  return -1;
}

void send_fd(int sock, int fd) {
  char data = 0;
  iovec iov{&data, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof(int));
  sendmsg(sock, &msg, 0);
}

int receive_fd(int sock) {
  char data = 0;
  iovec iov{&data, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(sock, &msg, 0) <= 0) return -1;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_RIGHTS) return -1;
  int fd = -1;
  memcpy(&fd, CMSG_DATA(c), sizeof(int));
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) return fail("usage: notify_run SYSCALL ARG0 ERRNO|continue COMMAND PROGRAM [ARG...]");
  int nr = syscall_number(argv[1]);
  if (nr < 0) return fail(std::string("unknown system call '") + argv[1] + "'");
  bool any = strcmp(argv[2], "any") == 0;
  long arg0 = any ? 0 : strtol(argv[2], nullptr, 10);
  int err = errno_value(argv[3]);
  if (err < 0) return fail(std::string("unknown errno '") + argv[3] + "'");
  const char* command = argv[4];

  std::vector<sock_filter> prog;
  prog.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  prog.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k_arch, 1, 0));
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  prog.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  prog.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(nr), 1, 0));
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  if (!any) {  // the low 32 bits of the first argument (a PID fits)
    prog.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));
    prog.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(arg0), 1, 0));
    prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  }
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
  sock_fprog fprog{};
  fprog.len = static_cast<unsigned short>(prog.size());
  fprog.filter = prog.data();

  int socks[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, socks) != 0) return fail(std::string("socketpair: ") + strerror(errno));
  pid_t child = fork();
  if (child < 0) return fail(std::string("fork: ") + strerror(errno));
  if (child == 0) {
    close(socks[0]);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(fail(std::string("PR_SET_NO_NEW_PRIVS: ") + strerror(errno)));
    long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
    if (fd < 0) _exit(fail(std::string("seccomp: ") + strerror(errno)));
    send_fd(socks[1], static_cast<int>(fd));
    close(static_cast<int>(fd));
    close(socks[1]);
    execv(argv[5], argv + 5);
    _exit(fail(std::string("exec ") + argv[5] + ": " + strerror(errno)));
  }
  close(socks[1]);
  int listener = receive_fd(socks[0]);
  close(socks[0]);
  if (listener < 0) {
    int status = 0;
    waitpid(child, &status, 0);
    return fail("no listener from the child");
  }

  seccomp_notif_sizes sizes{};
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) return fail("SECCOMP_GET_NOTIF_SIZES");
  std::vector<char> req_buf(std::max<size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
  std::vector<char> resp_buf(std::max<size_t>(sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)));
  bool hit = false;
  int status = 0;
  for (;;) {
    // The program's end is found by waitpid (a listener whose program is
    // gone need not wake a blocked receive).
    if (waitpid(child, &status, WNOHANG) == child) break;
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0 || !(p.revents & POLLIN)) continue;
    memset(req_buf.data(), 0, req_buf.size());
    auto* req = reinterpret_cast<seccomp_notif*>(req_buf.data());
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) continue;
    auto* resp = reinterpret_cast<seccomp_notif_resp*>(resp_buf.data());
    memset(resp, 0, resp_buf.size());
    resp->id = req->id;
    if (!hit) {
      hit = true;
      if (system(command) != 0) fprintf(stderr, "notify_run: the command failed\n");
      if (err != 0) resp->error = -err;
      else resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    } else {
      resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
