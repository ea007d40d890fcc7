#pragma once
// Interrupts (affix(1), INTERRUPTS): the numbered lines of /proc/interrupts,
// each IRQ's CPU lists under /proc/irq/N, whether the kernel manages its
// affinity, the PCI function it belongs to, and the one narrow interface
// through which pin writes an IRQ's CPU list (IrqOs: the tests' fake
// implements it, so no test moves this machine's interrupts).
//
// What the kernel gives (Documentation/core-api/irq/irq-affinity.rst,
// kernel/irq/proc.c):
//   /proc/interrupts         a header of CPU columns (online CPUs only: a
//                            machine with CPUs offline has holes, "CPU0
//                            CPU2"), then a line per IRQ: "N:", a count per
//                            column, the chip, the hardware IRQ and trigger,
//                            the actions ("IR-PCI-MSIX-0000:02:00.0 3-edge
//                            eth0-TxRx-3"); architecture lines (NMI, LOC)
//                            have a name for a number and are no IRQ;
//   /proc/irq/N/smp_affinity_list        where it may go (read, write);
//   /proc/irq/N/effective_affinity_list  where it is delivered (newer
//                            kernels, SMP; absent elsewhere);
//   a managed IRQ (its affinity set by the kernel, NVMe and other
//   multiqueue drivers): a write is refused with EIO; read-only, only
//   debugfs tells it (/sys/kernel/debug/irq/irqs/N lists
//   IRQD_AFFINITY_MANAGED), where debugfs is mounted and readable (root).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpuset.hpp"
#include "sysroot.hpp"

namespace affix {

struct InterruptLine {
  unsigned irq = 0;
  std::vector<unsigned long long> counts;  // one per header column (missing ones 0)
  std::string name;  // the words after the counts, runs of blanks as one space
  // The actions: the last words of `name` after the trigger (", "-separated
  // on a shared line): "eth0-TxRx-3"; the names a device's IRQ is found by.
  std::vector<std::string> actions;
};

struct InterruptTable {
  std::vector<unsigned> cpus;  // the CPU of each count column ("CPU4" -> 4)
  std::vector<InterruptLine> lines;  // numbered lines only, in file order
};

// Parses /proc/interrupts' text. Lines without a number (NMI, LOC, ERR) are
// left out; a line whose counts are fewer than the columns has 0 for the
// rest. Where the first line names no CPU column, `cpus` is empty and no
// line is read.
InterruptTable parse_interrupts(std::string_view text);
// The actions of IRQ `irq` in the table, ","-joined ("" where none).
std::string irq_actions(const InterruptTable& table, unsigned irq);
// ROOT/proc/interrupts; Error(Runtime) naming the file where it is missing
// or names no CPU column.
InterruptTable read_interrupts(const SysRoot& root);

// Whether the kernel manages IRQ `irq`'s affinity, from debugfs; nullopt
// where debugfs does not tell (not mounted, not readable).
std::optional<bool> irq_managed(const SysRoot& root, unsigned irq);

// The CPU lists of one IRQ and the one write.
class IrqOs {
public:
  virtual ~IrqOs() = default;
  virtual bool exists(unsigned irq) = 0;                    // /proc/irq/N/smp_affinity_list
  virtual std::optional<CpuSet> affinity(unsigned irq) = 0;  // nullopt: cannot be read
  virtual std::optional<CpuSet> effective(unsigned irq) = 0; // nullopt: absent
  // 0 where affix may write the IRQ's list, else the errno (EACCES).
  virtual int writable(unsigned irq) = 0;
  // 0 where the write was taken, else the errno (EIO: managed; EINVAL:
  // no CPU of the list can take it).
  virtual int set_affinity(unsigned irq, const CpuSet& cpus) = 0;
};

// /proc/irq/N/... under a root (tests give a synthetic root).
class LinuxIrqOs : public IrqOs {
public:
  explicit LinuxIrqOs(SysRoot root) : m_root(std::move(root)) {}
  bool exists(unsigned irq) override;
  std::optional<CpuSet> affinity(unsigned irq) override;
  std::optional<CpuSet> effective(unsigned irq) override;
  int writable(unsigned irq) override;
  int set_affinity(unsigned irq, const CpuSet& cpus) override;

private:
  SysRoot m_root;
};

// --- Devices -------------------------------------------------------------

// "0000:02:00.0" (also "02:00.0", given domain 0000) -> the canonical
// address (parse_pci_address, pci.hpp); nullopt where `text` is none.
std::optional<std::string> canonical_pci_address(std::string_view text);

// The PCI function a device name belongs to: ROOT/sys/class/{net,block,
// infiniband,drm}/NAME's link followed, the last PCI address on its path
// (last_pci_function, pci.hpp: the walk near:DEVICE takes too), as text
// ("nvme0n1" -> "0000:00:04.0"); nullopt where the name is none of those or
// sits on no PCI function.
std::optional<std::string> pci_function_of(const SysRoot& root, std::string_view name);

// The IRQs of a PCI function: its MSI/MSI-X vectors (sys/bus/pci/devices/
// BDF/msi_irqs), else its legacy line (its `irq` file, where not 0).
std::vector<unsigned> pci_function_irqs(const SysRoot& root, const std::string& bdf);
// The names of the net, block (no partitions), infiniband and drm devices
// that sit on a PCI function (pci_function_of), and its nvme controllers,
// sorted.
std::vector<std::string> pci_function_names(const SysRoot& root, const std::string& bdf);
// Every PCI function's IRQs: irq -> BDF (the first function in address
// order where a legacy line is shared).
std::vector<std::pair<unsigned, std::string>> irq_functions(const SysRoot& root);

// Whether a process named irqbalance runs (its comm), from ROOT/proc.
bool irqbalance_running(const SysRoot& root);

}  // namespace affix
