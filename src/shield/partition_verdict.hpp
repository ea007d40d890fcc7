#pragma once
// The kernel's own verdict on a cgroup v2 partition: cpuset.cpus.partition
// reads "member", "root", "isolated", or, where the kernel refuses to make
// it a partition, "root invalid (REASON)" / "isolated invalid (REASON)"
// (kernel/cgroup/cpuset.c, perr_strings; a reason may be missing: "isolated
// invalid"). affix shield reads it back after every write and turns each
// reason into an error with a hint (affix(1), SHIELD; docs/errors.md).

#include <optional>
#include <string>
#include <string_view>

#include "error.hpp"

namespace affix {

struct PartitionState {
  std::string type;    // "member", "root", "isolated" (or what the kernel wrote)
  bool valid = false;  // a partition root the kernel accepted ("root", "isolated")
  bool invalid = false;  // "... invalid"
  std::string reason;    // the kernel's reason, "" where it gave none
};

// Parses the file's content (surrounding blanks and the new line dropped).
PartitionState parse_partition(std::string_view text);

// The error for a partition the kernel refused: `name` is the shield,
// `cpus` its CPUs as text. The message names the kernel's reason, and says
// (`undone`) what was done about the changes already made.
Error partition_error(const std::string& name, const std::string& cpus, const PartitionState& state,
                      const std::string& undone);

}  // namespace affix
