#include "shield_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "error.hpp"
#include "text.hpp"

namespace affix {

ShieldLock::~ShieldLock() { release(); }

void ShieldLock::take() {
  if (m_fd >= 0) return;
  const std::string file = m_root.path("run/affix/shield.lock");
  for (const char* dir : {"run", "run/affix"})
    if (::mkdir(m_root.path(dir).c_str(), 0755) != 0 && errno != EEXIST)
      throw Error(ErrorKind::Runtime, fmt::format("cannot make /run/affix: {}; nothing was changed", errno_text(errno)),
                  "affix shield needs root (affix(1), PERMISSIONS)");
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    throw Error(ErrorKind::Runtime, fmt::format("cannot open {}: {}; nothing was changed", k_shield_lock, errno_text(errno)),
                "affix shield needs root (affix(1), PERMISSIONS)");
  int rc;
  do rc = ::flock(fd, LOCK_EX);
  while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    int err = errno;
    ::close(fd);
    throw Error(ErrorKind::Runtime, fmt::format("cannot lock {}: {}; nothing was changed", k_shield_lock, errno_text(err)),
                "affix shield serializes shield changes with flock(2) on that file; /run must be a local file system");
  }
  m_fd = fd;
}

void ShieldLock::release() {
  if (m_fd < 0) return;
  ::close(m_fd);  // drops the flock
  m_fd = -1;
}

}  // namespace affix
