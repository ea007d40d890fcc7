// Interrupts read: /proc/interrupts of several shapes, the PCI function of a
// device name, the IRQs the words of show/pin --irq name, and show --irq's
// text and JSON on a synthetic root (affix(1), INTERRUPTS).
#include <catch2/catch.hpp>

#include "error.hpp"
#include "fake_irq_os.hpp"
#include "irq.hpp"
#include "irq_args.hpp"
#include "irq_view.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::TempRoot;

namespace {

using Strings = std::vector<std::string>;
using Counts = std::vector<unsigned long long>;

// A machine with a NIC (MSI-X 130-131), an NVMe drive (MSI-X 40-41, managed)
// and an SMBus controller on legacy line 16.
void build_machine(const TempRoot& root) {
  root.write("proc/interrupts",
             "           CPU0       CPU1       CPU2       CPU3       \n"
             "  16:          0         29          0          0  IR-IO-APIC   16-fasteoi   i801_smbus\n"
             "  40:         10          0          0          0  IR-PCI-MSIX-0000:00:04.0    0-edge      nvme0q0\n"
             "  41:          0       5000          0          0  IR-PCI-MSIX-0000:00:04.0    1-edge      nvme0q1\n"
             " 130:     120000          0          0      98122  IR-PCI-MSIX-0000:02:00.0    0-edge      eth0-TxRx-0\n"
             " 131:          0          0          0          0  IR-PCI-MSIX-0000:02:00.0    1-edge      eth0-TxRx-1\n"
             "   7:          0          0          0          0  IR-IO-APIC    7-fasteoi\n"
             " LOC:          1          2          3          4   Local timer interrupts\n");
  auto lists = [&](unsigned irq, const char* cpus, const char* effective) {
    root.write("proc/irq/" + std::to_string(irq) + "/smp_affinity_list", std::string(cpus) + "\n");
    if (effective) root.write("proc/irq/" + std::to_string(irq) + "/effective_affinity_list", std::string(effective) + "\n");
  };
  lists(16, "0-3", "1");
  lists(40, "0", "0");
  lists(41, "1", "1");
  lists(130, "0-3", "0");
  lists(131, "0-3", nullptr);
  lists(7, "0-3", "0");
  root.write("sys/kernel/debug/irq/irqs/16", "handler:  handle_fasteoi_irq\ndstate:   0x00400000\n            IRQD_AFFINITY_SET\n");
  root.write("sys/kernel/debug/irq/irqs/40", "handler:  handle_edge_irq\ndstate:   0x02600200\n            IRQD_AFFINITY_MANAGED\n");
  root.write("sys/kernel/debug/irq/irqs/41", "handler:  handle_edge_irq\ndstate:   0x02600200\n            IRQD_AFFINITY_MANAGED\n");
  root.write("sys/kernel/debug/irq/irqs/130", "handler:  handle_edge_irq\ndstate:   0x00400000\n            IRQD_AFFINITY_SET\n");
  const std::string nic = "sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0";
  root.write(nic + "/msi_irqs/130", "msix\n");
  root.write(nic + "/msi_irqs/131", "msix\n");
  root.write(nic + "/irq", "0\n");
  root.mkdir(nic + "/net/eth0");
  root.symlink("../../devices/pci0000:00/0000:00:02.0/0000:02:00.0/net/eth0", "sys/class/net/eth0");
  root.symlink("../../../devices/pci0000:00/0000:00:02.0/0000:02:00.0", "sys/bus/pci/devices/0000:02:00.0");
  const std::string nvme = "sys/devices/pci0000:00/0000:00:04.0";
  root.write(nvme + "/msi_irqs/40", "msix\n");
  root.write(nvme + "/msi_irqs/41", "msix\n");
  root.mkdir(nvme + "/nvme/nvme0/nvme0n1");
  root.mkdir(nvme + "/nvme/nvme0/power");
  root.symlink("../../devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1", "sys/class/block/nvme0n1");
  root.symlink("../../../devices/pci0000:00/0000:00:04.0", "sys/bus/pci/devices/0000:00:04.0");
  const std::string smbus = "sys/devices/pci0000:00/0000:00:1f.3";
  root.write(smbus + "/irq", "16\n");
  root.symlink("../../../devices/pci0000:00/0000:00:1f.3", "sys/bus/pci/devices/0000:00:1f.3");
  // A NIC without a driver: no MSI vectors, no legacy line.
  const std::string bare = "sys/devices/pci0000:00/0000:00:05.0";
  root.write(bare + "/irq", "0\n");
  root.mkdir(bare + "/net/eth9");
  root.symlink("../../devices/pci0000:00/0000:00:05.0/net/eth9", "sys/class/net/eth9");
  root.symlink("../../../devices/pci0000:00/0000:00:05.0", "sys/bus/pci/devices/0000:00:05.0");
  root.mkdir("sys/devices/virtual/net/lo");
  root.symlink("../../devices/virtual/net/lo", "sys/class/net/lo");
}

std::string usage_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    return std::string(e.what()) + " | " + e.hint();
  }
  return "no error";
}

}  // namespace

