// threads_helper N [exit-on-move|leader-exits]: a process of N threads
// (the main one included) that prints "ready" once they all exist and then
// waits to be killed. With exit-on-move the main thread watches its own CPU
// list and exits the whole process the moment someone changes it (a process
// that exits while affix moves it). With leader-exits the main thread
// alone exits after "ready" (pthread_exit: a zombie leader while the other
// threads run).
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "waiting_threads.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: threads_helper N [exit-on-move|leader-exits]\n");
    return 2;
  }
  long n = std::strtol(argv[1], nullptr, 10);
  bool exit_on_move = argc > 2 && std::strcmp(argv[2], "exit-on-move") == 0;
  if (!helpers::start_waiting_threads(n - 1)) return 1;
  cpu_set_t initial;
  sched_getaffinity(0, sizeof initial, &initial);
  std::printf("ready\n");
  std::fflush(stdout);
  if (argc > 2 && std::strcmp(argv[2], "leader-exits") == 0) pthread_exit(nullptr);
  if (!exit_on_move) helpers::wait_forever(nullptr);
  for (;;) {
    cpu_set_t now;
    sched_getaffinity(0, sizeof now, &now);
    if (!CPU_EQUAL(&now, &initial)) _exit(0);
  }
}
