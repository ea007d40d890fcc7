#pragma once
// show --irq: each interrupt with its device, its CPU lists, its counts per
// CPU and whether the kernel manages it (affix(1), INTERRUPTS).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cpuset.hpp"
#include "irq.hpp"
#include "sysroot.hpp"

namespace affix {

struct IrqView {
  unsigned irq = 0;
  std::string name;                  // as /proc/interrupts gives it
  std::string actions;               // its actions, ","-joined
  std::optional<std::string> pci;    // the PCI function, where there is one
  std::vector<std::string> names;    // the function's net/block/... names
  std::optional<CpuSet> cpus;        // smp_affinity_list; nullopt: unreadable
  std::optional<CpuSet> effective;   // effective_affinity_list; nullopt: absent
  std::vector<std::pair<unsigned, unsigned long long>> counts;  // CPU -> count, by CPU
  std::optional<bool> managed;       // nullopt: the kernel does not tell (affix(1), INTERRUPTS)
};

// The views of the table's IRQs that have an action, or of `only` (in that order) where given.
// `os` reads the lists; `root` the PCI functions and debugfs.
std::vector<IrqView> read_irq_views(const SysRoot& root, IrqOs& os, const InterruptTable& table,
                                    const std::optional<std::vector<unsigned>>& only);

// A table: IRQ, CPUS, EFFECTIVE, MANAGED, DEVICE, NAME, COUNTS.
std::string format_irq_text(const std::vector<IrqView>& views);
// An array of objects: irq, name, device {pci, names} (or null), cpus,
// effective, counts {cpu: n}, managed.
std::string format_irq_json(const std::vector<IrqView>& views);

}  // namespace affix
