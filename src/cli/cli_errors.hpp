#pragma once
// The commands whose grammar is ordinary (topo, show, watch) parse with
// CLI11, but CLI11 never speaks for affix. parse_cli11 first checks the
// words itself, against the options the CLI11 app declares, and says what is
// wrong in the words the placement commands use (command_line.cpp):
//   unknown option '--bogus' for 'topo'        (hint: did you mean '--json'?)
//   option '--root' needs a value
//   option '--json' takes no value
//   option '--root' given twice
//   unexpected argument 'extra' for 'topo'
// each with the hint `usage: affix topo [--json] [--root DIR]; see 'affix
// topo --help'` where no nearer word is found. Only then does CLI11 store the
// values; a value CLI11 cannot convert (a typed option) is
//   invalid value 'x' for option '--interval'
// Like the hand parser, a flag with a value attached (`--json=1`, `-hx`) is
// an error, an empty value (`--root=`, `--root ''`) is no value (CLI11 would
// let `--root=` take the next word), and `--help` stops the checking where
// it stands.

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace affix {

using Args = std::vector<std::string>;

// Parses `args` (the words after the command name) with `app`. Returns false
// where --help was asked for (its text is printed on stdout); throws
// Error(Usage) for any mistake. `command` is the command's name ("topo").
bool parse_cli11(CLI::App& app, const Args& args, const char* command);

// "usage: affix topo [--json] [--root DIR]": from the app's name (its
// second constructor argument, "affix topo") and its options.
std::string cli11_usage(const CLI::App& app);

}  // namespace affix
