#include "top_batch.hpp"

#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "error.hpp"
#include "top_output.hpp"

namespace affix {

void top_sleep(double seconds) {
  timespec ts{static_cast<time_t>(seconds), static_cast<long>((seconds - static_cast<double>(static_cast<time_t>(seconds))) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

int run_top_batch(TopSource& source, const TopScreenOptions& options) {
  source.next();  // the starting point
  for (unsigned k = 0; options.frames == 0 || k < options.frames; ++k) {
    top_sleep(options.interval);
    std::string text = (k ? "\n" : "") + top_text(source.next());
    errno = 0;
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
      int err = errno ? errno : EIO;
      throw Error(ErrorKind::Runtime, fmt::format("cannot write to standard output: {}", std::strerror(err)));
    }
  }
  return k_exit_ok;
}

}  // namespace affix
