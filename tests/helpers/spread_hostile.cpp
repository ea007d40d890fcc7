// Test helper for run --spread (tests/cli/run_spread_hostile.sh): programs
// that make threads the follower could miss.
//
//   spread_hostile exec-thread PROG ARG...
//       a thread other than the main one execs PROG (as Go's syscall.Exec
//       may): the exec'ing thread becomes the process's main thread
//   spread_hostile reuse
//       a thread execs `spread_hostile reused TID` (TID: its own); that
//       program writes TID-1 to /proc/sys/kernel/ns_last_pid (run it in a
//       PID namespace of its own), creates a thread, which must get TID
//       again, and prints "main CPULIST" and "reused yes|no CPULIST" (yes:
//       the TID came back; CPULIST: the thread's, as its first act)
//   spread_hostile untraced
//       clone(CLONE_THREAD | CLONE_UNTRACED) makes a thread that no ptrace
//       stop announces; it waits (up to 5 s) for its CPU list to become one
//       CPU, then makes a thread of its own (a plain clone); then the main
//       thread makes a pthread. Prints "untraced CPULIST", "its thread
//       CPULIST" and "next CPULIST" (each thread's list as its first act;
//       the untraced one's after the wait)
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::string cpulist(const cpu_set_t& set) {
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int e = c;
    while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) ++e;
    if (!out.empty()) out += ',';
    out += e == c ? std::to_string(c) : std::to_string(c) + "-" + std::to_string(e);
    c = e;
  }
  return out;
}

std::string own_cpulist() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  return cpulist(set);
}

std::vector<char*> g_exec_argv;

void* exec_from_thread(void*) {
  execv(g_exec_argv[0], g_exec_argv.data());
  std::perror("spread_hostile: execv");
  std::_Exit(121);
}

int exec_thread(std::vector<char*> argv) {
  g_exec_argv = std::move(argv);
  g_exec_argv.push_back(nullptr);
  pthread_t t;
  if (pthread_create(&t, nullptr, exec_from_thread, nullptr) != 0) return 120;
  pthread_join(t, nullptr);  // never returns: the exec ends this program
  return 122;
}

std::string g_self;

void* exec_self_reused(void*) {
  std::string tid = std::to_string(gettid());
  char* argv[] = {g_self.data(), const_cast<char*>("reused"), tid.data(), nullptr};
  execv(argv[0], argv);
  std::perror("spread_hostile: execv");
  std::_Exit(121);
}

struct Reused {
  pid_t tid = 0;
  cpu_set_t cpus;
};

void* record_reused(void* arg) {
  auto* r = static_cast<Reused*>(arg);
  sched_getaffinity(0, sizeof r->cpus, &r->cpus);  // the first act
  r->tid = gettid();
  return nullptr;
}

int reused(pid_t want) {
  FILE* f = std::fopen("/proc/sys/kernel/ns_last_pid", "w");
  if (!f || std::fprintf(f, "%d", want - 1) < 0 || std::fclose(f) != 0) {
    std::perror("spread_hostile: ns_last_pid");
    return 123;
  }
  Reused r;
  CPU_ZERO(&r.cpus);
  pthread_t t;
  if (pthread_create(&t, nullptr, record_reused, &r) != 0) return 120;
  pthread_join(t, nullptr);
  std::printf("main %s\n", own_cpulist().c_str());
  std::printf("reused %s %s\n", r.tid == want ? "yes" : "no", cpulist(r.cpus).c_str());
  return 0;
}

// The untraced thread shares the main thread's TLS (no CLONE_SETTLS): it
// makes raw system calls only.
cpu_set_t g_untraced_cpus;
std::atomic<int> g_untraced_done{0};
pid_t g_untraced_tid = 0;  // cleared by the kernel when the thread is gone

constexpr int k_thread_flags =
    CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID |
    CLONE_CHILD_CLEARTID;
cpu_set_t g_inner_cpus;
pid_t g_inner_tid = 0;  // cleared by the kernel when the thread is gone
std::vector<char> g_inner_stack(256 * 1024);

int inner_thread(void*) {
  syscall(SYS_sched_getaffinity, 0, sizeof g_inner_cpus, &g_inner_cpus);  // the first act
  syscall(SYS_exit, 0);
  return 0;
}

void wait_gone(pid_t* tid) {
  while (__atomic_load_n(tid, __ATOMIC_SEQ_CST) != 0) {
    struct timespec ms = {0, 1000000};
    syscall(SYS_nanosleep, &ms, nullptr);
  }
}

int untraced_thread(void*) {
  for (int i = 0; i < 5000; ++i) {  // 1 ms each: up to 5 s
    syscall(SYS_sched_getaffinity, 0, sizeof g_untraced_cpus, &g_untraced_cpus);
    if (CPU_COUNT(&g_untraced_cpus) == 1) break;
    struct timespec ms = {0, 1000000};
    syscall(SYS_nanosleep, &ms, nullptr);
  }
  // A thread of its own (no CLONE_UNTRACED): stopped at its creation where
  // the untraced thread is traced by now.
  if (clone(inner_thread, g_inner_stack.data() + g_inner_stack.size(), k_thread_flags, nullptr, &g_inner_tid,
            nullptr, &g_inner_tid) > 0)
    wait_gone(&g_inner_tid);
  g_untraced_done.store(1);
  syscall(SYS_exit, 0);
  return 0;
}

void* record_next(void* arg) {
  sched_getaffinity(0, sizeof(cpu_set_t), static_cast<cpu_set_t*>(arg));  // the first act
  return nullptr;
}

int untraced() {
  std::vector<char> stack(256 * 1024);
  CPU_ZERO(&g_inner_cpus);
  if (clone(untraced_thread, stack.data() + stack.size(), k_thread_flags | CLONE_UNTRACED, nullptr,
            &g_untraced_tid, nullptr, &g_untraced_tid) < 0) {
    std::perror("spread_hostile: clone");
    return 120;
  }
  while (!g_untraced_done.load() || __atomic_load_n(&g_untraced_tid, __ATOMIC_SEQ_CST) != 0) usleep(1000);
  cpu_set_t next;
  CPU_ZERO(&next);
  pthread_t t;
  if (pthread_create(&t, nullptr, record_next, &next) != 0) return 120;
  pthread_join(t, nullptr);
  std::printf("untraced %s\n", cpulist(g_untraced_cpus).c_str());
  std::printf("its thread %s\n", cpulist(g_inner_cpus).c_str());
  std::printf("next %s\n", cpulist(next).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "exec-thread" && argc >= 3) return exec_thread(std::vector<char*>(argv + 2, argv + argc));
  if (mode == "reuse" && argc == 2) {
    g_self = "/proc/self/exe";
    pthread_t t;
    if (pthread_create(&t, nullptr, exec_self_reused, nullptr) != 0) return 120;
    pthread_join(t, nullptr);
    return 122;
  }
  if (mode == "reused" && argc == 3) return reused(static_cast<pid_t>(std::atoi(argv[2])));
  if (mode == "untraced" && argc == 2) return untraced();
  std::fprintf(stderr, "usage: spread_hostile exec-thread PROG ARG... | reuse | untraced\n");
  return 120;
}
