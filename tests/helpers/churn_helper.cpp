// churn_helper WORKERS CHAINS [IDLE [GROW]]: threads that never stop
// creating threads. Each of WORKERS threads creates a short-lived thread and
// joins it, over and over; each of CHAINS chains is one thread at a time that
// creates its successor and exits; IDLE more threads only wait (a process
// large enough for pin's batch reads on several CPUs); after "ready", one
// thread creates GROW more waiting threads, one every 200 us, then waits
// too. Prints "ready" once all are running; runs until killed.
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "waiting_threads.hpp"

namespace {

pthread_attr_t g_attr;

void* short_lived(void*) { return nullptr; }

long g_grow = 0;

void* grower(void*) {
  for (long i = 0; i < g_grow; ++i) {
    pthread_t t;
    while (pthread_create(&t, &g_attr, helpers::wait_forever, nullptr) != 0) usleep(100);
    usleep(200);
  }
  for (;;) pause();
  return nullptr;
}

void* worker(void*) {
  for (;;) {
    pthread_t t;
    if (pthread_create(&t, &g_attr, short_lived, nullptr) == 0) pthread_join(t, nullptr);
  }
  return nullptr;
}

void* chain_link(void*) {
  pthread_attr_t detached;
  pthread_attr_init(&detached);
  pthread_attr_setstacksize(&detached, 64 * 1024);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  pthread_t next;
  while (pthread_create(&next, &detached, chain_link, nullptr) != 0) usleep(100);
  pthread_attr_destroy(&detached);
  return nullptr;  // the successor lives on
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: churn_helper WORKERS CHAINS [IDLE [GROW]]\n");
    return 2;
  }
  long workers = std::strtol(argv[1], nullptr, 10);
  long chains = std::strtol(argv[2], nullptr, 10);
  long idlers = argc > 3 ? std::strtol(argv[3], nullptr, 10) : 0;
  g_grow = argc > 4 ? std::strtol(argv[4], nullptr, 10) : 0;
  pthread_attr_init(&g_attr);
  pthread_attr_setstacksize(&g_attr, 64 * 1024);
  if (!helpers::start_waiting_threads(idlers)) return 1;
  for (long i = 0; i < workers; ++i) {
    pthread_t t;
    pthread_create(&t, &g_attr, worker, nullptr);
  }
  for (long i = 0; i < chains; ++i) {
    pthread_t t;
    pthread_create(&t, &g_attr, chain_link, nullptr);
    pthread_detach(t);
  }
  std::printf("ready\n");
  std::fflush(stdout);
  if (g_grow > 0) {
    pthread_t t;
    pthread_create(&t, &g_attr, grower, nullptr);
  }
  for (;;) pause();
}
