// watch_family MODE PIDFILE: a parent and a child that spin a known amount
// of CPU time, for `affix watch -- COMMAND` and `affix watch --tree PID`.
//
// command: writes a fixed text with odd bytes to stdout, forks a child that
// starts two threads spinning 300 ms of CPU time each (their own clocks),
// spins 300 ms on a thread of its own, waits for the child, writes
// "PARENT CHILD\n" to PIDFILE and exits with status 7. The child, after its
// threads, sleeps 300 ms before it exits (a sample of a watch at 0.2 s
// intervals falls after its spinning).
// tree: writes "PARENT\n" to PIDFILE, sleeps 500 ms, then forks the child
// as above, waits for it, writes "PARENT CHILD\n" to PIDFILE.new and renames
// it onto PIDFILE, then sleeps until killed.
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

void sleep_ms(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&ts, nullptr);
}

double thread_cpu_s() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

volatile unsigned long g_sink;

void* spin(void*) {
  double start = thread_cpu_s();
  while (thread_cpu_s() - start < 0.3)
    for (int i = 0; i < 10000; ++i) g_sink = g_sink + static_cast<unsigned long>(i);
  return nullptr;
}

pid_t fork_child() {
  pid_t pid = fork();
  if (pid != 0) return pid;
  pthread_t a, b;
  pthread_create(&a, nullptr, spin, nullptr);
  pthread_create(&b, nullptr, spin, nullptr);
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  sleep_ms(300);
  _exit(0);
}

void write_file(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) _exit(3);
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fputs("usage: watch_family command|tree PIDFILE\n", stderr);
    return 2;
  }
  std::string mode = argv[1], file = argv[2];
  if (mode == "command") {
    static const char text[] = "out: \x01\x02 \xff bytes\r\nno newline at the end";
    std::fwrite(text, 1, sizeof text - 1, stdout);
    std::fflush(stdout);
    pid_t child = fork_child();
    pthread_t t;
    pthread_create(&t, nullptr, spin, nullptr);
    pthread_join(t, nullptr);
    int st = 0;
    waitpid(child, &st, 0);
    write_file(file, std::to_string(getpid()) + " " + std::to_string(child) + "\n");
    return 7;
  }
  if (mode == "tree") {
    write_file(file, std::to_string(getpid()) + "\n");
    sleep_ms(500);
    pid_t child = fork_child();
    int st = 0;
    waitpid(child, &st, 0);
    write_file(file + ".new", std::to_string(getpid()) + " " + std::to_string(child) + "\n");
    std::rename((file + ".new").c_str(), file.c_str());
    for (;;) pause();
  }
  return 2;
}
