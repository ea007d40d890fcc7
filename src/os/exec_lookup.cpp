#include "exec_lookup.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace affix {

namespace {

// 0: an executable regular file; else the errno exec would give for it.
int check_file(const std::string& file) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) return errno;
  if (!S_ISREG(st.st_mode)) return EACCES;
  if (::access(file.c_str(), X_OK) != 0) return errno;
  return 0;
}

}  // namespace

int exec_lookup(const std::string& command, const char* path, std::string* found) {
  if (command.empty()) return ENOENT;
  if (command.find('/') != std::string::npos) {
    int e = check_file(command);
    if (e == 0 && found) *found = command;
    return e;
  }
  std::string_view dirs = path ? path : "/bin:/usr/bin";
  bool denied = false;
  while (true) {
    size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    std::string file = dir.empty() ? command : std::string(dir) + "/" + command;
    int e = check_file(file);
    if (e == 0) {
      if (found) *found = file;
      return 0;
    }
    if (e == EACCES) denied = true;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return denied ? EACCES : ENOENT;
}

}  // namespace affix
