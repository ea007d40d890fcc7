#pragma once
// The command lines of all the commands: argv words -> a plain struct.
// Parsing only, no side effects (nothing is read, nothing is checked against
// the machine). One tokenizer, driven by each command's table of options
// (command_line.cpp). Rules (affix(1), DESCRIPTION):
//   - options may stand before, between and after the other words;
//   - run, explain, pin: the first word that is no option is WHERE;
//   - run: the first word after WHERE that is not one of affix's options
//     starts the command, and everything from there on belongs to it
//     (`affix 0 ls -l` passes -l to ls);
//   - `--` ends affix's options (allowed, never required); a WHERE not yet
//     given is then the next word;
//   - value options take `--opt VALUE`, `--opt=VALUE`, and for short ones
//     `-n VALUE` / `-nVALUE`; a short flag with more letters after it
//     (`-vx`) is one unknown word, never split;
//   - -h/--help stops the parsing where it stands.
// Errors are affix::Error(Usage), in the same words for every command:
//   unknown option '--bogus' for 'pin'
//   option '--count' needs a value
//   option '--json' takes no value
//   option '--root' given twice
//   unexpected argument 'extra' for 'topo'
//   invalid --count 'x': expected a whole number from 1 to 1048576
// each with the hint `usage: affix topo [--json] [--root DIR]; see 'affix
// topo --help'` where no nearer one is found (the nearest option, or for
// run, explain and pin numactl's and taskset's options in affix's words).

#include <optional>
#include <string>
#include <vector>

#include "resolver.hpp"
#include "sched.hpp"

namespace affix {

using Args = std::vector<std::string>;

enum class CommandKind { Run, Explain, Pin, Topo, Show, Watch, Shield, Top, Apply };
const char* command_kind_name(CommandKind kind);  // "run", "explain", "pin", "topo", ...

// explain --as: another launcher's words for the placement.
enum class AsFormat { Systemd, Nginx, Docker, Taskset, Numactl };

struct CommandLine {
  CommandKind kind = CommandKind::Run;
  bool help = false;           // -h/--help seen (nothing else is checked then)
  PlacementRequest request;    // run, explain, pin: WHERE and the selection and memory options
  SchedRequest sched;          // run, explain, pin: --policy, --nice, --sched-slice, --uclamp
  // explain, topo, show, watch
  bool json = false;           // --json
  // explain
  std::optional<AsFormat> as;  // --as FORMAT
  std::optional<unsigned> ranks;  // --ranks N
  // explain, topo, show
  std::optional<std::string> root;  // --root DIR
  // topo, explain, show, watch: --svg (affix(1), PICTURES): the picture's
  // FILE; "" or "-": standard output. topo takes `--svg FILE` and
  // `--svg=FILE`, explain and show only `--svg=FILE` (their other words are
  // WHERE and PIDs), watch `--svg FILE` (a FILE needed: its text goes to
  // standard output).
  std::optional<std::string> svg;
  // topo, explain: --ascii (the picture in text)
  bool ascii = false;
  // run and pin
  bool verbose = false;        // -v/--verbose
  bool dry_run = false;        // --dry-run
  // run
  bool env = false;            // --env
  // run, explain and pin: threads per CPU (--spread=N), 0 without --spread
  unsigned spread = 0;
  // pin
  bool tid = false;            // --tid
  bool migrate = false;        // --migrate
  // pin without WHERE: a scheduling option alone (no option that shapes a
  // selection) and one ID, as `chrt -p` takes it: the ID is in `rest`,
  // request.where is empty, and the threads keep their CPU lists.
  bool keep_cpus = false;
  // pin, show and watch
  bool tree = false;           // --tree
  // watch: the words after "--" (a command to start and watch)
  std::vector<std::string> command;
  bool command_given = false;  // "--" was given
  bool check = false;          // --check (with --json: the result as a document)
  bool follow = false;                 // apply --follow
  std::optional<std::string> metrics;  // apply --metrics ADDR:PORT (--follow) or FILE (--check)
  // pin and show: the words are IRQs and devices (affix(1), INTERRUPTS)
  bool irq = false;            // --irq
  // show
  bool pinned = false;         // --pinned
  std::optional<std::string> cpu;  // --cpu LIST: a WHERE, as written (cmd_show.cpp resolves it)
  // show (the shields and what runs on their CPUs), explain (with --as
  // systemd: the AllowedCPUs= lines that fence WHERE off)
  bool shield = false;         // --shield
  // shield (affix(1), SHIELD): WHERE, then an optional command in `rest`
  bool isolated = false;       // --isolated
  bool irqs = false;           // --irqs
  std::optional<std::string> shield_mem;  // --mem ("") or --mem=NODES
  std::optional<std::string> name;        // --name NAME
  std::optional<std::string> off;         // --off NAME
  // watch: -i SECONDS and -c N as written (watch checks them once the
  // words are all read), and --threads
  std::optional<std::string> interval;
  std::optional<std::string> intervals;
  bool threads = false;
  // top (and -i SECONDS above): --once, --pid LIST, --tree PID, -n N as
  // written (top checks them), --name REGEX (in `name`); `rest`: WHERE
  bool once = false;
  bool no_events = false;  // top --no-events
  std::optional<std::string> top_pids;
  std::optional<std::string> top_tree;
  std::optional<std::string> frames;
  // run: the command and its arguments, untouched; pin: the PID/TID words
  // (with --irq the IRQs and devices);
  // show and watch: the PID words (show --irq: the devices).
  std::vector<std::string> rest;
};

// Throws Error(Usage) for unknown options, missing or bad values, options
// given twice with values, a missing WHERE, a run without a command, an
// explain with extra words or with both --as and --json, a pin without IDs,
// a topo with any word that is no option, --nice or --sched-slice with a
// policy that has none (sched_args.hpp), run --spread with a deadline policy.
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
WeightsRequest parse_weights_option(const std::string& text);  // --weights auto | N=W,...
Order parse_order_option(const std::string& text);
unsigned parse_spread_option(const std::string& text);  // N of --spread=N
AsFormat parse_as_option(const std::string& text);

}  // namespace affix
