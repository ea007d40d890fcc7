#pragma once
// What a program loses when `run --spread` execs it under affix's tracer
// (affix(1), --spread). A set-user-ID or set-group-ID file, or one with file
// capabilities (the security.capability attribute setcap writes), raises
// the privileges of a process that execs it; under a tracer the kernel
// (security/commoncap.c, cap_bprm_creds_from_file) raises them only where
// the tracer held CAP_SYS_PTRACE when it attached: else the effective IDs
// stay the caller's and the capabilities no more than it had. The program
// then runs without them, and fails later in its own words. So where exec
// would run such a file and the kernel would drop what it gives, run
// --spread refuses before anything (exit 125).
//
// A file that gives nothing new (set-user-ID to the caller's own user,
// capabilities the caller already has) loses nothing; root, which holds
// CAP_SYS_PTRACE, loses nothing either.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace affix {

// A file's set-ID bits and capabilities, as exec would see them.
struct FilePrivilege {
  std::string file;  // the file exec runs (after the PATH search)
  bool setuid = false;
  bool setgid = false;  // set-group-ID with group execute (without it, it is mandatory locking)
  uid_t owner = 0;
  gid_t group = 0;
  // The permitted capabilities its security.capability attribute gives;
  // nullopt where it has none.
  std::optional<std::uint64_t> caps;
};

// The caller's credentials, as its tracer and exec would see them.
struct Credentials {
  uid_t euid = 0;
  gid_t egid = 0;
  std::uint64_t permitted = 0;  // CapPrm
  std::uint64_t bounding = ~std::uint64_t(0);  // CapBnd
  bool cap_sys_ptrace = false;  // CAP_SYS_PTRACE in CapEff: the kernel lets a traced exec gain privileges
};

// What the kernel would drop at an exec of `file` by `who` under its
// tracer: "set-user-ID root", "set-group-ID staff", "file capabilities
// cap_net_bind_service", joined with " and "; "" where nothing.
std::string privilege_lost(const FilePrivilege& file, const Credentials& who);

// The file execvp would run for `command` under PATH `path` (nullptr:
// unset): nullopt where none is found (exec then fails in its own words).
std::optional<std::string> exec_file(const std::string& command, const char* path);

// Reads `file`'s mode, owner and security.capability attribute (getxattr;
// a revision 1, 2 or 3 vfs_cap_data). nullopt where it cannot be read.
std::optional<FilePrivilege> read_file_privilege(const std::string& file);

// This process's credentials (geteuid, getegid, /proc/self/status CapPrm,
// CapBnd, CapEff).
Credentials own_credentials();

// "cap_net_bind_service,cap_net_raw": the capabilities of `mask` by their
// names in capabilities(7); "cap_N" for a number without one.
std::string capability_names(std::uint64_t mask);

}  // namespace affix
