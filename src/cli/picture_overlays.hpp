#pragma once
// The overlays of the pictures (affix(1), PICTURES, "Overlays"): what
// explain, show, show --shield and show --irq mark on the machine, as
// classes on its CPUs and nodes with a note each for their <title>.

#include <optional>
#include <string>
#include <vector>

#include "irq.hpp"
#include "machine_tree.hpp"
#include "process_view.hpp"
#include "resolver.hpp"
#include "shield_status.hpp"

namespace affix {

// chosen: the placement's CPUs; dropped: the CPUs WHERE named that were
// left out, with why; memory: the nodes its memory goes to (--mem's, else
// the nodes of its CPUs: the kernel's local allocation).
Overlay explain_overlay(const Placement& placement, const std::string& where);

// allowed: each process's CPU list; ran: each thread's last CPU; memory:
// the nodes holding its pages.
Overlay show_overlay(const std::vector<ProcessView>& views);

// shield: each shield's CPUs, with what still runs there (kernel threads,
// IRQs, other tasks) in their titles.
Overlay shield_overlay(const std::vector<ShieldStatus>& shields);

// irq: each CPU's interrupts (summed over `only`'s lines, else every
// numbered line of the table).
void add_irq_counts(Overlay& overlay, const InterruptTable& table, const std::optional<std::vector<unsigned>>& only);

}  // namespace affix
