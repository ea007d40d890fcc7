#include <fmt/format.h>

#include <cstdio>
#include <string_view>

#include "commands.hpp"
#include "error.hpp"

namespace affix {

namespace {

constexpr const char* k_usage =
    "affix: place programs on CPUs and NUMA memory\n"
    "\n"
    "Usage:\n"
    "  affix [OPTIONS] WHERE [--] COMMAND [ARG...]       run COMMAND placed at WHERE\n"
    "  affix run [OPTIONS] WHERE [--] COMMAND [ARG...]   the same, spelled out\n"
    "  affix pin [OPTIONS] WHERE PID...                  move running processes, all threads\n"
    "  affix pin --tid [OPTIONS] WHERE TID...            move only the named threads\n"
    "  affix show [--json] [PID...]                      where processes and threads run\n"
    "  affix show --pinned [--json]                      every pinned process\n"
    "  affix topo [--json]                               the machine's topology\n"
    "  affix explain [OPTIONS] WHERE [--json]            resolve WHERE, change nothing\n"
    "  affix --help | --version\n"
    "\n"
    "Run 'affix COMMAND --help' for a command's options; 'man affix' for the rest.\n";

enum class Command { Run, Topo, Explain, Pin, Show };

}  // namespace

void print_error(const Error& e) {
  std::fputs(fmt::format("affix: error: {}\n", e.what()).c_str(), stderr);
  if (!e.hint().empty()) std::fputs(fmt::format("affix: hint: {}\n", e.hint()).c_str(), stderr);
}

int main_entry(int argc, char** argv) {
  Args args(argv + 1, argv + argc);
  Command command = Command::Run;
  if (!args.empty()) {
    std::string_view first = args.front();
    if (first == "--help" || first == "-h") {
      std::fputs(k_usage, stdout);
      return k_exit_ok;
    }
    if (first == "--version" || first == "-V") {
      std::fputs("affix " AFFIX_VERSION "\n", stdout);
      return k_exit_ok;
    }
    if (first == "topo") command = Command::Topo;
    else if (first == "explain") command = Command::Explain;
    else if (first == "pin") command = Command::Pin;
    else if (first == "show") command = Command::Show;
    else if (first == "run") command = Command::Run;
    if (first == "topo" || first == "explain" || first == "pin" || first == "show" || first == "run")
      args.erase(args.begin());
    else if (args.empty() || first.empty()) command = Command::Run;
  }
  try {
    switch (command) {
      case Command::Topo: return command_topo(args);
      case Command::Explain: return command_explain(args);
      case Command::Pin: return command_pin(args);
      case Command::Show: return command_show(args);
      case Command::Run: return command_run(args);
    }
  } catch (const Error& e) {
    print_error(e);
    if (command == Command::Run) return k_exit_run_failed;
    return e.kind() == ErrorKind::Runtime ? k_exit_failed : k_exit_usage;
  } catch (const std::exception& e) {
    std::fputs(fmt::format("affix: error: internal error: {}\n", e.what()).c_str(), stderr);
    return command == Command::Run ? k_exit_run_failed : k_exit_failed;
  }
  return k_exit_failed;
}

}  // namespace affix
