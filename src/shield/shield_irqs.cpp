#include "shield_irqs.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "error.hpp"
#include "sysroot.hpp"
#include "text.hpp"

namespace affix {

namespace {

constexpr const char* k_default_affinity = "/proc/irq/default_smp_affinity";

}  // namespace

void move_irqs_off(ShieldOs& os, const ShieldRecord& shield, const CpuSet& rest, MadeShield& made,
                   const std::function<void(const Op&)>& record) {
  InterruptTable table = parse_interrupts(os.files.read("/proc/interrupts").value_or(""));
  std::vector<unsigned> numbers;
  for (const auto& n : os.files.list("/proc/irq"))
    if (auto v = parse_decimal(n, k_max_id)) numbers.push_back(static_cast<unsigned>(*v));
  std::sort(numbers.begin(), numbers.end());
  std::vector<IrqTarget> targets;
  std::vector<CpuSet> wants;
  for (unsigned irq : numbers) {
    auto cpus = os.irqs.affinity(irq);
    if (!cpus || !cpus->intersects(shield.cpus)) continue;
    CpuSet want = *cpus - shield.cpus;
    if (want.empty()) want = rest;
    targets.push_back({irq, irq_actions(table, irq)});
    wants.push_back(want);
    record(Op{OpKind::Irq, std::to_string(irq), format_cpulist(want), format_cpulist(*cpus)});
  }
  IrqPinResult result = pin_irqs(os.irqs, targets, wants, false, IrqRefusal::Stay);
  for (const auto& m : result.moves)
    if (m.refused)
      made.warnings.push_back(fmt::format("{} stays on CPUs {}: the kernel will not move it ({}: a managed, per-CPU "
                                          "or fixed IRQ)", irq_label(m.target), format_cpulist(m.before),
                                          errno_text(m.refused)));
  made.warnings.insert(made.warnings.end(), result.warnings.begin(), result.warnings.end());
  made.irqs = std::move(result.moves);

  auto raw = os.files.read(k_default_affinity);
  if (!raw) return;  // a kernel without it (!SMP)
  auto now = parse_cpumask(trim_space(*raw));
  if (!now) return;
  CpuSet next = *now.value - shield.cpus;
  if (next.empty()) next = rest;
  if (next == *now.value) return;
  Op op{OpKind::Shared, k_default_affinity, format_cpumask(next), *raw};
  record(op);
  if (int err = os.files.write(op.path, op.value); err != 0)
    throw Error(ErrorKind::Runtime, fmt::format("cannot write {} to {}: {}", op.value, k_default_affinity, errno_text(err)),
                "affix shield needs root (affix(1), PERMISSIONS)");
  made.default_affinity = op.value;
}

}  // namespace affix
