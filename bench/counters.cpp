// bench-counters [INCREMENTS]: the two-counter benchmark of affix(1), "One
// CPU each". Four threads created in this order: t0 and t1 add to counter
// a, t2 and t3 to counter b (each counter on its own cache line), INCREMENTS
// atomic adds each (default 20,000,000). Prints the wall time from the first
// thread's creation to the last join, in ms, and the CPUs each thread ran on
// at its end. Under `affix --spread=2 core:0-1 bench-counters` t0 and t1
// share core 0 and t2 and t3 core 1: the two threads of a counter never pull
// its cache line across cores.
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

struct alignas(64) Counter {
  std::atomic<unsigned long> value{0};
};
Counter g_counters[2];
unsigned long g_increments = 20000000;
int g_cpu[4];

void* add(void* arg) {
  long i = reinterpret_cast<long>(arg);
  auto& c = g_counters[i / 2].value;
  for (unsigned long n = 0; n < g_increments; ++n) c.fetch_add(1, std::memory_order_relaxed);
  g_cpu[i] = sched_getcpu();
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) g_increments = std::strtoul(argv[1], nullptr, 10);
  pthread_t t[4];
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < 4; ++i) {
    if (pthread_create(&t[i], nullptr, add, reinterpret_cast<void*>(i)) != 0) {
      std::fprintf(stderr, "bench-counters: cannot create a thread\n");
      return 1;
    }
  }
  for (auto& th : t) pthread_join(th, nullptr);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("%.1f ms (t0..t3 ended on CPUs %d %d %d %d)\n", ms, g_cpu[0], g_cpu[1], g_cpu[2], g_cpu[3]);
  return g_counters[0].value + g_counters[1].value == 4 * g_increments ? 0 : 1;
}
