#pragma once
// CLI11's parse errors in affix's words where CLI11's would puzzle.

#include <string>

#include <CLI/CLI.hpp>

namespace affix {

// "json was given a disallowed flag override" (from `--json=3` on a flag
// that takes no value) becomes "option '--json' takes no value", as the
// placement commands say it; any other message is CLI11's own.
inline std::string cli_error_text(const CLI::ParseError& e) {
  std::string what = e.what();
  const std::string tail = " was given a disallowed flag override";
  if (what.size() > tail.size() && what.compare(what.size() - tail.size(), tail.size(), tail) == 0)
    return "option '--" + what.substr(0, what.size() - tail.size()) + "' takes no value";
  return what;
}

}  // namespace affix
