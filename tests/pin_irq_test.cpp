// pin --irq on a fake: all or nothing (a managed IRQ in the middle puts
// back the ones before it), --spread's order, --dry-run and --check
// (affix(1), INTERRUPTS). No test writes this machine's /proc/irq.
#include <catch2/catch.hpp>

#include <cerrno>

#include "error.hpp"
#include "fake_irq_os.hpp"
#include "pin_irq.hpp"

using namespace affix;
using affix::test::FakeIrqOs;

namespace {

CpuSet cpus(const char* list) { return *parse_cpulist(list).value; }

struct Failure {
  std::string what, hint;
  ErrorKind kind = ErrorKind::Usage;
};

Failure failure_of(FakeIrqOs& os, const std::vector<IrqTarget>& targets, const std::vector<CpuSet>& wants) {
  try {
    pin_irqs(os, targets, wants, false);
  } catch (const Error& e) {
    return {e.what(), e.hint(), e.kind()};
  }
  return {"no error", "", ErrorKind::Usage};
}

std::vector<IrqTarget> nvme_queues() { return {{40, "nvme0q0"}, {41, "nvme0q1"}, {42, "nvme0q2"}, {43, "nvme0q3"}}; }

FakeIrqOs four_irqs() {
  FakeIrqOs os;
  for (unsigned irq : {40u, 41u, 42u, 43u}) {
    os.affinity_of[irq] = cpus("0-3");
    os.effective_of[irq] = cpus("3");
  }
  return os;
}

}  // namespace

TEST_CASE("irq_wants: the whole list, or one CPU each in order, N per CPU", "[irq]") {
  auto wants = irq_wants(5, cpus("4-7"), {}, 0);
  REQUIRE(wants.size() == 5);
  for (const auto& w : wants) CHECK(format_cpulist(w) == "4-7");
  std::vector<std::string> one;
  for (const auto& w : irq_wants(5, cpus("0-3"), {2, 3, 0, 1}, 1)) one.push_back(format_cpulist(w));
  CHECK(one == std::vector<std::string>{"2", "3", "0", "1", "2"});
  std::vector<std::string> two;
  for (const auto& w : irq_wants(5, cpus("0-3"), {0, 1, 2, 3}, 2)) two.push_back(format_cpulist(w));
  CHECK(two == std::vector<std::string>{"0", "0", "1", "1", "2"});
}

TEST_CASE("pin --irq: every IRQ moved, the effective list read back", "[irq]") {
  FakeIrqOs os = four_irqs();
  auto targets = nvme_queues();
  auto result = pin_irqs(os, targets, irq_wants(4, cpus("0-1"), {}, 0), false);
  CHECK(os.writes.size() == 4);
  for (unsigned irq : {40u, 41u, 42u, 43u}) CHECK(format_cpulist(os.affinity_of[irq]) == "0-1");
  CHECK(result.warnings.empty());
  CHECK(format_irq_pin(result, cpus("0-1"), false, false, false) == "4 IRQs on CPUs 0-1 (4 moved)\n");
  CHECK(format_irq_pin(result, cpus("0-1"), false, true, false) ==
        "4 IRQs on CPUs 0-1 (4 moved)\n"
        "  IRQ 40 (nvme0q0): 0-3 -> 0-1, effective 0\n"
        "  IRQ 41 (nvme0q1): 0-3 -> 0-1, effective 0\n"
        "  IRQ 42 (nvme0q2): 0-3 -> 0-1, effective 0\n"
        "  IRQ 43 (nvme0q3): 0-3 -> 0-1, effective 0\n");
}

TEST_CASE("pin --irq --spread: queue k on the k-th CPU", "[irq]") {
  FakeIrqOs os = four_irqs();
  auto result = pin_irqs(os, nvme_queues(), irq_wants(4, cpus("4-5"), {4, 5}, 1), false);
  CHECK(format_irq_pin(result, cpus("4-5"), true, true, false) ==
        "4 IRQs one CPU each from CPUs 4-5 (4 moved)\n"
        "  IRQ 40 (nvme0q0): 0-3 -> 4, effective 4\n"
        "  IRQ 41 (nvme0q1): 0-3 -> 5, effective 5\n"
        "  IRQ 42 (nvme0q2): 0-3 -> 4, effective 4\n"
        "  IRQ 43 (nvme0q3): 0-3 -> 5, effective 5\n");
}

