#pragma once
// The tests' one temporary root directory: fake /proc and /sys trees (or a
// copy of a captured machine) written under it, removed with everything in
// it at the end. Builders of the trees that several tests need are in
// root_builders.hpp.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace affix::test {

class TempRoot {
public:
  TempRoot() {
    std::string pattern = (std::filesystem::temp_directory_path() / "affix-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  // A copy of the directory `source` (a captured machine), symbolic links
  // kept as links.
  explicit TempRoot(const std::string& source) : TempRoot() {
    std::filesystem::copy(source, m_path,
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::copy_symlinks |
                              std::filesystem::copy_options::overwrite_existing);
  }
  ~TempRoot() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempRoot(const TempRoot&) = delete;
  TempRoot& operator=(const TempRoot&) = delete;

  const std::string& path() const { return m_path; }
  std::string path(const std::string& rel) const { return m_path + "/" + rel; }

  // Writes ROOT/rel, creating the directories above it. A file already
  // there is written through (a reader holding it open sees the new text).
  void write(const std::string& rel, const std::string& content) const {
    std::filesystem::path p = path(rel);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
  }
  // The same, but what was at ROOT/rel (a file, a link) is replaced by a new
  // file, not written through.
  void replace(const std::string& rel, const std::string& content) const {
    remove(rel);
    write(rel, content);
  }
  void mkdir(const std::string& rel) const { std::filesystem::create_directories(path(rel)); }
  // Removes ROOT/rel (a file, a link or a whole directory).
  void remove(const std::string& rel) const {
    std::error_code ec;
    std::filesystem::remove_all(path(rel), ec);
  }
  // ROOT/rel becomes a symbolic link to `target` (replacing what was there).
  void symlink(const std::string& target, const std::string& rel) const {
    std::filesystem::path p = path(rel);
    std::filesystem::create_directories(p.parent_path());
    remove(rel);
    std::filesystem::create_symlink(target, p);
  }

private:
  std::string m_path;
};

}  // namespace affix::test
