#pragma once
// Making a shield from its plan, and removing one (affix shield --off),
// all or nothing (affix(1), SHIELD, GUARANTEES). Each change is written to
// the shield's record before it is made (a directory or the v1 system
// cpuset right after: only one that affix made is ever removed), so a
// failure, or a later --off, undoes exactly what was changed, in reverse
// order. A failure's message says truthfully what was put back.

#include <string>
#include <vector>

#include "files_os.hpp"
#include "irq.hpp"
#include "os.hpp"
#include "pin_irq.hpp"
#include "shield_plan.hpp"
#include "shield_record.hpp"

namespace affix {

// The kernel and programs a shield's changes go through.
struct ShieldOs {
  FilesOs& files;
  IrqOs& irqs;
  ChildOs& programs;  // systemctl, where systemd runs the machine
  // A shield's command gets every online CPU as its mask, whatever it
  // inherited (taskset's mask would narrow the shield's CPUs); the shield's
  // cpuset narrows it to the shield's CPUs.
  AffinityOs* affinity = nullptr;
  CpuSet online{};
};

struct MadeShield {
  ShieldRecord record;            // with its ops, as made
  std::vector<IrqMove> irqs;      // --irqs: every IRQ on the CPUs (moved, or refused and staying)
  std::string default_affinity;   // --irqs: default_smp_affinity as written, "" where unchanged
  std::vector<std::string> warnings;
};

// Makes the shield. `others` are the shields there are (shared changes
// are made once); `online` the online CPUs. Throws Error(Runtime) on a
// failure, every change undone (or, where one could not be, named in the
// message and kept in the record for --off).
MadeShield make_shield(ShieldOs& os, const ShieldPlan& plan, const CpuSet& online);

// Records the launcher of a command-running shield in its record.
void record_launcher(ShieldOs& os, const ShieldRecord& record, pid_t launcher, unsigned long long start,
                     pid_t command);

struct Removal {
  std::vector<std::string> left;   // what could not be put back, one phrase each
  std::vector<std::string> notes;  // what else happened (tasks moved out, an IRQ changed since)
};

// Undoes every change of `record`, the last first; shared changes other
// shields still need are handed over to one of them. The record's file is
// removed where everything was put back, else rewritten with what was not.
Removal remove_shield(ShieldOs& os, const ShieldRecord& record);

// What remove_shield would do now, one line each, last change first
// ("undo: ...", "hand over to shield B: ...", "leave ...: why"), for
// --off --dry-run; nothing is written.
std::vector<std::string> removal_plan(ShieldOs& os, const ShieldRecord& record);

// "; every change was put back" / "; not everything was put back: ..." for
// a message, from a removal.
std::string removal_phrase(const Removal& r);

}  // namespace affix
