#include "irq_args.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

const char* k_list_hint = "'affix show --irq' lists the interrupts and their devices";

bool names_action(std::string_view action, std::string_view name) {
  if (action.compare(0, name.size(), name) != 0) return false;
  if (action.size() == name.size()) return true;
  unsigned char next = static_cast<unsigned char>(action[name.size()]);
  return !std::isalnum(next);
}

bool on_class(const SysRoot& root, const std::string& name) {
  for (const char* cls : {"net", "block", "infiniband", "drm"})
    if (root.exists(fmt::format("sys/class/{}/{}", cls, name))) return true;
  return false;
}

}  // namespace

std::vector<unsigned> irqs_of_words(const SysRoot& root, const InterruptTable& table,
                                    const std::vector<std::string>& words) {
  std::vector<unsigned> out;
  for (const auto& word : words) {
    if (!word.empty() && std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      auto n = parse_decimal(word, k_max_id);
      bool known = n && (std::any_of(table.lines.begin(), table.lines.end(), [&](const auto& l) { return l.irq == *n; }) ||
                         root.exists(fmt::format("proc/irq/{}/smp_affinity_list", *n)));
      if (!known) throw Error(ErrorKind::Usage, fmt::format("IRQ {} does not exist", printable(word)), k_list_hint);
      out.push_back(static_cast<unsigned>(*n));
      continue;
    }
    std::vector<unsigned> found;
    std::optional<std::string> bdf = canonical_pci_address(word);
    if (bdf) {
      if (!root.exists("sys/bus/pci/devices/" + *bdf))
        throw Error(ErrorKind::Usage, fmt::format("no PCI function {}", printable(*bdf)),
                    "'lspci -D' lists the PCI functions with their addresses");
    } else {
      bdf = pci_function_of(root, word);
    }
    if (bdf) found = pci_function_irqs(root, *bdf);
    if (found.empty() && !canonical_pci_address(word))
      for (const auto& l : table.lines)
        if (std::any_of(l.actions.begin(), l.actions.end(), [&](const auto& a) { return names_action(a, word); }))
          found.push_back(l.irq);
    if (found.empty()) {
      if (bdf || on_class(root, word))
        throw Error(ErrorKind::Usage, fmt::format("{} has no interrupts", printable(word)),
                    "a device without a driver, or one its driver polls, has none; 'affix show --irq' lists "
                    "the interrupts and their devices");
      throw Error(ErrorKind::Usage, fmt::format("no IRQ or device named '{}'", printable(word)),
                  "give an IRQ number, a device name (eth0, nvme0n1) or a PCI address (0000:02:00.0); 'affix show "
                  "--irq' lists the interrupts and their devices");
    }
    out.insert(out.end(), found.begin(), found.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace affix
