// mem_helper PAGES FILE: a process of one thread with memory of its own and
// a file's page cache: it writes PAGES pages of anonymous memory (no huge
// pages: its page count stays what it wrote), reads every page of FILE
// through a read-only mapping, prints "ready" and sleeps until killed
// (it never runs again: its last CPU stays where it was).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: mem_helper PAGES FILE\n");
    return 2;
  }
  const long page = sysconf(_SC_PAGESIZE);
  const size_t pages = std::strtoul(argv[1], nullptr, 10);
  void* anon = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (anon == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  madvise(anon, pages * page, MADV_NOHUGEPAGE);
  for (size_t i = 0; i < pages; ++i) static_cast<volatile char*>(anon)[i * page] = 1;
  int fd = open(argv[2], O_RDONLY);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
    std::perror(argv[2]);
    return 1;
  }
  void* file = mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (file == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  close(fd);
  char sum = 0;
  for (off_t at = 0; at < st.st_size; at += page) sum = static_cast<char>(sum + static_cast<volatile char*>(file)[at]);
  std::printf("ready %d\n", sum == 42);
  std::fflush(stdout);
  for (;;) pause();
}