TEST_CASE("pin --irq: a managed IRQ in the middle puts back the ones before it", "[irq]") {
  FakeIrqOs os = four_irqs();
  os.refuse[42] = EIO;
  Failure f = failure_of(os, nvme_queues(), irq_wants(4, cpus("0-1"), {}, 0));
  CHECK(f.kind == ErrorKind::Runtime);
  CHECK(f.what == "IRQ 42 (nvme0q2) is managed by the kernel: its affinity cannot be changed; the 2 IRQs already "
                  "moved were put back");
  CHECK(f.hint == "the kernel spreads a managed IRQ (an NVMe queue) over the CPUs itself; move the threads that use "
                  "the device instead");
  std::vector<std::pair<unsigned, std::string>> writes;
  for (const auto& [irq, set] : os.writes) writes.emplace_back(irq, format_cpulist(set));
  CHECK(writes == std::vector<std::pair<unsigned, std::string>>{{40, "0-1"}, {41, "0-1"}, {42, "0-1"}, {41, "0-3"}, {40, "0-3"}});
  for (unsigned irq : {40u, 41u, 42u, 43u}) CHECK(format_cpulist(os.affinity_of[irq]) == "0-3");
}

TEST_CASE("pin --irq: the first IRQ refused moves nothing; EINVAL names the CPUs", "[irq]") {
  FakeIrqOs os = four_irqs();
  os.refuse[40] = EINVAL;
  Failure f = failure_of(os, nvme_queues(), irq_wants(4, cpus("2"), {}, 0));
  CHECK(f.what == "IRQ 40 (nvme0q0): the kernel refused CPUs 2: Invalid argument; nothing was moved");
  CHECK(f.hint == "an interrupt controller may route an IRQ to some CPUs only; 'affix show --irq' shows where it may "
                  "go now");
  CHECK(os.writes.size() == 1);
}

TEST_CASE("pin --irq: an IRQ that cannot be put back is named", "[irq]") {
  FakeIrqOs os = four_irqs();
  os.refuse[42] = EIO;
  os.refuse_put_back[40] = EBUSY;
  Failure f = failure_of(os, nvme_queues(), irq_wants(4, cpus("0-1"), {}, 0));
  CHECK(f.what == "IRQ 42 (nvme0q2) is managed by the kernel: its affinity cannot be changed; not every IRQ already "
                  "moved was put back");
  CHECK(f.hint == "IRQ 40 (nvme0q0) stays on 0-1 (Device or resource busy)");
  CHECK(format_cpulist(os.affinity_of[41]) == "0-3");
}

TEST_CASE("pin --irq: without write access nothing is written", "[irq]") {
  FakeIrqOs os = four_irqs();
  os.not_writable = EACCES;
  Failure f = failure_of(os, nvme_queues(), irq_wants(4, cpus("0-1"), {}, 0));
  CHECK(f.what == "IRQ 40 (nvme0q0): cannot write /proc/irq/40/smp_affinity_list: Permission denied; nothing was "
                  "moved");
  CHECK(f.hint == "moving interrupts needs root (affix(1), PERMISSIONS)");
  CHECK(os.writes.empty());
}

TEST_CASE("pin --irq: an IRQ whose list cannot be read fails before any write", "[irq]") {
  FakeIrqOs os = four_irqs();
  os.affinity_of.erase(43);
  Failure f = failure_of(os, nvme_queues(), irq_wants(4, cpus("0-1"), {}, 0));
  CHECK(f.what == "IRQ 43 (nvme0q3): cannot read /proc/irq/43/smp_affinity_list");
  CHECK(os.writes.empty());
}

TEST_CASE("pin --irq: still delivered outside its new list after the write is a warning", "[irq]") {
  FakeIrqOs os = four_irqs();
  os.deliver_first = false;
  auto result = pin_irqs(os, {{40, "eth0-TxRx-0"}}, {cpus("0-1")}, false);
  CHECK(result.warnings == std::vector<std::string>{
                               "IRQ 40 (eth0-TxRx-0): the kernel still delivers it on CPU 3, outside 0-1; it moves "
                               "with its next interrupt"});
}

