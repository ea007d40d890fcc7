#pragma once
// Every /sys and /proc path is read through one root directory ("/" by
// default, `--root DIR` otherwise), like lscpu --sysroot and HWLOC_FSROOT.
// Reads are bounded: a file larger than the limit is an error, never an
// unbounded allocation; a file read line by line (for_each_line) is bounded
// in memory by its longest line, not by its size. An error names the file
// escaped (printable(): a cgroup's or mount point's name is data).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpuset.hpp"

namespace affix {

constexpr size_t k_max_file_size = 1u << 20;  // 1 MiB: the largest sysfs/proc file we accept

// `text` without the spaces, tabs and line ends around it.
std::string_view trim_space(std::string_view text);

// A file kept open (affix watch keeps one per thread: its event, or its
// schedstat) must leave the last k_spare_files descriptors that the
// open-files limit allows to the files read by path and closed at once.
// Descriptors are given lowest first, so while every file kept passes
// leaves_spare_files() those stay free (unless inherited open).
constexpr int k_spare_files = 16;
bool leaves_spare_files(int fd);

class SysRoot {
public:
  explicit SysRoot(std::string root = "/");
  const std::string& root() const { return m_root; }
  bool is_default() const { return m_root == "/"; }

  // "sys/devices/system/cpu/online" -> "ROOT/sys/devices/system/cpu/online"
  std::string path(std::string_view rel) const;
  // The root seen from its directory `rel`: the same reads, with paths
  // relative to that directory, opened relative to it (one path walk for
  // the directory, then one name or two per file: a 4096-CPU machine reads
  // a dozen files in each CPU's directory); messages name the files as
  // path() does. Where the directory cannot be opened, each read goes by
  // its whole path (and fails as it would have).
  SysRoot at(std::string_view rel) const;

  bool exists(std::string_view rel) const;
  // 0 where `rel` exists, else why not (errno: ENOENT, ELOOP, EACCES, ...).
  int error_of(std::string_view rel) const;
  // The target of a symbolic link (proc/PID/ns/mnt: "mnt:[4026531841]"),
  // nullopt where it is none or cannot be read.
  std::optional<std::string> read_link(std::string_view rel) const;
  // Content, or nullopt where the file is missing or unreadable.  A file
  // larger than `limit` throws Error(Runtime) naming the file. Under sys/,
  // NUL bytes after the content are dropped (some dumps and old kernels
  // pad an attribute with them after its final newline).
  std::optional<std::string> read(std::string_view rel, size_t limit = k_max_file_size) const;
  // The first `max` bytes of a file, however long it is (a process's
  // cmdline); `more` is set where the file goes on after them. nullopt
  // where the file is missing or unreadable.
  std::optional<std::string> read_head(std::string_view rel, size_t max, bool& more) const;
  // Calls `line` with each line of the file (without its newline) while it
  // returns true, reading in chunks: memory stays bounded by `max_line` (a
  // longer line is passed cut to its first `max_line` bytes), whatever the
  // file's size. False where the file is missing or unreadable. A file
  // longer than `limit` (a device such as /dev/zero linked in) throws
  // Error(Runtime) naming the file.
  bool for_each_line(std::string_view rel, const std::function<bool(std::string_view)>& line,
                     size_t max_line = 1u << 16, size_t limit = size_t{1} << 30) const;
  // Content with surrounding whitespace removed; throws Error(Runtime)
  // naming the file when it is missing.
  std::string read_required(std::string_view rel) const;
  // A cpulist file: nullopt where missing; Error(Runtime) naming the file
  // and the problem where its content is not a cpulist.
  std::optional<CpuSet> read_cpulist(std::string_view rel, bool allow_empty = true) const;
  // A (possibly negative) decimal integer file; nullopt where missing;
  // Error(Runtime) where garbage or out of [-1, 2^20].
  std::optional<long> read_int(std::string_view rel) const;
  // Names in a directory (without . and ..), sorted; empty where missing.
  // At most `limit` entries are read (Error beyond that).
  std::vector<std::string> list(std::string_view rel, size_t limit = 1u << 18) const;

private:
  struct Dir {
    int fd;
    ~Dir();
  };
  int dir_fd() const;                           // AT_FDCWD where no directory is held
  std::string target(std::string_view rel) const;  // what to open relative to dir_fd()

  std::string m_root;
  std::shared_ptr<const Dir> m_dir;  // the directory of at(), held open
  bool m_under_sys = false;          // every file below is under sys/ (read())
};

}  // namespace affix
