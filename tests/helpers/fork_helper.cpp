// fork_helper INTERVAL_MS: a process tree that never stops forking, for
// `pin --tree`. The main process (2 threads) forks a long-lived child, which
// forks a long-lived grandchild; the main process and the child each fork a
// short-lived process every INTERVAL_MS milliseconds (it starts a thread,
// lives about 3 ms, exits). Prints "ready" once the long-lived ones run;
// runs until killed (each process exits when its parent does).
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "waiting_threads.hpp"

namespace {

void sleep_ms(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&ts, nullptr);
}

void die_with_parent() { prctl(PR_SET_PDEATHSIG, SIGKILL); }

// Forks a process that starts a thread, lives ~3 ms and exits.
void fork_short_lived() {
  pid_t pid = fork();
  if (pid != 0) return;
  die_with_parent();
  helpers::start_waiting_threads(1);
  sleep_ms(3);
  _exit(0);
}

[[noreturn]] void keep_forking(long interval_ms) {
  for (;;) {
    fork_short_lived();
    sleep_ms(interval_ms);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fork_helper INTERVAL_MS\n");
    return 2;
  }
  long interval = std::strtol(argv[1], nullptr, 10);
  signal(SIGCHLD, SIG_IGN);  // children are reaped by the kernel
  if (!helpers::start_waiting_threads(1)) return 1;
  pid_t child = fork();
  if (child == 0) {
    die_with_parent();
    if (fork() == 0) {  // the grandchild: waits
      die_with_parent();
      helpers::wait_forever(nullptr);
    }
    keep_forking(interval);
  }
  std::printf("ready\n");
  std::fflush(stdout);
  keep_forking(interval);
}
