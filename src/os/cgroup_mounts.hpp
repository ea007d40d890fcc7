#pragma once
// The cgroup mounts of a mount table: cgroup2, cgroup v1's cpuset hierarchy
// (`cgroup -o cpuset`) and the older cpuset file system. One reader, for the
// allowed set (allowed.cpp: where a process's cpuset files are) and for
// affix shield (where partitions and cpusets are made). The table is read
// line by line: a container host's can hold thousands of mounts
// (megabytes), of which only these few matter.

#include <string>
#include <string_view>
#include <vector>

#include "sysroot.hpp"

namespace affix {

struct CgroupMount {
  std::string root;        // the mount's root inside its filesystem ("/" from proc/mounts)
  std::string mountpoint;  // as seen inside the root directory
  std::string fstype;      // "cgroup2", "cgroup" or "cpuset"
  std::string options;     // super options (mountinfo) or options (mounts)
};

// `name` is one of the comma-separated words of `options`.
bool mount_has_option(std::string_view options, std::string_view name);

// A cgroup v1 hierarchy holding the cpuset controller, or the old cpuset
// file system.
bool is_cpuset_v1(const CgroupMount& m);

// The cgroup2 and cpuset mounts of PROC/mountinfo (PROC: "proc/self",
// "proc/1234"), else of proc/mounts, else PROC/mounts; mount points
// unescaped (the kernel writes space, tab, newline and backslash as \ooo).
// At most 1024 are kept.
std::vector<CgroupMount> read_cgroup_mounts(const SysRoot& root, const std::string& proc);

}  // namespace affix
