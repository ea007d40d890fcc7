// lifetime_helper RATE LIFE_MS IDLE: a process whose threads keep being
// born and dying, each living a while: IDLE threads that only wait, and one
// that creates RATE threads a second, each of which lives LIFE_MS
// milliseconds and exits (so about RATE * LIFE_MS / 1000 of them are alive
// at any moment, and RATE exit every second). Prints "ready" once the
// population is there; runs until killed.
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "waiting_threads.hpp"

namespace {

long g_life_ms = 0;

void sleep_ns(long long ns) {
  timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  nanosleep(&ts, nullptr);
}

void* live_a_while(void*) {
  sleep_ns(g_life_ms * 1000000ll);
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: lifetime_helper RATE LIFE_MS IDLE\n");
    return 2;
  }
  long rate = std::strtol(argv[1], nullptr, 10);
  g_life_ms = std::strtol(argv[2], nullptr, 10);
  long idle = std::strtol(argv[3], nullptr, 10);
  if (rate <= 0 || g_life_ms <= 0 || !helpers::start_waiting_threads(idle)) return 2;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  bool ready = false;
  for (long long born = 0;; ++born) {
    pthread_t t;
    while (pthread_create(&t, &attr, live_a_while, nullptr) != 0) usleep(100);
    // Keep to the rate on average: sleep until the next birth is due.
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long elapsed = (now.tv_sec - start.tv_sec) * 1000000000ll + (now.tv_nsec - start.tv_nsec);
    long long due = (born + 1) * 1000000000ll / rate;
    if (due > elapsed) sleep_ns(due - elapsed);
    if (!ready && elapsed >= g_life_ms * 1000000ll) {
      std::printf("ready\n");
      std::fflush(stdout);
      ready = true;
    }
  }
}
