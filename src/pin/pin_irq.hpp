#pragma once
// pin --irq: moving interrupts, all or nothing (affix(1), INTERRUPTS). Each
// IRQ's CPU list is read, then (after every one was found writable) written
// in IRQ order; a write the kernel refuses (a managed IRQ: EIO; a
// controller that cannot route it there: EINVAL) puts back every IRQ
// already moved, in reverse order, and the error names the IRQ. Then each
// IRQ's effective list is read back. --check and --dry-run read only.
// Everything goes through IrqOs, so the tests run it on a fake.

#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "irq.hpp"

namespace affix {

struct IrqTarget {
  unsigned irq = 0;
  std::string name;  // its actions as /proc/interrupts gives them, ","-joined; may be empty
};

// "IRQ 45 (eth0-TxRx-0)", the name escaped; "IRQ 45" without one.
std::string irq_label(const IrqTarget& target);

// The CPU list each target gets: `cpus`, or with a spread (`sequence`
// non-empty) `per_cpu` targets per CPU of `sequence` in target order,
// round after round.
std::vector<CpuSet> irq_wants(size_t targets, const CpuSet& cpus, const std::vector<unsigned>& sequence,
                              unsigned per_cpu);

struct IrqMove {
  IrqTarget target;
  CpuSet before, want;
  std::optional<CpuSet> effective;  // read back after the move (dry run: now)
  bool changed = false;             // written (dry run: would be)
  int refused = 0;                  // with IrqRefusal::Stay: the errno of a write refused (it stays)
};

// What a write the kernel refuses does to the others: pin --irq puts back
// every IRQ already moved and fails (RollBack); affix shield moves every
// IRQ that can be moved and names those that cannot (Stay: EIO or EPERM,
// the kernel's answer for a managed IRQ, a per-CPU one or one whose chip
// cannot route it; any other refusal still rolls back).
enum class IrqRefusal { RollBack, Stay };

struct IrqPinResult {
  std::vector<IrqMove> moves;
  std::vector<std::string> warnings;  // an IRQ still delivered outside its new list
};

// Moves targets[i] to wants[i]; with `dry_run` reads only. Throws
// Error(Runtime) before anything is written where a list cannot be read or
// written (no root), and after putting back the IRQs moved where a write is
// refused.
IrqPinResult pin_irqs(IrqOs& os, const std::vector<IrqTarget>& targets, const std::vector<CpuSet>& wants,
                      bool dry_run, IrqRefusal refusal = IrqRefusal::RollBack);

// "4 IRQs on CPUs 0-3 (3 moved)", with --spread "4 IRQs one CPU each from
// CPUs 0-3 (4 moved)"; with `verbose` (always with `dry_run`) a line per
// IRQ: "  IRQ 45 (eth0-TxRx-0): 0-7 -> 0-3" (", effective 2" where the
// kernel tells).
std::string format_irq_pin(const IrqPinResult& result, const CpuSet& cpus, bool spread, bool verbose,
                           bool dry_run);

struct IrqCheck {
  IrqTarget target;
  std::optional<CpuSet> cpus;       // nullopt: cannot be read
  std::optional<CpuSet> effective;  // nullopt: absent
  CpuSet want;
  bool ok = false;  // cpus, and effective where present, within want
};

struct IrqCheckReport {
  std::vector<IrqCheck> irqs;
  bool ok = true;
};

IrqCheckReport check_irqs(IrqOs& os, const std::vector<IrqTarget>& targets, const std::vector<CpuSet>& wants);
// "4 IRQs within CPUs 0-3" or "4 IRQs, 1 not within CPUs 0-3", then a line
// per IRQ outside ("  IRQ 45 (eth0-TxRx-0): cpus 0-7, not within 0-3"; with
// effective where it is outside too); with `verbose` a line per IRQ.
std::string format_irq_check(const IrqCheckReport& report, const CpuSet& cpus, bool spread, bool verbose);
std::string irq_check_json(const IrqCheckReport& report);

}  // namespace affix
