// run_top_screen (src/top/top_screen.cpp) off a terminal: refused before it
// reads a frame or touches the terminal. On a pseudo-terminal of the test's
// own: a frame source that throws after the first frame leaves the terminal
// as it was (alternate screen left, cursor shown, signal handlers put back)
// and the error reaches the caller. (The rest on a terminal:
// tests/cli/top_screen.sh, through a pseudo-terminal read by pyte.)

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

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

// Throws at its second frame, as a failing read of /proc would.
struct FailingSource : TopSource {
  unsigned calls = 0;
  TopFrame next() override {
    if (++calls > 1) throw Error(ErrorKind::Runtime, "the frame source failed");
    TopFrame f;
    f.interval = 0.1;
    return f;
  }
};

}  // namespace

TEST_CASE("top screen: an error inside the screen gives the terminal back", "[top_screen]") {
  int master = -1, slave = -1;
  winsize size{};
  size.ws_row = 24;
  size.ws_col = 80;
  REQUIRE(::openpty(&master, &slave, nullptr, nullptr, &size) == 0);
  std::fflush(stdout);
  int saved_out = ::dup(STDOUT_FILENO), saved_in = ::dup(STDIN_FILENO);
  REQUIRE(saved_out >= 0);
  REQUIRE(saved_in >= 0);
  ::dup2(slave, STDOUT_FILENO);
  ::dup2(slave, STDIN_FILENO);
  const char* old_term = std::getenv("TERM");
  std::string saved_term = old_term ? old_term : "";
  ::setenv("TERM", "xterm", 1);
  struct sigaction before {};
  sigaction(SIGTERM, nullptr, &before);

  FailingSource source;
  TopScreenOptions options;
  options.interval = 0.1;
  options.color = false;
  std::string what;
  try {
    run_top_screen(source, options);
  } catch (const Error& e) {
    what = e.what();
  }
  std::fflush(stdout);
  ::dup2(saved_out, STDOUT_FILENO);
  ::dup2(saved_in, STDIN_FILENO);
  ::close(saved_out);
  ::close(saved_in);
  if (old_term) ::setenv("TERM", saved_term.c_str(), 1); else ::unsetenv("TERM");
  ::close(slave);
  // What affix wrote to the terminal, as the terminal got it.
  std::string out;
  ::fcntl(master, F_SETFL, O_NONBLOCK);
  char buf[4096];
  for (ssize_t n; (n = ::read(master, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(master);
  struct sigaction after {};
  sigaction(SIGTERM, nullptr, &after);

  CHECK(what == "the frame source failed");
  CHECK(source.calls == 2);
  // xterm's smcup/rmcup (the alternate screen) and cnorm (the cursor shown).
  const std::string enter = "\x1b[?1049h", leave = "\x1b[?1049l", cursor = "\x1b[?25h";
  auto entered = out.find(enter), left = out.rfind(leave), shown = out.rfind(cursor);
  REQUIRE(entered != std::string::npos);
  REQUIRE(left != std::string::npos);
  CHECK(left > entered);
  REQUIRE(shown != std::string::npos);
  CHECK(shown > entered);
  CHECK(after.sa_handler == before.sa_handler);
}

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
