// on_pty FILE COMMAND [ARG...]: runs COMMAND with its stderr on a new
// pseudo-terminal (stdin and stdout as given), copies everything written to
// that terminal into FILE byte for byte (no \r\n translation: the terminal
// is raw), and exits with COMMAND's status (128+N for signal N). For the VM
// scenarios that read what affix shows on a terminal (busybox has no
// `script`). Built static by run-all. Exit status 120 where it cannot start.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: on_pty FILE COMMAND [ARG...]\n");
    return 120;
  }
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    std::perror("on_pty: posix_openpt");
    return 120;
  }
  const char* name = ptsname(master);
  int slave = name ? open(name, O_RDWR | O_NOCTTY) : -1;
  if (slave < 0) {
    std::perror("on_pty: open pts");
    return 120;
  }
  termios t{};
  if (tcgetattr(slave, &t) == 0) {
    cfmakeraw(&t);
    tcsetattr(slave, TCSANOW, &t);
  }
  FILE* out = std::fopen(argv[1], "w");
  if (!out) {
    std::perror("on_pty: output file");
    return 120;
  }
  pid_t child = fork();
  if (child < 0) {
    std::perror("on_pty: fork");
    return 120;
  }
  if (child == 0) {
    close(master);
    dup2(slave, 2);
    close(slave);
    execvp(argv[2], argv + 2);
    std::perror("on_pty: exec");
    _exit(120);
  }
  close(slave);
  char buf[4096];
  for (;;) {
    ssize_t n = read(master, buf, sizeof buf);
    if (n > 0) {
      std::fwrite(buf, 1, static_cast<size_t>(n), out);
      std::fflush(out);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // EIO: every descriptor of the terminal is closed
  }
  std::fclose(out);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
