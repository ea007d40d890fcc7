#include "sysroot.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "error.hpp"
#include "text.hpp"

namespace affix {

bool leaves_spare_files(int fd) {
  rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return true;
  return static_cast<rlim_t>(fd) + k_spare_files < rl.rlim_cur;
}

SysRoot::SysRoot(std::string root) : m_root(std::move(root)) {
  if (m_root.empty()) m_root = "/";
  if (m_root.size() > 1 && m_root.back() == '/') m_root.pop_back();
}

std::string SysRoot::path(std::string_view rel) const {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  if (m_root == "/") return "/" + std::string(rel);
  return m_root + "/" + std::string(rel);
}

namespace {

std::string_view relative(std::string_view rel) {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  return rel;
}

}  // namespace

SysRoot::Dir::~Dir() { ::close(fd); }

int SysRoot::dir_fd() const { return m_dir ? m_dir->fd : AT_FDCWD; }

std::string SysRoot::target(std::string_view rel) const {
  if (!m_dir) return path(rel);
  rel = relative(rel);
  return rel.empty() ? std::string(".") : std::string(rel);
}

SysRoot SysRoot::at(std::string_view rel) const {
  SysRoot sub(path(rel));
  sub.m_under_sys = m_under_sys || relative(rel).substr(0, 4) == "sys/";
  int fd = ::openat(dir_fd(), target(rel).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) sub.m_dir = std::shared_ptr<const Dir>(new Dir{fd});  // made once, never copied
  return sub;
}

bool SysRoot::exists(std::string_view rel) const {
  struct stat st;
  return ::fstatat(dir_fd(), target(rel).c_str(), &st, 0) == 0;
}

int SysRoot::error_of(std::string_view rel) const {
  struct stat st;
  return ::fstatat(dir_fd(), target(rel).c_str(), &st, 0) == 0 ? 0 : errno;
}

std::optional<std::string> SysRoot::read_link(std::string_view rel) const {
  char buf[4096];
  ssize_t n = ::readlinkat(dir_fd(), target(rel).c_str(), buf, sizeof buf);
  if (n < 0 || static_cast<size_t>(n) == sizeof buf) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

std::optional<std::string> SysRoot::read(std::string_view rel, size_t limit) const {
  int fd = ::openat(dir_fd(), target(rel).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  // No fstat: a directory answers read() with EISDIR, which is "unreadable"
  // below (one syscall less per file: a 4096-CPU topology reads ~50k files).
  // A sysfs attribute comes whole in one read (it is at most a page), and a
  // regular file (a captured root) ends where a read comes back short, so
  // under sys/ a short read ends the file without a read() that returns 0.
  // /proc files may come a page at a time: read them to the end.
  const bool whole_at_once = m_under_sys || relative(rel).substr(0, 4) == "sys/";
  std::string out;
  char buf[8192];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      // sysfs answers some reads with an error (e.g. EINVAL); treat as unreadable.
      (void)err;
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > limit) {
      ::close(fd);
      throw Error(ErrorKind::Runtime, fmt::format("{}: file larger than {} bytes", printable(path(rel)), limit));
    }
    if (whole_at_once && static_cast<size_t>(n) < sizeof buf) break;
  }
  ::close(fd);
  if (whole_at_once)
    while (!out.empty() && out.back() == '\0') out.pop_back();
  return out;
}

std::optional<std::string> SysRoot::read_head(std::string_view rel, size_t max, bool& more) const {
  more = false;
  int fd = ::openat(dir_fd(), target(rel).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[8192];
  while (out.size() <= max) {  // one byte past `max` tells that more follows
    size_t want = std::min(sizeof buf, max + 1 - out.size());
    ssize_t n = ::read(fd, buf, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (out.size() > max) {
    more = true;
    out.resize(max);
  }
  return out;
}

bool SysRoot::for_each_line(std::string_view rel, const std::function<bool(std::string_view)>& line,
                            size_t max_line, size_t limit) const {
  int fd = ::openat(dir_fd(), target(rel).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  std::string pending;  // the start of the current line (at most max_line bytes)
  size_t total = 0;
  char buf[8192];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the end, or unreadable from here on: what was read counts
    total += static_cast<size_t>(n);
    if (total > limit) {
      ::close(fd);
      throw Error(ErrorKind::Runtime, fmt::format("{}: file larger than {} bytes", printable(path(rel)), limit));
    }
    std::string_view chunk(buf, static_cast<size_t>(n));
    while (!chunk.empty()) {
      size_t nl = chunk.find('\n');
      std::string_view piece = chunk.substr(0, nl);
      size_t room = max_line - pending.size();
      pending.append(piece.substr(0, std::min(room, piece.size())));
      if (nl == std::string_view::npos) break;
      chunk.remove_prefix(nl + 1);
      bool more = line(pending);
      pending.clear();
      if (!more) {
        ::close(fd);
        return true;
      }
    }
  }
  ::close(fd);
  if (!pending.empty()) line(pending);
  return true;
}

std::string_view trim_space(std::string_view s) {
  auto is_space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

std::string SysRoot::read_required(std::string_view rel) const {
  auto content = read(rel);
  if (!content) {
    throw Error(ErrorKind::Runtime, fmt::format("{}: cannot read: {}", printable(path(rel)),
                                                std::strerror(errno ? errno : ENOENT)));
  }
  return std::string(trim_space(*content));
}

std::optional<CpuSet> SysRoot::read_cpulist(std::string_view rel, bool allow_empty) const {
  auto content = read(rel);
  if (!content) return std::nullopt;
  auto parsed = parse_cpulist(*content, allow_empty);
  if (!parsed) {
    throw Error(ErrorKind::Runtime, fmt::format("{}: {}", printable(path(rel)), parsed.error.message));
  }
  return *parsed.value;
}

std::optional<long> SysRoot::read_int(std::string_view rel) const {
  auto content = read(rel, 4096);
  if (!content) return std::nullopt;
  std::string s(trim_space(*content));
  bool negative = !s.empty() && s[0] == '-';
  auto v = parse_decimal(negative ? std::string_view(s).substr(1) : std::string_view(s), k_max_id);
  if (!v || (negative && *v != 1)) {
    std::string shown = s.size() > 40 ? printable(s.substr(0, 40)) + "..." : printable(s);
    throw Error(ErrorKind::Runtime,
                fmt::format("{}: expected a number from -1 to {}, found '{}'", printable(path(rel)), k_max_id, shown));
  }
  return negative ? -1 : static_cast<long>(*v);
}

std::vector<std::string> SysRoot::list(std::string_view rel, size_t limit) const {
  std::vector<std::string> out;
  int fd = ::openat(dir_fd(), target(rel).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return out;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return out;
  }
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    out.emplace_back(e->d_name);
    if (out.size() > limit) {
      ::closedir(d);
      throw Error(ErrorKind::Runtime, fmt::format("{}: more than {} entries", printable(path(rel)), limit));
    }
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace affix
