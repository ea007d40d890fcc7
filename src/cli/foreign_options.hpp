#pragma once
// numactl's and taskset's options in affix's words, for the hint of an
// "unknown option" (affix(1), COMING FROM NUMACTL AND TASKSET):
//   affix --cpunodebind=0 --membind=0 cmd
//   affix: error: unknown option '--cpunodebind' for 'run'
//   affix: hint: numactl's --cpunodebind=0 --membind=0 is 'affix node:0 --mem bind'
// Text only: nothing here is applied, and the words are the user's own.

#include <optional>
#include <string>
#include <vector>

namespace affix {

// The hint for the option words of numactl or taskset that start at
// args[at] (with those that follow it), in the words of `command` ("" for
// the run form, "explain", "pin"); nullopt where args[at] is neither
// tool's option.
std::optional<std::string> foreign_option_hint(const std::vector<std::string>& args, size_t at,
                                               const std::string& command);

// The hint for `-m NODES` / `--mem NODES` (numactl's -m is --membind):
// "numactl's -m 0 is '--mem bind:0'"; nullopt where `value` is not a node
// list.
std::optional<std::string> numactl_mem_hint(const std::string& option, const std::string& value);

}  // namespace affix
