#pragma once
// A temporary root directory for fake /proc and /sys trees, removed at the end.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace affix::test {

class FakeRoot {
public:
  FakeRoot() {
    std::string pattern = (std::filesystem::temp_directory_path() / "affix-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ~FakeRoot() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  FakeRoot(const FakeRoot&) = delete;
  FakeRoot& operator=(const FakeRoot&) = delete;

  const std::string& path() const { return m_path; }
  // Writes ROOT/rel, creating the directories above it.
  void write(const std::string& rel, const std::string& content) const {
    std::filesystem::path p = std::filesystem::path(m_path) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << content;
  }

private:
  std::string m_path;
};

}  // namespace affix::test
