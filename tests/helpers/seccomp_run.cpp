// Test helper: runs a program under a seccomp filter that makes some system
// calls fail with a chosen errno, as a container runtime's seccomp profile
// does (Docker's default profile refuses set_mempolicy, mbind and
// migrate_pages without CAP_SYS_NICE).
//
//   seccomp_run SYSCALL[,SYSCALL...] ERRNO PROGRAM [ARG...]
//
// SYSCALL: set_mempolicy, mbind, migrate_pages, sched_setaffinity,
// sched_getaffinity, get_mempolicy, perf_event_open, ptrace. ERRNO: EPERM, EINVAL, ESRCH, EACCES,
// ENOSYS. Raw BPF through prctl(PR_SET_SECCOMP); no libseccomp needed.
// Exit status 120 when the helper itself fails.
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace {

#if defined(__x86_64__)
constexpr unsigned k_arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned k_arch = AUDIT_ARCH_AARCH64;
#else
#error "seccomp_run: unsupported architecture"
#endif

int syscall_number(const std::string& name) {
  if (name == "set_mempolicy") return SYS_set_mempolicy;
  if (name == "get_mempolicy") return SYS_get_mempolicy;
  if (name == "mbind") return SYS_mbind;
  if (name == "migrate_pages") return SYS_migrate_pages;
  if (name == "sched_setaffinity") return SYS_sched_setaffinity;
  if (name == "sched_getaffinity") return SYS_sched_getaffinity;
  if (name == "perf_event_open") return SYS_perf_event_open;
  if (name == "ptrace") return SYS_ptrace;
  return -1;
}

int errno_value(const std::string& name) {
  if (name == "EPERM") return EPERM;
  if (name == "EINVAL") return EINVAL;
  if (name == "ESRCH") return ESRCH;
  if (name == "EACCES") return EACCES;
  if (name == "ENOSYS") return ENOSYS;
  return -1;
}

int fail(const std::string& what) {
  fprintf(stderr, "seccomp_run: %s\n", what.c_str());
  return 120;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return fail("usage: seccomp_run SYSCALL[,SYSCALL...] ERRNO PROGRAM [ARG...]");
  std::vector<int> numbers;
  std::string list = argv[1];
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    int nr = syscall_number(name);
    if (nr < 0) return fail("unknown system call '" + name + "'");
    numbers.push_back(nr);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  int err = errno_value(argv[2]);
  if (err < 0) return fail(std::string("unknown errno '") + argv[2] + "'");

  std::vector<sock_filter> prog;
  prog.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  prog.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k_arch, 1, 0));
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  prog.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  for (int nr : numbers) {
    prog.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<unsigned>(nr), 0, 1));
    prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (static_cast<unsigned>(err) & SECCOMP_RET_DATA)));
  }
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  sock_fprog fprog{};
  fprog.len = static_cast<unsigned short>(prog.size());
  fprog.filter = prog.data();

  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail(std::string("PR_SET_NO_NEW_PRIVS: ") + strerror(errno));
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0)
    return fail(std::string("PR_SET_SECCOMP: ") + strerror(errno));
  execv(argv[3], argv + 3);
  return fail(std::string("exec ") + argv[3] + ": " + strerror(errno));
}
