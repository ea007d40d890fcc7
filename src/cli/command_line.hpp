#pragma once
// The command lines of run, explain and pin: argv words -> a plain struct.
// Parsing only, no side effects (nothing is read, nothing is checked against
// the machine). Rules (affix(1), DESCRIPTION):
//   - affix's options may stand before or after WHERE;
//   - run: the first word after WHERE that is not one of affix's options
//     starts the command, and everything from there on belongs to it
//     (`affix 0 ls -l` passes -l to ls);
//   - `--` ends affix's options (allowed, never required); a WHERE not yet
//     given is then the next word;
//   - value options take `--opt VALUE`, `--opt=VALUE`, and for short ones
//     `-n VALUE` / `-nVALUE`.
// A hand parser rather than CLI11: command_line.cpp says why. Errors are
// affix::Error(Usage), in the same words as parse_cli11's (cli_errors.hpp):
//   unknown option '--bogus' for 'pin'
//   option '--count' needs a value
//   invalid --count 'x': expected a whole number from 1 to 1048576

#include <optional>
#include <string>
#include <vector>

#include "resolver.hpp"

namespace affix {

using Args = std::vector<std::string>;

enum class CommandKind { Run, Explain, Pin };
const char* command_kind_name(CommandKind kind);  // "run", "explain", "pin"

// explain --as: another launcher's words for the placement.
enum class AsFormat { Systemd, Docker, Taskset, Numactl };

struct CommandLine {
  CommandKind kind = CommandKind::Run;
  bool help = false;           // -h/--help seen (nothing else is checked then)
  PlacementRequest request;    // WHERE and the selection and memory options
  // explain
  bool json = false;           // --json
  std::optional<AsFormat> as;  // --as FORMAT
  std::optional<std::string> root;  // --root DIR
  // run and pin
  bool verbose = false;        // -v/--verbose
  // run and pin
  bool dry_run = false;        // --dry-run
  bool env = false;            // --env
  // run, explain and pin: threads per CPU, 0 without --spread (run and
  // explain take --spread=N; pin takes no value)
  unsigned spread = 0;
  // pin
  bool tid = false;            // --tid
  bool migrate = false;        // --migrate
  bool tree = false;           // --tree
  // run: the command and its arguments, untouched; pin: the PID/TID words.
  std::vector<std::string> rest;
};

// Throws Error(Usage) for unknown options, missing or bad values, options
// given twice with values, a missing WHERE, a run without a command, an
// explain with extra words or with both --as and --json, a pin without IDs.
CommandLine parse_command_line(CommandKind kind, const Args& args);

// "did you mean '--no-smt'?" for a word close to one of the command's long
// options (`--no-smtt`, `--no-smtt=1`); empty where none is that close.
std::string option_hint(const std::string& word, CommandKind kind);

// The --help text of a command.
std::string command_help(CommandKind kind);

// Parsers of single option values (exposed for tests); throw Error(Usage).
unsigned parse_count_option(const std::string& text);
SliceRequest parse_slice_option(const std::string& text);
MemRequest parse_mem_option(const std::string& text);
Order parse_order_option(const std::string& text);
unsigned parse_spread_option(const std::string& text);  // N of --spread=N
AsFormat parse_as_option(const std::string& text);

}  // namespace affix
