// The top level: one table of commands, dispatch on the first word, and the
// one catch that prints every error (diag.cpp) and maps it to the command's
// exit status.
#include <fmt/format.h>

#include <cstdio>
#include <string_view>

#include "commands.hpp"
#include "diag.hpp"
#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

struct CommandEntry {
  const char* name;     // the first word; "" for the bare run form
  const char* synopsis; // its lines of the usage, each "  affix ...  what it does\n"
  int (*function)(const Args& args);
};

// The bare run form (`affix WHERE COMMAND`) is the first entry; `affix run`
// spells it out.
constexpr CommandEntry k_commands[] = {
    {"", "  affix [OPTIONS] WHERE [--] COMMAND [ARG...]       run COMMAND placed at WHERE\n",
     command_run},
    {"run", "  affix run [OPTIONS] WHERE [--] COMMAND [ARG...]   the same, spelled out\n", command_run},
    {"pin",
     "  affix pin [OPTIONS] WHERE PID...                  move running processes, all threads\n"
     "  affix pin --tid [OPTIONS] WHERE TID...            move only the named threads\n",
     command_pin},
    {"show",
     "  affix show [--json] [PID...]                      where processes and threads run\n"
     "  affix show --pinned [--json]                      every pinned process\n"
     "  affix show --shield [--json]                      the shields, what runs on their CPUs\n",
     command_show},
    {"topo", "  affix topo [--json]                               the machine's topology\n",
     command_topo},
    {"explain", "  affix explain [OPTIONS] WHERE [--json]            resolve WHERE, change nothing\n",
     command_explain},
    {"watch", "  affix watch [-i SECONDS] [-c N] [--threads] [--json] [--tree] [PID... | -- COMMAND...]\n"
              "                                                    how threads move, where memory is\n",
     command_watch},
    {"top",
     "  affix top [--once [--json]] [-i S] [-n N] [WHERE] [--pid PID...|--tree PID|--name RE]\n"
     "                                                    the whole machine, live, by topology\n",
     command_top},
    {"shield",
     "  affix shield WHERE [--isolated] [--irqs] [--mem[=NODES]] [--name NAME]\n"
     "               [--dry-run] [-- COMMAND...]          fence CPUs off for one program\n"
     "  affix shield --off NAME                           remove a shield, put everything back\n",
     command_shield},
    {"apply",
     "  affix apply [--dry-run] [--json] FILE             apply a rules file to what runs now\n"
     "  affix apply --check [--json] FILE                 is everything where the rules say?\n",
     command_apply},
};

std::string usage() {
  std::string out = "affix: place programs on CPUs and NUMA memory\n\nUsage:\n";
  for (const auto& c : k_commands) out += c.synopsis;
  out += "  affix --help | --version\n\n"
         "Run 'affix COMMAND --help' for a command's options; 'man affix' for the rest.\n";
  return out;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const auto& c : k_commands)
    if (*c.name) names.emplace_back(c.name);
  return names;
}

// A first word that is no command but close to one (`affix shwo`), where the
// run form failed on it: the hint says which command was meant.
std::string command_hint(const Args& args) {
  if (args.empty()) return {};
  const std::string& first = args.front();
  if (first.find_first_of(":0123456789,.+-") != std::string::npos) return {};  // a location
  return did_you_mean(first, command_names());
}

}  // namespace

int main_entry(int argc, char** argv) {
  Args args(argv + 1, argv + argc);
  const CommandEntry* command = &k_commands[0];
  if (!args.empty()) {
    std::string_view first = args.front();
    if (first == "--help" || first == "-h") {
      std::fputs(usage().c_str(), stdout);
      return k_exit_ok;
    }
    if (first == "--version" || first == "-V") {
      std::fputs("affix " AFFIX_VERSION "\n", stdout);
      return k_exit_ok;
    }
    for (const auto& c : k_commands) {
      if (*c.name && first == c.name) {
        command = &c;
        args.erase(args.begin());
        break;
      }
    }
  }
  const bool run = command->function == command_run;
  try {
    return command->function(args);
  } catch (const Error& e) {
    std::string hint = run && e.kind() != ErrorKind::Runtime ? command_hint(args) : std::string();
    print_error(hint.empty() ? e : Error(e.kind(), e.what(), hint));
    if (run) return k_exit_run_failed;
    return e.kind() == ErrorKind::Runtime ? k_exit_failed : k_exit_usage;
  } catch (const std::exception& e) {
    print_error(Error(ErrorKind::Runtime, fmt::format("internal error: {}", e.what())));
    return run ? k_exit_run_failed : k_exit_failed;
  }
}

}  // namespace affix
