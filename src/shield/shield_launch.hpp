#pragma once
// affix shield WHERE COMMAND: the command runs inside the shield and the
// shield goes when it ends, however it ends (affix(1), SHIELD). affix
// outlives it: it forks the command held, puts it into the shield's cgroup
// (where systemd runs the machine, systemd-run puts it into the slice),
// lets it exec, waits for it while passing signals on, then removes the
// shield and exits with the command's status. The launcher is recorded in
// the shield's record: a launcher killed with SIGKILL leaves the shield,
// which show --shield then lists and --off removes.

#include <functional>
#include <string>
#include <vector>

#include "shield_apply.hpp"

namespace affix {

struct ShieldRun {
  int exec_error = 0;  // the exec failed (errno); the shield was removed
  int status = 0;      // the command's status (128+N for signal N)
  Removal removal;     // the shield's removal after it
};

// Runs `command` in the shield `made` made. `launcher_start` is affix's
// own start time (its stat), kept in the record; `before_removal` runs
// once the command ended, before the shield is removed (takes the lock on
// shield changes). Throws Error(Runtime) where the command cannot be
// started (every change then undone).
ShieldRun run_in_shield(ShieldOs& os, const ShieldRecord& shield, const std::vector<std::string>& command,
                        unsigned long long launcher_start, const std::function<void()>& before_removal = {});

}  // namespace affix
