#pragma once
// The process and thread IDs given on a command line (pin, show, watch):
// the words that are not IDs, and the IDs that name a thread where a whole
// process is wanted, are usage errors.

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sysroot.hpp"

namespace affix {

// The IDs given on a command line, each parsed by parse_pid (proc.hpp), in
// order, each once; Error(Usage) "invalid WHAT 'x': expected a number from
// 1 to 4194304" for a word that is not one (what: "PID", "thread ID").
std::vector<pid_t> parse_pid_arguments(const std::vector<std::string>& words, std::string_view what = "PID");

// show and watch take whole processes: Error(Usage) "T is a thread of
// process P" (hint: "'P' shows the whole process") for an ID that /proc
// knows as a thread other than its process's main thread (/proc/T exists for
// every thread, with Tgid P). IDs that do not exist are left to the caller.
void refuse_thread_ids(const SysRoot& root, const std::vector<pid_t>& ids);

// An interval on a command line (watch's and top's -i): "0.5", "2", "1.25",
// seconds from 0.1 to 3600, plain decimal; nullopt for anything else.
std::optional<double> parse_seconds(const std::string& text);

// watch and top keep a file open per thread (its event, or its schedstat):
// the open-files limit raised to its hard limit (where it is below it).
void raise_open_files();

}  // namespace affix
