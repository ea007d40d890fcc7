#include "pin_irq.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "error.hpp"
#include "json.hpp"
#include "text.hpp"

namespace affix {

namespace {

std::string irq_path(unsigned irq) { return fmt::format("/proc/irq/{}/smp_affinity_list", irq); }

// Puts back moves[0..n) in reverse order; "" where every one went back,
// else what stays where.
std::string put_back(IrqOs& os, const std::vector<IrqMove>& moves, size_t n) {
  std::string stays;
  for (size_t i = n; i-- > 0;) {
    const IrqMove& m = moves[i];
    if (!m.changed) continue;
    if (int err = os.set_affinity(m.target.irq, m.before); err != 0)
      stays += fmt::format("{}{} stays on {} ({})", stays.empty() ? "" : "; ", irq_label(m.target),
                           format_cpulist(m.want), errno_text(err));
  }
  return stays;
}

std::string within_word(bool spread) { return spread ? "the CPU --spread gives each, of CPUs" : "CPUs"; }

}  // namespace

std::string irq_label(const IrqTarget& target) {
  return target.name.empty() ? fmt::format("IRQ {}", target.irq)
                             : fmt::format("IRQ {} ({})", target.irq, printable(target.name));
}

std::vector<CpuSet> irq_wants(size_t targets, const CpuSet& cpus, const std::vector<unsigned>& sequence,
                              unsigned per_cpu) {
  std::vector<CpuSet> out;
  const size_t per = per_cpu == 0 ? 1 : per_cpu;
  for (size_t k = 0; k < targets; ++k) {
    if (sequence.empty()) {
      out.push_back(cpus);
    } else {
      CpuSet one;
      one.set(sequence[(k / per) % sequence.size()]);
      out.push_back(one);
    }
  }
  return out;
}

IrqPinResult pin_irqs(IrqOs& os, const std::vector<IrqTarget>& targets, const std::vector<CpuSet>& wants,
                      bool dry_run, IrqRefusal refusal) {
  IrqPinResult result;
  for (size_t i = 0; i < targets.size(); ++i) {
    auto before = os.affinity(targets[i].irq);
    if (!before)
      throw Error(ErrorKind::Runtime, fmt::format("{}: cannot read {}", irq_label(targets[i]), irq_path(targets[i].irq)));
    IrqMove m{targets[i], *before, wants[i], std::nullopt, !(*before == wants[i])};
    if (dry_run) m.effective = os.effective(targets[i].irq);
    result.moves.push_back(std::move(m));
  }
  if (dry_run) return result;
  // Nothing is written unless every IRQ can be (affix(1), PERMISSIONS).
  for (const auto& m : result.moves)
    if (int err = os.writable(m.target.irq); err != 0)
      throw Error(ErrorKind::Runtime,
                  fmt::format("{}: cannot write {}: {}; nothing was moved", irq_label(m.target), irq_path(m.target.irq),
                              errno_text(err)),
                  "moving interrupts needs root (affix(1), PERMISSIONS)");
  auto& moves = result.moves;
  for (size_t i = 0; i < moves.size(); ++i) {
    IrqMove& m = moves[i];
    if (!m.changed) continue;
    int err = os.set_affinity(m.target.irq, m.want);
    if (err == 0) continue;
    m.changed = false;
    if (refusal == IrqRefusal::Stay && (err == EIO || err == EPERM)) {
      m.refused = err;
      continue;
    }
    std::string stays = put_back(os, moves, i);
    size_t moved = 0;
    for (size_t k = 0; k < i; ++k) moved += moves[k].changed;
    std::string back = !stays.empty() ? "; not every IRQ already moved was put back"
                       : moved > 0    ? fmt::format("; the {} already moved {} put back", plural(moved, "IRQ", "IRQs"),
                                                    moved == 1 ? "was" : "were")
                                      : std::string("; nothing was moved");
    if (err == EIO)
      throw Error(ErrorKind::Runtime,
                  fmt::format("{} is managed by the kernel: its affinity cannot be changed{}", irq_label(m.target), back),
                  stays.empty() ? "the kernel spreads a managed IRQ (an NVMe queue) over the CPUs itself; move the "
                                  "threads that use the device instead"
                                : stays);
    throw Error(ErrorKind::Runtime,
                fmt::format("{}: the kernel refused CPUs {}: {}{}", irq_label(m.target), format_cpulist(m.want),
                            errno_text(err), back),
                stays.empty() ? "an interrupt controller may route an IRQ to some CPUs only; 'affix show --irq' "
                                "shows where it may go now"
                              : stays);
  }
  for (auto& m : moves) {
    m.effective = os.effective(m.target.irq);
    if (m.refused) continue;
    if (m.effective && !m.effective->empty() && !m.effective->is_subset_of(m.want))
      result.warnings.push_back(fmt::format("{}: the kernel still delivers it on CPU {}, outside {}; it moves with "
                                            "its next interrupt", irq_label(m.target), format_cpulist(*m.effective),
                                            format_cpulist(m.want)));
  }
  return result;
}

std::string format_irq_pin(const IrqPinResult& result, const CpuSet& cpus, bool spread, bool verbose, bool dry_run) {
  size_t changed = 0;
  for (const auto& m : result.moves) changed += m.changed;
  std::string out = fmt::format("{} {} {} ({} {})\n", plural(result.moves.size(), "IRQ", "IRQs"),
                                spread ? "one CPU each from CPUs" : "on CPUs", format_cpulist(cpus), changed,
                                dry_run ? "would move" : "moved");
  if (!verbose && !dry_run) return out;
  for (const auto& m : result.moves)
    out += fmt::format("  {}: {} -> {}{}\n", irq_label(m.target), format_cpulist(m.before), format_cpulist(m.want),
                       m.effective ? ", effective " + list_or_none(*m.effective) : "");
  return out;
}

IrqCheckReport check_irqs(IrqOs& os, const std::vector<IrqTarget>& targets, const std::vector<CpuSet>& wants) {
  IrqCheckReport report;
  for (size_t i = 0; i < targets.size(); ++i) {
    IrqCheck c{targets[i], os.affinity(targets[i].irq), os.effective(targets[i].irq), wants[i], false};
    c.ok = c.cpus && c.cpus->is_subset_of(c.want) && (!c.effective || c.effective->is_subset_of(c.want));
    report.ok = report.ok && c.ok;
    report.irqs.push_back(std::move(c));
  }
  return report;
}

std::string format_irq_check(const IrqCheckReport& report, const CpuSet& cpus, bool spread, bool verbose) {
  size_t outside = 0;
  for (const auto& c : report.irqs) outside += !c.ok;
  std::string what = plural(report.irqs.size(), "IRQ", "IRQs");
  std::string where = fmt::format("{} {}", within_word(spread), format_cpulist(cpus));
  std::string out = outside == 0 ? fmt::format("{} within {}\n", what, where)
                                 : fmt::format("{}, {} not within {}\n", what, outside, where);
  for (const auto& c : report.irqs) {
    if (c.ok && !verbose) continue;
    std::string lists = c.cpus ? "cpus " + format_cpulist(*c.cpus) : "cpus unreadable";
    if (c.effective) lists += ", effective " + list_or_none(*c.effective);
    out += fmt::format("  {}: {}, {} {}\n", irq_label(c.target), lists, c.ok ? "within" : "not within",
                       format_cpulist(c.want));
  }
  return out;
}

std::string irq_check_json(const IrqCheckReport& report) {
  JsonWriter j;
  j.begin_object();
  j.field("ok", report.ok);
  j.key("irqs");
  j.begin_array();
  for (const auto& c : report.irqs) {
    j.begin_object();
    j.field("irq", c.target.irq);
    j.field("name", c.target.name);
    j.key("cpus");
    if (c.cpus) j.value(format_cpulist(*c.cpus)); else j.null();
    j.key("effective");
    if (c.effective) j.value(format_cpulist(*c.effective)); else j.null();
    j.field("want", format_cpulist(c.want));
    j.field("ok", c.ok);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

}  // namespace affix