TEST_CASE("parse_interrupts: x86 with IR-PCI-MSIX names, shared lines, NMI and LOC left out", "[irq]") {
  InterruptTable t = parse_interrupts(
      "            CPU0       CPU1       CPU2       CPU3       \n"
      "   0:         44          0          0          0   IO-APIC   2-edge      timer\n"
      "  16:          0         29          0          0  IR-IO-APIC   16-fasteoi   ehci_hcd:usb1, i801_smbus\n"
      " 130:     120000          0          0      98122  IR-PCI-MSIX-0000:02:00.0    3-edge      eth0-TxRx-3\n"
      "   7:          0          0          0          0  IR-IO-APIC    7-fasteoi\n"
      " NMI:          0          0          0          0   Non-maskable interrupts\n"
      " LOC:    1234567    2345678    3456789    4567890   Local timer interrupts\n"
      " ERR:          0\n"
      " MIS:          0\n");
  CHECK(t.cpus == std::vector<unsigned>{0, 1, 2, 3});
  REQUIRE(t.lines.size() == 4);
  CHECK(t.lines[0].irq == 0);
  CHECK(t.lines[0].name == "IO-APIC 2-edge timer");
  CHECK(t.lines[0].actions == Strings{"timer"});
  CHECK(t.lines[1].actions == Strings{"ehci_hcd:usb1", "i801_smbus"});
  CHECK(t.lines[2].irq == 130);
  CHECK(t.lines[2].name == "IR-PCI-MSIX-0000:02:00.0 3-edge eth0-TxRx-3");
  CHECK(t.lines[2].counts == Counts{120000, 0, 0, 98122});
  CHECK(t.lines[2].actions == Strings{"eth0-TxRx-3"});
  CHECK(t.lines[3].irq == 7);
  CHECK(t.lines[3].name == "IR-IO-APIC 7-fasteoi");
  CHECK(t.lines[3].actions.empty());
}

TEST_CASE("parse_interrupts: arm64 GICv3 and ITS lines, IPIs left out", "[irq]") {
  InterruptTable t = parse_interrupts(
      "           CPU0       CPU1       \n"
      " 11:      12345      23456     GICv3  27 Level     arch_timer\n"
      " 12:          0          0     GICv3  30 Level     kvm guest ptimer\n"
      " 45:         10          3   ITS-MSI 524288 Edge      nvme0q0\n"
      "IPI0:       500        600       Rescheduling interrupts\n"
      "Err:          0\n");
  REQUIRE(t.lines.size() == 3);
  CHECK(t.lines[0].name == "GICv3 27 Level arch_timer");
  CHECK(t.lines[0].counts == Counts{12345, 23456});
  CHECK(t.lines[0].actions == Strings{"arch_timer"});
  CHECK(t.lines[1].actions == Strings{"kvm guest ptimer"});
  CHECK(t.lines[2].irq == 45);
  CHECK(t.lines[2].counts == Counts{10, 3});
  CHECK(t.lines[2].name == "ITS-MSI 524288 Edge nvme0q0");
  CHECK(t.lines[2].actions == Strings{"nvme0q0"});
}

TEST_CASE("parse_interrupts: CPU columns of a machine with CPUs offline, short lines", "[irq]") {
  InterruptTable t = parse_interrupts(
      "           CPU0       CPU2       CPU5\n"
      "  24:          5          6          7   IO-APIC   5-edge      ACPI:Ged\n"
      "  25:          9   XT-PIC  cascade\n");
  CHECK(t.cpus == std::vector<unsigned>{0, 2, 5});
  REQUIRE(t.lines.size() == 2);
  CHECK(t.lines[0].counts == Counts{5, 6, 7});
  CHECK(t.lines[0].actions == Strings{"ACPI:Ged"});
  CHECK(t.lines[1].counts == Counts{9, 0, 0});
  CHECK(t.lines[1].name == "XT-PIC cascade");
  CHECK(t.lines[1].actions == Strings{"cascade"});
  CHECK(parse_interrupts("garbage\n 1: 2 3\n").cpus.empty());
  CHECK(parse_interrupts("garbage\n 1: 2 3\n").lines.empty());
}

