// bench-threads N: a process with N extra threads that only wait, for the
// re-pin benchmark. Prints "ready PID" once every thread exists, then waits
// until its standard input is closed and exits. Stacks are small (64 KiB) so
// that 10,000 threads fit; a thread that cannot be created is an error (exit 1)
// that names the limit to raise (ulimit -u, kernel.threads-max, kernel.pid_max).
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;

void* wait_forever(void*) {
  pthread_mutex_lock(&g_mutex);
  for (;;) pthread_cond_wait(&g_cond, &g_mutex);
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench-threads N\n");
    return 2;
  }
  char* end = nullptr;
  long n = std::strtol(argv[1], &end, 10);
  if (*end != '\0' || n < 0 || n > 1000000) {
    std::fprintf(stderr, "bench-threads: bad thread count '%s'\n", argv[1]);
    return 2;
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  for (long i = 0; i < n; ++i) {
    pthread_t t;
    int rc = pthread_create(&t, &attr, wait_forever, nullptr);
    if (rc != 0) {
      std::fprintf(stderr,
                   "bench-threads: thread %ld of %ld: %s (raise ulimit -u, "
                   "/proc/sys/kernel/threads-max or /proc/sys/kernel/pid_max)\n",
                   i + 1, n, std::strerror(rc));
      return 1;
    }
  }
  std::printf("ready %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  char buf[64];
  while (read(0, buf, sizeof buf) > 0 || errno == EINTR) {
    errno = 0;
  }
  _exit(0);
}
