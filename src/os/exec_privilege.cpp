#include "exec_privilege.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>

#include <fmt/format.h>

#include "exec_lookup.hpp"
#include "text.hpp"

namespace affix {

namespace {

// capabilities(7), by number.
constexpr const char* k_cap_names[] = {
    "chown",           "dac_override", "dac_read_search", "fowner",      "fsetid",       "kill",
    "setgid",          "setuid",       "setpcap",         "linux_immutable", "net_bind_service",
    "net_broadcast",   "net_admin",    "net_raw",         "ipc_lock",    "ipc_owner",    "sys_module",
    "sys_rawio",       "sys_chroot",   "sys_ptrace",      "sys_pacct",   "sys_admin",    "sys_boot",
    "sys_nice",        "sys_resource", "sys_time",        "sys_tty_config", "mknod",     "lease",
    "audit_write",     "audit_control", "setfcap",        "mac_override", "mac_admin",   "syslog",
    "wake_alarm",      "block_suspend", "audit_read",     "perfmon",     "bpf",          "checkpoint_restore"};
constexpr unsigned k_cap_sys_ptrace = 19;

std::string user_name(uid_t uid) {
  if (const passwd* p = ::getpwuid(uid)) return printable(p->pw_name);
  return fmt::format("user {}", uid);
}

std::string group_name(gid_t gid) {
  if (const group* g = ::getgrgid(gid)) return printable(g->gr_name);
  return fmt::format("group {}", gid);
}

std::uint32_t le32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}

// The permitted set of a vfs_cap_data (linux/capability.h): magic_etc,
// then {permitted, inheritable} once (revision 1) or twice (2, 3: the
// second holds capabilities 32-63; 3 adds the namespace's root ID).
std::optional<std::uint64_t> cap_permitted(const unsigned char* data, size_t size) {
  if (size < 12) return std::nullopt;
  std::uint32_t revision = le32(data) & 0xFF000000u;
  std::uint64_t permitted = le32(data + 4);
  if (revision == 0x01000000u) return permitted;
  if ((revision == 0x02000000u || revision == 0x03000000u) && size >= 20)
    return permitted | std::uint64_t(le32(data + 12)) << 32;
  return std::nullopt;
}

std::uint64_t status_mask(const std::string& text, std::string_view key) {
  size_t at = text.find(fmt::format("\n{}:", key));
  if (at == std::string::npos) return 0;
  return std::strtoull(text.c_str() + at + key.size() + 2, nullptr, 16);
}

}  // namespace

std::string capability_names(std::uint64_t mask) {
  std::string out;
  for (unsigned c = 0; c < 64; ++c) {
    if (!(mask >> c & 1)) continue;
    if (!out.empty()) out += ",";
    out += c < std::size(k_cap_names) ? fmt::format("cap_{}", k_cap_names[c]) : fmt::format("cap_{}", c);
  }
  return out;
}

std::string privilege_lost(const FilePrivilege& file, const Credentials& who) {
  if (who.cap_sys_ptrace) return "";
  std::string out;
  auto add = [&](const std::string& what) {
    if (!out.empty()) out += " and ";
    out += what;
  };
  if (file.setuid && file.owner != who.euid) add(fmt::format("set-user-ID {}", user_name(file.owner)));
  if (file.setgid && file.group != who.egid) add(fmt::format("set-group-ID {}", group_name(file.group)));
  if (file.caps)
    if (std::uint64_t gained = *file.caps & who.bounding & ~who.permitted)
      add(fmt::format("file capabilities {}", capability_names(gained)));
  return out;
}

std::optional<std::string> exec_file(const std::string& command, const char* path) {
  std::string found;
  if (exec_lookup(command, path, &found) != 0) return std::nullopt;
  return found;
}

std::optional<FilePrivilege> read_file_privilege(const std::string& file) {
  struct stat st;
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  FilePrivilege out;
  out.file = file;
  out.setuid = st.st_mode & S_ISUID;
  out.setgid = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP);
  out.owner = st.st_uid;
  out.group = st.st_gid;
  unsigned char data[64];
  ssize_t n = ::getxattr(file.c_str(), "security.capability", data, sizeof data);
  if (n > 0) out.caps = cap_permitted(data, static_cast<size_t>(n));
  return out;
}

Credentials own_credentials() {
  Credentials out;
  out.euid = ::geteuid();
  out.egid = ::getegid();
  std::ifstream f("/proc/self/status");
  std::string text = "\n";
  text.append(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  out.permitted = status_mask(text, "CapPrm");
  out.bounding = status_mask(text, "CapBnd");
  out.cap_sys_ptrace = status_mask(text, "CapEff") >> k_cap_sys_ptrace & 1;
  return out;
}

}  // namespace affix
