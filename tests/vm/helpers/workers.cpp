// workers N [WORK_US SLEEP_US] [--ready FILE]: a stand-in for a server: N
// threads that each compute for WORK_US microseconds (default 2000) and
// sleep for SLEEP_US (default 1000), over and over, wherever the scheduler
// puts them (no affinity of their own). Writes "ready PID" to FILE (and
// stdout) once they run; runs until killed. Built static by run-all.
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

long g_work = 2000, g_sleep = 1000;

void spin_us(long us) {
  timespec t0, t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

void* work(void*) {
  for (;;) {
    spin_us(g_work);
    usleep(static_cast<useconds_t>(g_sleep));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string ready;
  long n = 0;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--ready") == 0 && i + 1 < argc) {
      ready = argv[++i];
    } else {
      long v = std::strtol(argv[i], nullptr, 10);
      if (positional == 0) n = v;
      else if (positional == 1) g_work = v;
      else g_sleep = v;
      ++positional;
    }
  }
  if (n < 1) {
    std::fprintf(stderr, "usage: workers N [WORK_US SLEEP_US] [--ready FILE]\n");
    return 2;
  }
  for (long i = 0; i < n; ++i) {
    pthread_t t;
    if (pthread_create(&t, nullptr, work, nullptr) != 0) return 1;
  }
  std::string line = "ready " + std::to_string(getpid()) + "\n";
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);
  if (!ready.empty()) {
    std::string part = ready + ".part";
    if (FILE* f = std::fopen(part.c_str(), "w")) {
      std::fputs(line.c_str(), f);
      std::fclose(f);
      std::rename(part.c_str(), ready.c_str());
    }
  }
  for (;;) pause();
}
