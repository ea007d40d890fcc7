#pragma once
// One shield change at a time on a machine (affix(1), SHIELD): making a
// shield, and removing one, hold an exclusive flock(2) on
// /run/affix/shield.lock from reading the machine to the kernel's verdict,
// so that two shields started together never plan against the same
// partitions (one of them would be invalidated by the other's CPUs). The
// lock is not held while a shield's command runs; it goes with the process
// (a killed affix leaves no stale lock).

#include <string>

#include "sysroot.hpp"

namespace affix {

constexpr const char* k_shield_lock = "/run/affix/shield.lock";

class ShieldLock {
public:
  explicit ShieldLock(const SysRoot& root) : m_root(root) {}
  ~ShieldLock();
  ShieldLock(const ShieldLock&) = delete;
  ShieldLock& operator=(const ShieldLock&) = delete;

  // Waits for the lock (another affix shield may hold it while it makes or
  // removes a shield). Throws Error(Runtime) where the file cannot be made
  // or locked; nothing was changed then.
  void take();
  void release();
  bool held() const { return m_fd >= 0; }

private:
  SysRoot m_root;
  int m_fd = -1;
};

}  // namespace affix
