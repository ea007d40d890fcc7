#pragma once
// What affix shield will change, in order, before it changes anything
// (affix(1), SHIELD): pure, from what was read of the machine
// (ShieldMachine) and what was asked. Each layout has its steps:
//   cgroup2  +cpuset in the root's cgroup.subtree_control (where it is not
//            there), the shield's cgroup, its cpuset.cpus (and
//            cpuset.mems), cpuset.cpus.partition, the kernel's verdict;
//   systemd  the slice's unit file, systemctl daemon-reload and start,
//            cpuset.cpus.exclusive from the first cgroup below the root
//            down to the slice's, cpuset.cpus.partition, the verdict;
//   cgroup1  the system cpuset (every movable task of the root moved in)
//            and the CPUs taken from it, the shield's cpuset with
//            cpu_exclusive (and mem_exclusive), sched_load_balance off for
//            --isolated;
// then, with --irqs, every movable IRQ off the CPUs and
// /proc/irq/default_smp_affinity.

#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "shield_machine.hpp"
#include "shield_record.hpp"

namespace affix {

struct ShieldRequest {
  CpuSet cpus;
  std::optional<CpuSet> mems;  // --mem: the shield's memory nodes
  bool isolated = false;
  bool irqs = false;
  std::string name;            // --name; "" for the next free affix-shield-N
};

enum class ShieldStepKind {
  Change,   // op: one change (recorded, then made)
  Verdict,  // op.path: read back cpuset.cpus.partition; a refusal undoes everything
  Irqs,     // every movable IRQ off the shield's CPUs, and default_smp_affinity
};

struct ShieldStep {
  ShieldStepKind kind = ShieldStepKind::Change;
  Op op;
};

struct ShieldPlan {
  ShieldRecord record;  // the shield's header (ops empty: filled as they are made)
  std::vector<ShieldStep> steps;
};

// Error(Usage) for a name that cannot be a shield's; Error(Runtime) where
// the machine has no way (machine.why_none), or systemd runs it on a
// kernel without cpuset.cpus.exclusive; Error(Resolution) for CPUs that
// would leave none to the rest of the machine, or a name taken.
ShieldPlan plan_shield(const ShieldMachine& machine, const ShieldRequest& request);

// Where a shield named `name` has its cgroup under `machine`'s layout.
std::string shield_cgroup(const ShieldMachine& machine, const std::string& name);
// The v1 system cpuset, where the rest of the machine runs.
std::string system_cpuset(const ShieldMachine& machine);

// A name affix shield accepts: 1 to 64 letters, digits, '_' and '-',
// starting with a letter or digit, no "--" and no '-' at the end (systemd
// reads each '-' of a slice's name as a level); nullopt, else why not.
std::optional<std::string> bad_shield_name(const std::string& name);

// One line per step, as --dry-run and -v print them.
std::string describe_step(const ShieldStep& step);

}  // namespace affix
