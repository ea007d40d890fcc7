#pragma once
// The commands whose grammar is ordinary (topo, show, watch) parse with
// CLI11, but CLI11 never speaks for affix: parse_cli11 turns every CLI11
// parse error into an affix::Error(Usage) in affix's words.

#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.hpp"
#include "error.hpp"

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

// Parses `args` (the words after the command name) with `app`. Returns false
// where --help was asked for (its text is printed on stdout); throws
// Error(Usage) for any parse error.
inline bool parse_cli11(CLI::App& app, const Args& args, const char* command) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return false;
  } catch (const CLI::ParseError& e) {
    throw Error(ErrorKind::Usage, cli_error_text(e), fmt::format("see 'affix {} --help'", command));
  }
  return true;
}

}  // namespace affix
