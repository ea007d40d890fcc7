#pragma once
// The kernel's interleave weights: /sys/kernel/mm/mempolicy/weighted_interleave
// (Linux 6.9 and later; Documentation/ABI/testing/
// sysfs-kernel-mm-mempolicy-weighted-interleave). One file per node,
// nodeN, holding its weight (1 to 255): a process under
// MPOL_WEIGHTED_INTERLEAVE gets that many pages on node N for each round.
// They are the machine's, for every process, and only for new allocations.
// Since Linux 6.16 a file `auto` says whether the kernel sets them itself
// from each node's bandwidth ("true") or keeps what was written ("false";
// writing a weight switches it to false). Linux 6.18's sysfs names that file
// `__auto_type` (its headers define `auto` as `__auto_type`, and the
// attribute's name is the macro expanded): both names are looked for.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sysroot.hpp"

namespace affix {

constexpr std::string_view k_weights_dir = "sys/kernel/mm/mempolicy/weighted_interleave";
constexpr unsigned k_max_weight = 255;

struct InterleaveWeights {
  bool present = false;                  // the directory exists (the kernel has weights)
  std::map<unsigned, unsigned> weights;  // node -> weight, as read
  std::optional<bool> auto_mode;         // nullopt: no auto file (before Linux 6.16), or unreadable
  std::string auto_file;                 // its name: "auto" or "__auto_type"; "" where none
  // A file that could not be read or holds no weight: named, left out.
  std::vector<std::string> warnings;
};

// Reads every node's weight and the auto mode under `root`. Never fails: a
// file that cannot be read or makes no sense is left out with a warning.
InterleaveWeights read_interleave_weights(const SysRoot& root);

// "3\n" -> 3: a decimal weight from 1 to 255; nullopt otherwise.
std::optional<unsigned> parse_weight(std::string_view text);
// The auto file as the kernel writes it ("true", "false"; also Y/N, 1/0,
// which it takes when written); nullopt otherwise.
std::optional<bool> parse_auto_mode(std::string_view text);

// The Linux side of WeightsOs (os.hpp), on /sys itself: 0 or errno.
int check_sysfs_weight_file(const std::string& name);
int write_sysfs_weight_file(const std::string& name, const std::string& text);

}  // namespace affix
