#pragma once
// One function per command. Each gets the words after the command name (for
// the bare run form: every word after "affix"), returns the exit status, and
// throws affix::Error for failures; app.cpp prints them and maps the kind to
// the command's exit status.

#include <optional>
#include <string>
#include <vector>

namespace affix {

using Args = std::vector<std::string>;

int command_topo(const Args& args);     // cmd_topo.cpp
int command_explain(const Args& args);  // cmd_explain.cpp
int command_run(const Args& args);      // cmd_run.cpp (execs; returns only on failure)
int command_pin(const Args& args);      // cmd_pin.cpp
int command_show(const Args& args);     // cmd_show.cpp
int command_watch(const Args& args);    // cmd_watch.cpp
int command_shield(const Args& args);
int command_top(const Args& args);      // cmd_top.cpp
int command_apply(const Args& args);    // cmd_apply.cpp   // cmd_shield.cpp (handles its own errors: 125 with a command)

// --irq of pin and show (cmd_irq.cpp): interrupts, not processes.
struct CommandLine;
int command_pin_irq(const CommandLine& cl);
// With `svg` (show --svg --irq), also the machine's picture with each
// CPU's count (affix(1), PICTURES); alone to standard output, nothing else.
int command_show_irq(bool json, const std::string& root, const std::vector<std::string>& words,
                     const std::optional<std::string>& svg = std::nullopt);

// apply --follow FILE (cmd_apply_follow.cpp): runs until SIGTERM or SIGINT.
int command_apply_follow(const CommandLine& cl, const std::string& file);
// The wall clock, in seconds since 1970 (apply --check --metrics' timestamp).
double unix_now();

// show --shield (cmd_shield.cpp): the shields and what runs on their CPUs.
// With `svg` (show --svg --shield), also the picture with the shields marked.
int command_show_shield(bool json, const std::string& root, const std::optional<std::string>& svg = std::nullopt);

// Top level: dispatch on the first word, print errors, map exit statuses.
int main_entry(int argc, char** argv);

}  // namespace affix
