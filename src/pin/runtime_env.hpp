#pragma once
// The warning of a pin that leaves a runtime sized for more CPUs than it now
// has (affix(1), Pin options): Go's GOMAXPROCS and OpenMP's OMP_NUM_THREADS
// above the new CPU count, or AFFIX_CPUS (from an earlier `affix --env`)
// naming other CPUs, as the process's environment at its exec shows them
// (/proc/PID/environ: a variable the program set itself later is not there).

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

// The same for every process a finished pin moved, its CPUs the union of its
// threads' new lists; a process whose environ cannot be read (another
// user's, without the right to read it) gives none.
std::vector<std::string> runtime_env_warnings(const SysRoot& root, const PinReport& report);

}  // namespace affix
