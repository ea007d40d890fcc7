// setuid_helper UID N: a process of N threads in which only the main thread
// changes its credentials to UID (the raw setresuid syscall: glibc's wrapper
// would change every thread). An affix running as UID may then move the
// main thread and no other. Prints "ready"; waits to be killed.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "waiting_threads.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: setuid_helper UID N\n");
    return 2;
  }
  long uid = std::strtol(argv[1], nullptr, 10);
  long n = std::strtol(argv[2], nullptr, 10);
  if (!helpers::start_waiting_threads(n - 1)) return 1;
  if (syscall(SYS_setresuid, uid, uid, uid) != 0) {
    std::perror("setresuid");
    return 1;
  }
  std::printf("ready\n");
  std::fflush(stdout);
  helpers::wait_forever(nullptr);
}
