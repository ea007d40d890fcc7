#pragma once
// What `affix apply` (and its follower) reads above the apply layer: the
// location language's resolver and pin's option parsers, as the
// ApplyWords the engine asks (apply_engine.hpp), and the one call that
// reads a rules file and the machine and makes the engine.

#include <memory>
#include <string>

#include "apply_engine.hpp"
#include "irq.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// The words of rules on the machine under `root` (its topology `topo`,
// read once; near:DEVICE reads the devices it names).
std::unique_ptr<ApplyWords> make_apply_words(const SysRoot& root, const Topology& topo);

// A rules file made into an engine on the machine under `root_dir`: the
// root, its IRQs and the engine, which refers to both (keep them together).
struct LoadedApply {
  SysRoot root;
  LinuxIrqOs irqs;
  std::unique_ptr<ApplyEngine> engine;
  explicit LoadedApply(const std::string& root_dir) : root(root_dir), irqs(root) {}
};

// Reads and parses FILE, reads the machine, checks every word: Error(Usage)
// "FILE:LINE:COL: ..." for any error in the file (nothing is applied),
// Error(Runtime) where FILE cannot be read.
std::unique_ptr<LoadedApply> load_apply_engine(const std::string& file, const std::string& root_dir = "/");

}  // namespace affix
