// libnuma's weak numa_warn / numa_error are overridden in os_linux.cpp so
// that its messages come out in affix's format, one line each.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <functional>
#include <string>

#include "os.hpp"

extern "C" void numa_warn(int num, char* fmt, ...);
extern "C" void numa_error(char* where);

namespace {

// What `f` writes on stderr (fd 2).
std::string stderr_of(const std::function<void()>& f) {
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  REQUIRE(tmp);
  int saved = dup(2);
  dup2(fileno(tmp), 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::rewind(tmp);
  std::string out;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, tmp)) out.append(buf, n);
  std::fclose(tmp);
  return out;
}

}  // namespace

TEST_CASE("libnuma warnings come out as one affix line") {
  (void)affix::linux_os();  // the overrides live beside the real Os
  char fmt1[] = "Cannot read node cpumask from sysfs\n";
  CHECK(stderr_of([&] { numa_warn(1, fmt1); }) ==
        "affix: warning: libnuma: Cannot read node cpumask from sysfs\n");
  char fmt2[] = "node %d has %s";
  char word[] = "no memory";
  CHECK(stderr_of([&] { numa_warn(2, fmt2, 3, word); }) ==
        "affix: warning: libnuma: node 3 has no memory\n");
  char where[] = "set_mempolicy";
  CHECK(stderr_of([&] {
          errno = EINVAL;
          numa_error(where);
        }) == "affix: warning: libnuma: set_mempolicy: Invalid argument\n");
}
