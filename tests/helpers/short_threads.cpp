// short_threads: 2 threads that compute for 30 ms and end, made again and
// again by the main thread (which only waits for them): every thread lives
// far shorter than a watch's interval, and the process uses about 2 CPUs.
// Prints "ready PID" once the first pair ran. Runs until killed.
// For tests/cli/watch_short_threads.sh.
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

namespace {

unsigned long long now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<unsigned long long>(ts.tv_sec) * 1000000000ull + static_cast<unsigned long long>(ts.tv_nsec);
}

void* spin(void*) {
  unsigned long long end = now_ns() + 30000000ull;
  volatile unsigned long x = 0;
  while (now_ns() < end)
    for (int i = 0; i < 1000; ++i) x = x + 1;
  return nullptr;
}

}  // namespace

int main(int argc, char**) {
  if (argc != 1) {
    std::fprintf(stderr, "usage: short_threads\n");
    return 2;
  }
  for (bool first = true;; first = false) {
    pthread_t a, b;
    if (pthread_create(&a, nullptr, spin, nullptr) != 0 || pthread_create(&b, nullptr, spin, nullptr) != 0) return 1;
    pthread_join(a, nullptr);
    pthread_join(b, nullptr);
    if (first) {
      std::printf("ready %ld\n", static_cast<long>(getpid()));
      std::fflush(stdout);
    }
  }
}
