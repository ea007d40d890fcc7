#pragma once
// pin --check and shields (affix(1), Pin options, --check): every shield
// whose CPUs the selection shares is checked as the kernel holds it
// (show --shield's reading): the check fails where the kernel does not hold
// it, or where a task other than those inside it may run on its CPUs
// (kernel threads that cannot move aside).

#include <vector>

#include "cpuset.hpp"
#include "pin_check.hpp"
#include "sysroot.hpp"

namespace affix {

// Reads nothing beyond the records where there is no shield.
std::vector<ShieldCheck> check_shields(const SysRoot& root, const CpuSet& selected);

}  // namespace affix