TEST_CASE("pin --irq --dry-run: each IRQ's list and the one it would get, nothing written", "[irq]") {
  FakeIrqOs os = four_irqs();
  os.affinity_of[41] = cpus("0-1");
  os.effective_of.erase(41);
  os.affinity_of[44] = cpus("0-3");
  auto result = pin_irqs(os, {{40, "a"}, {41, "b"}, {44, ""}}, {cpus("0-1"), cpus("0-1"), cpus("0-1")}, true);
  CHECK(os.writes.empty());
  CHECK(format_irq_pin(result, cpus("0-1"), false, false, true) ==
        "3 IRQs on CPUs 0-1 (2 would move)\n"
        "  IRQ 40 (a): 0-3 -> 0-1, effective 3\n"
        "  IRQ 41 (b): 0-1 -> 0-1\n"
        "  IRQ 44: 0-3 -> 0-1\n");
}

TEST_CASE("pin --irq --check: every IRQ's list and effective list within WHERE", "[irq]") {
  FakeIrqOs os;
  os.affinity_of[130] = cpus("0-7");
  os.effective_of[130] = cpus("6");
  os.affinity_of[131] = cpus("0-3");
  os.effective_of[131] = cpus("2");
  os.affinity_of[132] = cpus("1");
  std::vector<IrqTarget> targets{{130, "eth0-TxRx-0"}, {131, "eth0-TxRx-1"}, {132, "eth0-TxRx-2"}};
  auto report = check_irqs(os, targets, irq_wants(3, cpus("0-3"), {}, 0));
  CHECK(!report.ok);
  CHECK(format_irq_check(report, cpus("0-3"), false, false) ==
        "3 IRQs, 1 not within CPUs 0-3\n"
        "  IRQ 130 (eth0-TxRx-0): cpus 0-7, effective 6, not within 0-3\n");
  CHECK(format_irq_check(report, cpus("0-3"), false, true) ==
        "3 IRQs, 1 not within CPUs 0-3\n"
        "  IRQ 130 (eth0-TxRx-0): cpus 0-7, effective 6, not within 0-3\n"
        "  IRQ 131 (eth0-TxRx-1): cpus 0-3, effective 2, within 0-3\n"
        "  IRQ 132 (eth0-TxRx-2): cpus 1, within 0-3\n");
  CHECK(irq_check_json(report) ==
        "{\"ok\": false, \"irqs\": [{\"irq\": 130, \"name\": \"eth0-TxRx-0\", \"cpus\": \"0-7\", \"effective\": \"6\", "
        "\"want\": \"0-3\", \"ok\": false}, {\"irq\": 131, \"name\": \"eth0-TxRx-1\", \"cpus\": \"0-3\", \"effective\": \"2\", "
        "\"want\": \"0-3\", \"ok\": true}, {\"irq\": 132, \"name\": \"eth0-TxRx-2\", \"cpus\": \"1\", \"effective\": null, "
        "\"want\": \"0-3\", \"ok\": true}]}\n");
  CHECK(os.writes.empty());
  // Only the effective list outside: still outside.
  os.affinity_of[130] = cpus("0-3");
  CHECK(!check_irqs(os, targets, irq_wants(3, cpus("0-3"), {}, 0)).ok);
  os.effective_of[130] = cpus("1");
  auto ok = check_irqs(os, targets, irq_wants(3, cpus("0-3"), {}, 0));
  CHECK(ok.ok);
  CHECK(format_irq_check(ok, cpus("0-3"), false, false) == "3 IRQs within CPUs 0-3\n");
  // --spread: each on its own CPU.
  auto spread = check_irqs(os, targets, irq_wants(3, cpus("0-3"), {0, 1, 2, 3}, 1));
  CHECK(format_irq_check(spread, cpus("0-3"), true, false) ==
        "3 IRQs, 3 not within the CPU --spread gives each, of CPUs 0-3\n"
        "  IRQ 130 (eth0-TxRx-0): cpus 0-3, effective 1, not within 0\n"
        "  IRQ 131 (eth0-TxRx-1): cpus 0-3, effective 2, not within 1\n"
        "  IRQ 132 (eth0-TxRx-2): cpus 1, not within 2\n");
}
