// busy_threads N: a process of N threads (the main one
// included) that compute without a pause, never sleeping nor yielding, on
// the CPUs it was started on (taskset, affix): for the tests of the
// run-queue wait of `affix watch` (N of them on fewer CPUs wait for one).
// Prints "ready PID" once every thread runs; runs until killed.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {

std::atomic<long> g_running{0};

[[noreturn]] void compute() {
  g_running.fetch_add(1);
  volatile unsigned long x = 0;
  for (;;) x = x + 1;
}

void* thread_main(void*) { compute(); }

}  // namespace

int main(int argc, char** argv) {
  long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 0;
  if (n < 1 || n > 1024 || argc > 2) {
    std::fprintf(stderr, "usage: busy_threads N\n");
    return 2;
  }
  for (long i = 1; i < n; ++i) {
    pthread_t t;
    if (pthread_create(&t, nullptr, thread_main, nullptr) != 0) return 1;
  }
  while (g_running.load() < n - 1) usleep(1000);
  std::printf("ready %ld\n", static_cast<long>(getpid()));
  std::fflush(stdout);
  compute();
}