TEST_CASE("read_interrupts: a missing file or one without CPU columns names the file", "[irq]") {
  TempRoot root;
  SysRoot sys(root.path());
  CHECK_THROWS_WITH(read_interrupts(sys), root.path() + "/proc/interrupts: cannot read");
  root.write("proc/interrupts", "hello\n");
  CHECK_THROWS_WITH(read_interrupts(sys), root.path() + "/proc/interrupts: the first line names no CPU column");
}

TEST_CASE("PCI addresses, the PCI function of a device name, its IRQs and names", "[irq]") {
  TempRoot root;
  build_machine(root);
  SysRoot sys(root.path());
  CHECK(canonical_pci_address("0000:02:00.0") == "0000:02:00.0");
  CHECK(canonical_pci_address("02:00.0") == "0000:02:00.0");
  CHECK(canonical_pci_address("0000:3B:00.1") == "0000:3b:00.1");
  CHECK(canonical_pci_address("10000:01:00.0") == "10000:01:00.0");
  CHECK(!canonical_pci_address("0000:02:00.8"));
  CHECK(!canonical_pci_address("eth0"));
  CHECK(!canonical_pci_address("02:00"));
  CHECK(pci_function_of(sys, "eth0") == "0000:02:00.0");
  CHECK(pci_function_of(sys, "nvme0n1") == "0000:00:04.0");
  CHECK(!pci_function_of(sys, "lo"));
  CHECK(!pci_function_of(sys, "eth7"));
  CHECK(!pci_function_of(sys, "../net/eth0"));
  CHECK(pci_function_irqs(sys, "0000:02:00.0") == std::vector<unsigned>{130, 131});
  CHECK(pci_function_irqs(sys, "0000:00:1f.3") == std::vector<unsigned>{16});
  CHECK(pci_function_irqs(sys, "0000:00:05.0").empty());
  CHECK(pci_function_names(sys, "0000:00:04.0") == Strings{"nvme0", "nvme0n1"});
  CHECK(pci_function_names(sys, "0000:02:00.0") == Strings{"eth0"});
  // A virtio NIC: its net device sits below the virtio device on the
  // function; a partition is no device of its own.
  root.mkdir("sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth1");
  root.symlink("../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth1", "sys/class/net/eth1");
  root.symlink("../../../devices/pci0000:00/0000:00:03.0", "sys/bus/pci/devices/0000:00:03.0");
  root.write("sys/devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p1/partition", "1\n");
  root.symlink("../../devices/pci0000:00/0000:00:04.0/nvme/nvme0/nvme0n1/nvme0n1p1", "sys/class/block/nvme0n1p1");
  CHECK(pci_function_of(sys, "eth1") == "0000:00:03.0");
  CHECK(pci_function_names(sys, "0000:00:03.0") == Strings{"eth1"});
  CHECK(pci_function_names(sys, "0000:00:04.0") == Strings{"nvme0", "nvme0n1"});
  CHECK(irq_managed(sys, 40) == std::optional<bool>(true));
  CHECK(irq_managed(sys, 130) == std::optional<bool>(false));
  CHECK(irq_managed(sys, 131) == std::nullopt);
}

TEST_CASE("irqs_of_words: numbers, names, PCI addresses, actions; bad words are usage errors", "[irq]") {
  TempRoot root;
  build_machine(root);
  SysRoot sys(root.path());
  InterruptTable table = read_interrupts(sys);
  using V = std::vector<unsigned>;
  CHECK(irqs_of_words(sys, table, {"eth0"}) == V{130, 131});
  CHECK(irqs_of_words(sys, table, {"02:00.0"}) == V{130, 131});
  CHECK(irqs_of_words(sys, table, {"nvme0n1", "131", "eth0"}) == V{40, 41, 130, 131});
  CHECK(irqs_of_words(sys, table, {"i801_smbus"}) == V{16});
  CHECK(irqs_of_words(sys, table, {"nvme0q1"}) == V{41});
  CHECK(irqs_of_words(sys, table, {"7"}) == V{7});
  const std::string list = "'affix show --irq' lists the interrupts and their devices";
  CHECK(usage_error_of([&] { irqs_of_words(sys, table, {"999"}); }) == "IRQ 999 does not exist | " + list);
  CHECK(usage_error_of([&] { irqs_of_words(sys, table, {"eth0", "nvme9"}); }) ==
        "no IRQ or device named 'nvme9' | give an IRQ number, a device name (eth0, nvme0n1) or a PCI address "
        "(0000:02:00.0); " + list);
  CHECK(usage_error_of([&] { irqs_of_words(sys, table, {"eth9"}); }) ==
        "eth9 has no interrupts | a device without a driver, or one its driver polls, has none; " + list);
  CHECK(usage_error_of([&] { irqs_of_words(sys, table, {"0000:00:05.0"}); }) ==
        "0000:00:05.0 has no interrupts | a device without a driver, or one its driver polls, has none; " + list);
  CHECK(usage_error_of([&] { irqs_of_words(sys, table, {"0000:09:00.0"}); }) ==
        "no PCI function 0000:09:00.0 | 'lspci -D' lists the PCI functions with their addresses");
  CHECK(irq_actions(table, 130) == "eth0-TxRx-0");
  CHECK(irq_actions(table, 7) == "");
}

