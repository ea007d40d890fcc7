#pragma once
// The words of `show --irq` and `pin --irq`: IRQ numbers, device names and
// PCI addresses -> IRQ numbers (affix(1), INTERRUPTS).

#include <string>
#include <vector>

#include "irq.hpp"
#include "sysroot.hpp"

namespace affix {

// Every IRQ the words name, ascending, each once: a number is that IRQ (in
// /proc/interrupts or under /proc/irq); a PCI address or a device name
// (pci_function_of) every IRQ of its PCI function, else (a name) every IRQ
// with an action of that name (eth0: "eth0", "eth0-TxRx-3"). Error(Usage)
// for a number that is no IRQ, a name or address of no device, a device
// without IRQs; nothing is read beyond `root` and `table`.
std::vector<unsigned> irqs_of_words(const SysRoot& root, const InterruptTable& table,
                                    const std::vector<std::string>& words);

}  // namespace affix
