// run_top_screen (src/top/top_screen.cpp) off a terminal: refused before it
// reads a frame or touches the terminal. (On a terminal: tests/cli/top_screen.sh,
// through a pseudo-terminal read by pyte.)

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "error.hpp"
#include "top_screen.hpp"

using namespace affix;

namespace {

struct CountingSource : TopSource {
  unsigned calls = 0;
  TopFrame next() override {
    ++calls;
    return {};
  }
};

}  // namespace

TEST_CASE("top screen: refused where standard output is not a terminal", "[top_screen]") {
  std::fflush(stdout);
  int saved = ::dup(STDOUT_FILENO);
  REQUIRE(saved >= 0);
  int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  REQUIRE(null >= 0);
  ::dup2(null, STDOUT_FILENO);
  ::close(null);
  CountingSource source;
  ErrorKind kind = ErrorKind::Runtime;
  std::string what, hint;
  try {
    run_top_screen(source, TopScreenOptions{});
  } catch (const Error& e) {
    kind = e.kind();
    what = e.what();
    hint = e.hint();
  }
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  CHECK(kind == ErrorKind::Usage);
  CHECK(what == "the live screen of 'affix top' needs a terminal: standard output is not one");
  CHECK(hint == "'affix top --once' prints one interval as text ('--once --json': JSON) for pipes and files");
  CHECK(source.calls == 0);
}
