// spawn_helper N: a process of N threads (the main one included) that
// creates one more thread on SIGUSR1 and forks one more child on SIGUSR2,
// from its main thread, each waiting to be killed (a child dies with its
// parent). Prints "ready", then "thread TID" or "child PID" for each one
// once it exists; runs until killed. For tests that make a thread or a
// process appear at one chosen instant (notify_run).
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "waiting_threads.hpp"

namespace {

void* announce_and_wait(void*) {
  std::printf("thread %ld\n", static_cast<long>(syscall(SYS_gettid)));
  std::fflush(stdout);
  return helpers::wait_forever(nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: spawn_helper N\n");
    return 2;
  }
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGUSR1);
  sigaddset(&signals, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // the threads inherit it: only sigwait takes them
  if (!helpers::start_waiting_threads(std::strtol(argv[1], nullptr, 10) - 1)) return 1;
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0) continue;
    if (sig == SIGUSR1) {
      pthread_attr_t attr;
      pthread_attr_init(&attr);
      pthread_attr_setstacksize(&attr, 64 * 1024);
      pthread_t t;
      pthread_create(&t, &attr, announce_and_wait, nullptr);
      pthread_attr_destroy(&attr);
    } else {
      pid_t child = fork();
      if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (;;) pause();
      }
      std::printf("child %d\n", static_cast<int>(child));
      std::fflush(stdout);
    }
  }
}
