#include "files_os.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace affix {

namespace {

std::string_view relative(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return path;
}

int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

}  // namespace

std::string LinuxFilesOs::at(const std::string& path) const { return m_root.path(relative(path)); }

std::optional<std::string> LinuxFilesOs::read(const std::string& path) { return m_root.read(relative(path)); }

bool LinuxFilesOs::exists(const std::string& path) { return m_root.exists(relative(path)); }

std::vector<std::string> LinuxFilesOs::list(const std::string& path) { return m_root.list(relative(path)); }

int LinuxFilesOs::write(const std::string& path, std::string_view text) {
  int fd = ::open(at(path).c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return errno;
  // One write: the kernel takes a control file's value from one call, and
  // answers for it there (EINVAL, EBUSY, ...).
  ssize_t n = ::write(fd, text.data(), text.size());
  int err = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : EIO);
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

int LinuxFilesOs::create(const std::string& path, std::string_view text) {
  int fd = ::open(at(path).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  int err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) ::unlink(at(path).c_str());
  return err;
}

int LinuxFilesOs::replace(const std::string& path, std::string_view text) {
  std::string target = at(path), part = target + ".part";
  int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  int err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(part.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) ::unlink(part.c_str());
  return err;
}

int LinuxFilesOs::append(const std::string& path, std::string_view text) {
  int fd = ::open(at(path).c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  int err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

int LinuxFilesOs::remove_file(const std::string& path) { return ::unlink(at(path).c_str()) == 0 ? 0 : errno; }

int LinuxFilesOs::make_dir(const std::string& path) { return ::mkdir(at(path).c_str(), 0755) == 0 ? 0 : errno; }

int LinuxFilesOs::make_dirs(const std::string& path) {
  std::string_view rel = relative(path);
  for (size_t slash = rel.find('/'); ; slash = rel.find('/', slash + 1)) {
    std::string dir(rel.substr(0, slash));
    if (!dir.empty() && ::mkdir(m_root.path(dir).c_str(), 0755) != 0 && errno != EEXIST) return errno;
    if (slash == std::string_view::npos) return 0;
  }
}

int LinuxFilesOs::remove_dir(const std::string& path) { return ::rmdir(at(path).c_str()) == 0 ? 0 : errno; }

int LinuxFilesOs::writable(const std::string& path) { return ::access(at(path).c_str(), W_OK) == 0 ? 0 : errno; }

}  // namespace affix
