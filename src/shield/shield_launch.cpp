#include "shield_launch.hpp"

#include <fmt/format.h>

#include "error.hpp"
#include "shield_machine.hpp"
#include "shield_systemd.hpp"
#include "text.hpp"

namespace affix {

namespace {

// The record as it is now: another shield's removal may have handed
// changes over to this one while the command ran.
ShieldRecord current_record(ShieldOs& os, const ShieldRecord& shield) {
  try {
    if (auto r = read_record(os.files, shield.name)) return *r;
  } catch (const Error&) {
    // unreadable now: what this launcher made is still known
  }
  return shield;
}

}  // namespace

ShieldRun run_in_shield(ShieldOs& os, const ShieldRecord& shield, const std::vector<std::string>& command,
                        unsigned long long launcher_start, const std::function<void()>& before_removal) {
  ShieldRun run;
  const bool systemd = shield.layout == ShieldLayout::Systemd;
  pid_t pid = os.programs.start_held(systemd ? in_slice(shield.unit, command) : command);
  if (pid < 0) {
    if (before_removal) before_removal();
    Removal removal = remove_shield(os, current_record(os, shield));
    throw Error(ErrorKind::Runtime, fmt::format("cannot start the command: fork: {}{}", errno_text(-pid), removal_phrase(removal)),
                "the machine is out of processes or memory");
  }
  if (!systemd) {
    if (int err = os.files.write(shield.cgroup + "/cgroup.procs", std::to_string(pid)); err != 0) {
      os.programs.abandon(pid);
      if (before_removal) before_removal();
      Removal removal = remove_shield(os, current_record(os, shield));
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot put the command into {}: {}{}", printable(shield.cgroup + "/cgroup.procs"),
                              errno_text(err), removal_phrase(removal)),
                  "the kernel refused to move it into the shield; the command was not started");
    }
  }
  // The command inherited affix's own mask (taskset -c 0,6 affix shield
  // 6-7 -- cmd): since Linux 6.2 the kernel keeps a mask a user set and
  // gives a task moved into a cpuset only the CPUs of both (CPU 6 alone).
  // Its mask is every online CPU, which the shield's cpuset narrows to the
  // shield's CPUs, all of them (not the shield's CPUs themselves: the kernel
  // would keep those as its mask after --off, and a command left in the
  // shield would stay on them).
  if (os.affinity) {
    const CpuSet& cpus = os.online.empty() ? shield.cpus : os.online;
    if (int err = os.affinity->set_affinity(pid, cpus); err != 0) {
      os.programs.abandon(pid);
      if (before_removal) before_removal();
      Removal removal = remove_shield(os, current_record(os, shield));
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot give the command CPUs {}: {}{}", format_cpulist(cpus), errno_text(err),
                              removal_phrase(removal)),
                  "the kernel refused sched_setaffinity on the command; it was not started");
    }
  }
  record_launcher(os, shield, os.programs.own_pid(), launcher_start, pid);
  if (int err = os.programs.release(pid); err != 0) {
    run.exec_error = err;
    if (before_removal) before_removal();
    run.removal = remove_shield(os, current_record(os, shield));
    return run;
  }
  run.status = os.programs.wait_passing_signals(pid);
  if (before_removal) before_removal();
  run.removal = remove_shield(os, current_record(os, shield));
  return run;
}

}  // namespace affix
