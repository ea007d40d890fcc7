// hopper CPU_A CPU_B MOVES [READY_FILE [NAME]]: a process of three threads
// for the tests of `affix watch` (NAME: the process's comm, any bytes):
//   - the hopper moves itself between CPU_A and CPU_B, MOVES times
//     (sched_setaffinity to the other CPU, then a short spin there), once
//     the process gets SIGUSR1; then it writes "done N" to stdout (and
//     READY_FILE.done) and waits;
//   - the steady thread stays on CPU_A and runs a little every few
//     milliseconds (it runs, it never moves);
//   - the main thread waits.
// Prints "ready PID HOPPER_TID STEADY_TID" (and writes it to READY_FILE)
// once the hopper sits on CPU_A and the steady thread is pinned. Each move
// is one migration that the thread runs after. Exit status 1 where a move
// fails (CPUs not allowed).
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

int g_a = 0, g_b = 1;
long g_moves = 0;
std::atomic<pid_t> g_hopper{0}, g_steady{0};
std::string g_ready_file;

bool pin_self(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

void spin_us(long us) {
  timespec t0, t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

void write_file(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  std::string part = path + ".part";
  if (FILE* f = std::fopen(part.c_str(), "w")) {
    std::fputs(text.c_str(), f);
    std::fclose(f);
    std::rename(part.c_str(), path.c_str());
  }
}

void* hopper(void*) {
  if (!pin_self(g_a)) {
    std::perror("hopper: sched_setaffinity");
    std::exit(1);
  }
  g_hopper = static_cast<pid_t>(syscall(SYS_gettid));
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  int sig = 0;
  sigwait(&usr1, &sig);
  for (long i = 0; i < g_moves; ++i) {
    if (!pin_self(i % 2 == 0 ? g_b : g_a)) {
      std::perror("hopper: sched_setaffinity");
      std::exit(1);
    }
    spin_us(200);
  }
  std::string done = "done " + std::to_string(g_moves) + "\n";
  std::fputs(done.c_str(), stdout);
  std::fflush(stdout);
  write_file(g_ready_file.empty() ? "" : g_ready_file + ".done", done);
  for (;;) pause();
}

void* steady(void*) {
  if (!pin_self(g_a)) {
    std::perror("steady: sched_setaffinity");
    std::exit(1);
  }
  g_steady = static_cast<pid_t>(syscall(SYS_gettid));
  for (;;) {
    spin_us(100);
    usleep(5000);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: hopper CPU_A CPU_B MOVES [READY_FILE [NAME]]\n");
    return 2;
  }
  g_a = std::atoi(argv[1]);
  g_b = std::atoi(argv[2]);
  g_moves = std::atol(argv[3]);
  if (argc > 4) g_ready_file = argv[4];
  if (argc > 5) prctl(PR_SET_NAME, argv[5], 0, 0, 0);  // before the threads: they inherit it
  // SIGUSR1 is taken by the hopper's sigwait: blocked in every thread.
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
  pthread_t t;
  pthread_create(&t, nullptr, hopper, nullptr);
  pthread_create(&t, nullptr, steady, nullptr);
  while (!g_hopper || !g_steady) usleep(1000);
  std::string ready = "ready " + std::to_string(getpid()) + " " + std::to_string(g_hopper) + " " +
                      std::to_string(g_steady) + "\n";
  std::fputs(ready.c_str(), stdout);
  std::fflush(stdout);
  write_file(g_ready_file, ready);
  for (;;) pause();
}
