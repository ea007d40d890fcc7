#pragma once
// A recording IrqOs: each IRQ's lists in plain maps, every write recorded,
// and IRQs that refuse a write with an errno (EIO: managed). No test moves
// this machine's interrupts.

#include <cerrno>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "irq.hpp"

namespace affix::test {

class FakeIrqOs : public IrqOs {
public:
  std::map<unsigned, CpuSet> affinity_of;
  std::map<unsigned, CpuSet> effective_of;  // absent: no effective list
  std::map<unsigned, int> refuse;           // irq -> errno of its writes
  std::map<unsigned, int> refuse_put_back;  // irq -> errno of its second write
  int not_writable = 0;                     // errno of writable() for every IRQ
  // When set, a write sets the effective list to the first CPU of the new list.
  bool deliver_first = true;
  std::vector<std::pair<unsigned, CpuSet>> writes;  // every write taken or refused, in order

  bool exists(unsigned irq) override { return affinity_of.count(irq) > 0; }
  std::optional<CpuSet> affinity(unsigned irq) override {
    auto it = affinity_of.find(irq);
    if (it == affinity_of.end()) return std::nullopt;
    return it->second;
  }
  std::optional<CpuSet> effective(unsigned irq) override {
    auto it = effective_of.find(irq);
    if (it == effective_of.end()) return std::nullopt;
    return it->second;
  }
  int writable(unsigned) override { return not_writable; }
  int set_affinity(unsigned irq, const CpuSet& cpus) override {
    writes.emplace_back(irq, cpus);
    size_t times = 0;
    for (const auto& w : writes) times += w.first == irq;
    if (auto it = refuse.find(irq); it != refuse.end()) return it->second;
    if (times > 1)
      if (auto it = refuse_put_back.find(irq); it != refuse_put_back.end()) return it->second;
    affinity_of[irq] = cpus;
    if (deliver_first && effective_of.count(irq) && !cpus.empty()) {
      CpuSet one;
      one.set(cpus.first());
      effective_of[irq] = one;
    }
    return 0;
  }
};

}  // namespace affix::test