TEST_CASE("show --irq: the text table and the JSON of a synthetic root", "[irq]") {
  TempRoot root;
  build_machine(root);
  SysRoot sys(root.path());
  InterruptTable table = read_interrupts(sys);
  LinuxIrqOs os(sys);
  auto views = read_irq_views(sys, os, table, std::nullopt);
  CHECK(format_irq_text(views) ==
        "IRQ  CPUS  EFFECTIVE  MANAGED  DEVICE                      NAME                                         COUNTS\n"
        "16   0-3   1          no       0000:00:1f.3                IR-IO-APIC 16-fasteoi i801_smbus             1:29\n"
        "40   0     0          yes      0000:00:04.0 nvme0,nvme0n1  IR-PCI-MSIX-0000:00:04.0 0-edge nvme0q0      0:10\n"
        "41   1     1          yes      0000:00:04.0 nvme0,nvme0n1  IR-PCI-MSIX-0000:00:04.0 1-edge nvme0q1      1:5000\n"
        "130  0-3   0          no       0000:02:00.0 eth0           IR-PCI-MSIX-0000:02:00.0 0-edge eth0-TxRx-0  0:120000 3:98122\n"
        "131  0-3   -          unknown  0000:02:00.0 eth0           IR-PCI-MSIX-0000:02:00.0 1-edge eth0-TxRx-1  none\n");
  auto eth = read_irq_views(sys, os, table, irqs_of_words(sys, table, {"eth0"}));
  CHECK(format_irq_json(eth) ==
        "[{\"irq\": 130, \"name\": \"IR-PCI-MSIX-0000:02:00.0 0-edge eth0-TxRx-0\", \"actions\": \"eth0-TxRx-0\", "
        "\"device\": {\"pci\": \"0000:02:00.0\", \"names\": [\"eth0\"]}, \"cpus\": \"0-3\", \"effective\": \"0\", "
        "\"counts\": {\"0\": 120000, \"1\": 0, \"2\": 0, \"3\": 98122}, \"managed\": false}, "
        "{\"irq\": 131, \"name\": \"IR-PCI-MSIX-0000:02:00.0 1-edge eth0-TxRx-1\", \"actions\": \"eth0-TxRx-1\", "
        "\"device\": {\"pci\": \"0000:02:00.0\", \"names\": [\"eth0\"]}, \"cpus\": \"0-3\", \"effective\": null, "
        "\"counts\": {\"0\": 0, \"1\": 0, \"2\": 0, \"3\": 0}, \"managed\": null}]\n");
  // An IRQ no PCI function claims, named by number: no device.
  auto seven = read_irq_views(sys, os, table, std::vector<unsigned>{7});
  CHECK(format_irq_json(seven) ==
        "[{\"irq\": 7, \"name\": \"IR-IO-APIC 7-fasteoi\", \"actions\": \"\", \"device\": null, \"cpus\": \"0-3\", "
        "\"effective\": \"0\", \"counts\": {\"0\": 0, \"1\": 0, \"2\": 0, \"3\": 0}, \"managed\": null}]\n");
}

TEST_CASE("show --irq: a name with control bytes is escaped in the text", "[irq]") {
  TempRoot root;
  root.write("proc/interrupts", "  CPU0\n  50:  3  PCI-MSI-0000:00:06.0  0-edge  ev\x1b[1mil\n");
  root.write("proc/irq/50/smp_affinity_list", "0\n");
  SysRoot sys(root.path());
  LinuxIrqOs os(sys);
  auto views = read_irq_views(sys, os, read_interrupts(sys), std::nullopt);
  CHECK(format_irq_text(views) ==
        "IRQ  CPUS  EFFECTIVE  MANAGED  DEVICE  NAME                                   COUNTS\n"
        "50   0     -          unknown  -       PCI-MSI-0000:00:06.0 0-edge ev\\e[1mil  0:3\n");
}
