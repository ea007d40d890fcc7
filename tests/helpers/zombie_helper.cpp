// zombie_helper child: forks a child that exits at once and is never
//   reaped (a zombie, <defunct>); prints "ready PARENT CHILD" once the child
//   reads as a zombie, then waits to be killed.
// zombie_helper leader: a worker thread keeps computing and touching 32 MiB
//   of its own memory while the main thread calls pthread_exit (a zombie
//   leader: /proc/PID/numa_maps reads empty); prints "ready PID WORKER_TID"
//   once the leader reads as a zombie. Runs until killed.
// For the tests of `affix watch` on zombies (tests/cli/watch_zombie.sh).
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// The state letter of /proc/PID/task/TID/stat ('?' where unreadable).
char state_of(pid_t pid, pid_t tid) {
  std::string path = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat";
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return '?';
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* close = std::strrchr(buf, ')');
  return close && close[1] == ' ' ? close[2] : '?';
}

pid_t g_leader;

void* worker(void*) {
  const size_t size = 32u << 20;
  auto* mem = static_cast<volatile char*>(std::malloc(size));
  if (!mem) std::_Exit(1);
  for (size_t i = 0; i < size; i += 4096) mem[i] = 1;
  bool said = false;
  for (unsigned long round = 0;; ++round) {
    for (size_t i = 0; i < size; i += 4096) mem[i] = static_cast<char>(mem[i] + 1);
    if (!said && state_of(g_leader, g_leader) == 'Z') {
      std::printf("ready %ld %ld\n", static_cast<long>(g_leader), static_cast<long>(syscall(SYS_gettid)));
      std::fflush(stdout);
      said = true;
    }
    if (round % 64 == 0) usleep(1000);  // computes most of the time
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc == 2 ? argv[1] : "";
  if (mode == "child") {
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) _exit(0);
    while (state_of(child, child) != 'Z') usleep(1000);
    std::printf("ready %ld %ld\n", static_cast<long>(getpid()), static_cast<long>(child));
    std::fflush(stdout);
    for (;;) pause();
  }
  if (mode == "leader") {
    g_leader = getpid();
    pthread_t t;
    if (pthread_create(&t, nullptr, worker, nullptr) != 0) return 1;
    pthread_exit(nullptr);
  }
  std::fprintf(stderr, "usage: zombie_helper child|leader\n");
  return 2;
}
