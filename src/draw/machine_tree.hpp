#pragma once
// The PREPARE pass's first half: the machine as a tree of boxes
// (draw_box.hpp), with the overlay's marks on its CPUs and nodes, and runs
// of identical children collapsed (affix(1), PICTURES, "Collapsing").

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "draw_box.hpp"
#include "topology.hpp"

namespace affix {

// What a command marks on the picture: classes on CPUs and nodes, a note
// each in their <title>, an IRQ count per CPU.
struct Overlay {
  std::map<unsigned, unsigned> cpu_marks;                 // CPU -> Mark bits
  std::map<unsigned, std::vector<std::string>> cpu_notes; // CPU -> "dropped: smt", "ran: 1234 (nginx) thread 1240"
  std::map<unsigned, uint64_t> irq_counts;                // CPU -> interrupts taken (class irq, data-count)
  std::map<unsigned, unsigned> node_marks;                // node -> Mark bits
  std::map<unsigned, std::vector<std::string>> node_notes;
  std::vector<std::string> caption;                       // lines under the picture: what it shows
  void mark_cpu(unsigned cpu, Mark m, const std::string& note = {});
  void mark_node(unsigned node, Mark m, const std::string& note = {});
};

struct Picture {
  Box root;                        // the machine
  std::vector<std::string> caption;  // the overlay's lines
  std::vector<std::string> collapsed;  // one line per collapsed run: "5 x node: nodes 2-6 (CPUs 4-15)"
  unsigned marks = 0;              // every mark used (the legend's entries)
};

// A parent with more than k_collapse_children children and more than
// k_collapse_cpus CPUs collapses: its first two children, its last, and the
// first of each shape not among them are drawn; each run of the others
// becomes one box "N x KIND".
constexpr size_t k_collapse_children = 4;
constexpr unsigned k_collapse_cpus = 16;

// The tree of `topo` (its devices, GPUs and displays as it holds them)
// with `overlay`'s marks, collapsed. Every possible CPU has its box
// (offline ones under "offline"), every node, package and core.
Picture machine_picture(const Topology& topo, const Overlay& overlay = {});

// One CPU's place, for a reader that has the CPUs' units but no Topology
// (`top`'s frames): -1 where unknown. `package` and `node` name the units
// as the tree labels them.
struct CpuPlace {
  unsigned cpu = 0;
  bool online = true;
  long package = -1, node = -1, die = -1, llc = -1, core = -1;
};

// The same tree (the same nesting and collapse) of a machine known only by
// its CPUs' places: no memory, devices or kinds. `affix top` groups its CPU
// pane by this tree (or by machine_picture(topology) where it has one).
Picture machine_picture(const std::vector<CpuPlace>& places);

}  // namespace affix
