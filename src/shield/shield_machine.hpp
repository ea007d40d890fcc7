#pragma once
// What affix shield reads of the machine before it plans anything: which
// way it can fence CPUs off (a cgroup v2 cpuset partition, the same below
// systemd's slices, or cgroup v1's exclusive cpusets), where that
// hierarchy is mounted, what this kernel has (cpuset.cpus.exclusive and
// cpuset.cpus.isolated: Linux 6.7), the online CPUs, and the shields
// already made (their records). Read only.

#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "files_os.hpp"
#include "shield_record.hpp"
#include "sysroot.hpp"

namespace affix {

struct ShieldMachine {
  std::optional<ShieldLayout> layout;  // nullopt: no cpuset controller to use (why_none says why)
  std::string why_none;
  std::string cgroup_root;  // the mount point of the hierarchy used ("/sys/fs/cgroup")
  std::string v1_prefix;    // cgroup v1: the prefix of its files, "cpuset." (or "" for noprefix)
  std::string v1_root_mems; // cgroup v1: the root cpuset's memory nodes ("0-1")
  bool cpuset_enabled = false;  // cgroup2: "cpuset" is in the root's cgroup.subtree_control
  bool has_exclusive = false;   // cgroup2: this kernel has cpuset.cpus.exclusive (Linux 6.7 and later)
  bool systemd = false;         // systemd runs the machine (/run/systemd/system is a directory)
  CpuSet online;
  // cgroup2: the partitions the kernel holds below the root (any program's),
  // with their CPUs: a sibling whose cpuset.cpus overlaps one makes the
  // kernel invalidate it, and it stays invalid after the sibling goes
  // (seen on 6.1 and 6.12), so a shield on their CPUs is refused before
  // anything is written.
  std::vector<std::pair<std::string, CpuSet>> partitions;
  std::vector<ShieldRecord> records;  // the shields there are, by name
  std::vector<std::string> bad_records;  // "PATH: WHY" of records that cannot be read
};

// `files` reads the machine's paths (a LinuxFilesOs on `root`, or a fake).
ShieldMachine read_shield_machine(const SysRoot& root, FilesOs& files);

// The records under k_record_dir, by name; a file that is no record goes to
// `bad` ("PATH: WHY").
std::vector<ShieldRecord> read_records(FilesOs& files, std::vector<std::string>& bad);

// The record of shield `name`, nullopt where there is none; Error(Runtime)
// where the file is there and is no record.
std::optional<ShieldRecord> read_record(FilesOs& files, const std::string& name);

}  // namespace affix
