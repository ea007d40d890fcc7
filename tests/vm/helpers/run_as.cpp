// run_as UID COMMAND [ARG...]: runs COMMAND as user UID (group UID, no
// supplementary groups), for the VM scenarios that need an unprivileged
// user (busybox has no setpriv). Built static by run-all. Exit status 120
// where it cannot change user or exec.
#include <grp.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: run_as UID COMMAND [ARG...]\n");
    return 120;
  }
  auto id = static_cast<uid_t>(std::strtoul(argv[1], nullptr, 10));
  if (setgroups(0, nullptr) != 0 || setresgid(id, id, id) != 0 || setresuid(id, id, id) != 0) {
    std::perror("run_as");
    return 120;
  }
  execvp(argv[2], argv + 2);
  std::perror("run_as: exec");
  return 120;
}
