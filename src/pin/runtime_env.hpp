#pragma once
// The warning of a pin that leaves a runtime sized for more CPUs than it now
// has (affix(1), Pin options): Go's GOMAXPROCS and OpenMP's OMP_NUM_THREADS
// above the new CPU count, or AFFIX_CPUS (from an earlier `affix --env`)
// naming other CPUs, as the process's environment at its exec shows them
// (/proc/PID/environ: a variable the program set itself later is not there);
// and a Go program started without GOMAXPROCS (its executable's
// .go.buildinfo) pinned to fewer CPUs than it had.

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpuset.hpp"
#include "pin.hpp"
#include "sysroot.hpp"

namespace affix {

// The value of NAME in an environ text (NUL-separated NAME=VALUE); nullopt
// where it is not set.
std::optional<std::string_view> environ_value(std::string_view environ, std::string_view name);

// A process's environment at its exec (/proc/PID/environ); nullopt where it
// cannot be read (another user's, without the right to) or is larger than
// any exec passes.
std::optional<std::string> read_environ(const SysRoot& root, pid_t pid);

// The warnings for one process whose threads may now run on `cpus`, from its
// environ text (NUL-separated NAME=VALUE). Values that are not what the
// runtime would read (GOMAXPROCS=abc, an AFFIX_CPUS that is no cpulist) give
// none.
std::vector<std::string> runtime_env_warnings(pid_t pid, std::string_view environ, const CpuSet& cpus);

// A Go program's build information: the ELF section .go.buildinfo of its
// executable, which begins with "\xff Go buildinf:" (Go 1.13 and later).
struct GoBuild {
  std::string version;  // "go1.22.1"; empty where the section points into memory (before Go 1.18)
  std::string modinfo;  // the module and build lines ("build\tDefaultGODEBUG=...")
};

// The section's bytes -> the build; nullopt where they are not Go's.
std::optional<GoBuild> parse_go_buildinfo(std::string_view section);

// Reads /proc/PID/exe's ELF section headers and, where it has a
// .go.buildinfo section, its first 4 KiB; nullopt for any other program or
// one that cannot be read.
std::optional<GoBuild> read_go_build(const SysRoot& root, pid_t pid);

// Whether the Go runtime follows a change of its CPU list by itself: Go
// 1.25 and later re-read it (GOMAXPROCS's automatic updates), unless
// GODEBUG=updatemaxprocs=0, in the environment or the build's defaults (a
// module that declares go 1.24 or older has it there).
bool go_updates_maxprocs(const GoBuild& go, std::string_view environ);

// A Go program started without GOMAXPROCS and pinned to fewer CPUs than it
// had before the pin: Go sized GOMAXPROCS once, at its start, from the CPUs
// it had then (not kept: `before`, what it had until this pin, is what is
// known); nullopt where there is nothing to say.
std::optional<std::string> go_warning(pid_t pid, const GoBuild& go, std::string_view environ, const CpuSet& before,
                                      const CpuSet& now);

// The same for every process a finished pin moved, its CPUs the union of its
// threads' new lists; a process whose environ cannot be read (another
// user's, without the right to read it) gives none.
std::vector<std::string> runtime_env_warnings(const SysRoot& root, const PinReport& report);

}  // namespace affix
