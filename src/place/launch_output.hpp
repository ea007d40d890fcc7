#pragma once
// What `affix run` prints: the lines of -v and --dry-run (describe_launch),
// the order --spread gives the threads, the command as a shell would need it
// written, and the message and exit status of an exec that fails.

#include <string>
#include <vector>

#include "launch.hpp"  // LaunchRequest
#include "resolver.hpp"

namespace affix {

// The order --spread gives the threads the command creates, over the CPUs
// `sequence` (selection order), N per CPU: "thread 1: CPU 0, thread 2: CPU 1,
// then again from CPU 0", "threads 1-2: CPU 0, threads 3-4: CPU 1, then ...".
std::string spread_order_text(const std::vector<unsigned>& sequence, unsigned per_cpu);

// The lines -v and --dry-run print (each starting "affix: "): the
// interleave weights (with `read_back`, those the kernel has after run wrote
// them), the memory policy, the scheduling policy and the CPU affinity in
// the order they are set (`cpus_first`: the CPUs, then the policy), warnings
// (but the widening warning, printed on its own), each variable set, each
// variable kept, the command. `would` words them as a dry run ("affix: would
// exec: ...").
std::vector<std::string> describe_launch(const Placement& placement, const LaunchRequest& request,
                                         bool would, bool cpus_first = false,
                                         const InterleaveWeights* read_back = nullptr);

// One argv word as a shell would need it written: bare when safe, else in
// single quotes ('it'\''s').
std::string shell_quote(const std::string& word);

// The exit status and message for an exec that failed with `error` (errno).
struct ExecFailure {
  int status;           // 126 or 127
  std::string message;  // without "affix: error: "
  std::string hint;     // may be empty
};
ExecFailure exec_failure(const std::string& command, int error,
                         std::string (*option_hint)(const std::string&) = nullptr);

// The lines of describe_launch as one text, each ended by a newline.
std::string lines_text(const std::vector<std::string>& lines);

}  // namespace affix
