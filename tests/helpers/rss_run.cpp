// rss_run REPORT PROGRAM [ARG...]: runs PROGRAM as its child and writes how
// it ended and its peak resident memory to the file REPORT:
//   exit N | signal N
//   maxrss KB
// A child's ru_maxrss includes the memory of the process it was forked
// from (Linux records the old mm's peak at exec), so a test that forks from
// a large test binary measures through this small one instead.
// Exit status 0 once REPORT is written, 120 when the helper itself fails.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: rss_run REPORT PROGRAM [ARG...]\n");
    return 120;
  }
  pid_t pid = fork();
  if (pid < 0) return 120;
  if (pid == 0) {
    execv(argv[2], argv + 2);
    _exit(122);
  }
  int status = 0;
  struct rusage ru {};
  while (wait4(pid, &status, 0, &ru) < 0) {
  }
  FILE* f = std::fopen(argv[1], "w");
  if (!f) return 120;
  if (WIFEXITED(status))
    std::fprintf(f, "exit %d\n", WEXITSTATUS(status));
  else
    std::fprintf(f, "signal %d\n", WTERMSIG(status));
  std::fprintf(f, "maxrss %ld\n", ru.ru_maxrss);
  std::fclose(f);
  return 0;
}
