#pragma once
// --irqs: every IRQ that may go to a shielded CPU moved off it, all or
// nothing as pin --irq moves them (pin_irq.hpp), except that an IRQ the
// kernel will not move (a managed one, such as an NVMe queue; a per-CPU
// one; the timer) stays and is named; then /proc/irq/default_smp_affinity
// without the shield's CPUs, for the IRQs drivers request later.

#include <functional>

#include "cpuset.hpp"
#include "shield_apply.hpp"

namespace affix {

// An IRQ whose list holds a shielded CPU keeps the rest of its list, or,
// where that is empty, gets `rest` (the online CPUs no shield holds). Each
// change goes to `record` before it is made. Throws Error(Runtime) where a
// write is refused otherwise (every IRQ then put back).
void move_irqs_off(ShieldOs& os, const ShieldRecord& shield, const CpuSet& rest, MadeShield& made,
                   const std::function<void(const Op&)>& record);

}  // namespace affix
