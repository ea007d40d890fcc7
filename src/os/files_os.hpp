#pragma once
// Writing the kernel's control files (cgroups, /proc/irq/default_smp_affinity)
// and affix's own files (a shield's record under /run/affix, a systemd
// unit under /run/systemd/system), behind one narrow interface: affix
// shield's plans go through it, and the tests give it a recording fake
// (tests/support/fake_cgroup_fs.hpp) or a temporary root. Paths are the
// machine's absolute paths ("/sys/fs/cgroup/x/cpuset.cpus"); LinuxFilesOs
// reads and writes them under its root ("/" but in tests). Every call
// returns 0 or an errno value, so callers explain a refusal in their words.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sysroot.hpp"

namespace affix {

class FilesOs {
public:
  virtual ~FilesOs() = default;
  // The content of a file, nullopt where it is missing or unreadable.
  virtual std::optional<std::string> read(const std::string& path) = 0;
  virtual bool exists(const std::string& path) = 0;
  // Names in a directory, sorted; empty where it is missing.
  virtual std::vector<std::string> list(const std::string& path) = 0;
  // One write(2) of `text` to a file that exists (a kernel control file
  // takes one value per write, and is never created).
  virtual int write(const std::string& path, std::string_view text) = 0;
  // affix's own files: created where there is none (EEXIST where there
  // is one), replaced whole (written beside, then renamed), appended to
  // (created where missing), removed.
  virtual int create(const std::string& path, std::string_view text) = 0;
  virtual int replace(const std::string& path, std::string_view text) = 0;
  virtual int append(const std::string& path, std::string_view text) = 0;
  virtual int remove_file(const std::string& path) = 0;
  // mkdir (EEXIST where it is there) and rmdir of one directory; make_dirs
  // makes the missing directories of a path (mkdir -p).
  virtual int make_dir(const std::string& path) = 0;
  virtual int make_dirs(const std::string& path) = 0;
  virtual int remove_dir(const std::string& path) = 0;
  // 0 where affix may write the file or into the directory, else the errno
  // (EACCES for another user).
  virtual int writable(const std::string& path) = 0;
};

class LinuxFilesOs : public FilesOs {
public:
  explicit LinuxFilesOs(SysRoot root) : m_root(std::move(root)) {}
  std::optional<std::string> read(const std::string& path) override;
  bool exists(const std::string& path) override;
  std::vector<std::string> list(const std::string& path) override;
  int write(const std::string& path, std::string_view text) override;
  int create(const std::string& path, std::string_view text) override;
  int replace(const std::string& path, std::string_view text) override;
  int append(const std::string& path, std::string_view text) override;
  int remove_file(const std::string& path) override;
  int make_dir(const std::string& path) override;
  int make_dirs(const std::string& path) override;
  int remove_dir(const std::string& path) override;
  int writable(const std::string& path) override;

private:
  std::string at(const std::string& path) const;  // the path under the root
  SysRoot m_root;
};

}  // namespace affix
