#include "irq_view.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "diag.hpp"
#include "json.hpp"
#include "text.hpp"

namespace affix {

namespace {

std::string joined(const std::vector<std::string>& words, std::string_view sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : std::string(sep)) + w;
  return out;
}

std::string device_text(const IrqView& v) {
  if (!v.pci) return "-";
  return v.names.empty() ? *v.pci : *v.pci + " " + joined(v.names, ",");
}

std::string counts_text(const IrqView& v) {
  std::string out;
  for (const auto& [cpu, n] : v.counts)
    if (n > 0) out += fmt::format("{}{}:{}", out.empty() ? "" : " ", cpu, n);
  return out.empty() ? "none" : out;
}

std::string managed_text(const std::optional<bool>& m) { return !m ? "unknown" : *m ? "yes" : "no"; }

}  // namespace

std::vector<IrqView> read_irq_views(const SysRoot& root, IrqOs& os, const InterruptTable& table,
                                    const std::optional<std::vector<unsigned>>& only) {
  std::map<unsigned, std::string> pci_of;
  for (auto& [irq, bdf] : irq_functions(root)) pci_of.emplace(irq, bdf);
  std::map<std::string, std::vector<std::string>> names_of;
  std::map<unsigned, const InterruptLine*> line_of;
  for (const auto& l : table.lines) line_of.emplace(l.irq, &l);
  std::vector<unsigned> irqs;
  if (only) irqs = *only;
  else  // every IRQ a driver requested: those with an action
    for (const auto& l : table.lines)
      if (!l.actions.empty()) irqs.push_back(l.irq);

  std::vector<IrqView> out;
  for (unsigned irq : irqs) {
    IrqView v;
    v.irq = irq;
    if (auto it = line_of.find(irq); it != line_of.end()) {
      v.name = it->second->name;
      v.actions = joined(it->second->actions, ",");
      for (size_t c = 0; c < table.cpus.size(); ++c) v.counts.emplace_back(table.cpus[c], it->second->counts[c]);
      std::sort(v.counts.begin(), v.counts.end());
    }
    if (auto it = pci_of.find(irq); it != pci_of.end()) {
      v.pci = it->second;
      auto n = names_of.find(it->second);
      if (n == names_of.end()) n = names_of.emplace(it->second, pci_function_names(root, it->second)).first;
      v.names = n->second;
    }
    v.cpus = os.affinity(irq);
    if (!v.cpus && os.exists(irq))  // a list the kernel would not give as one: this attribute only
      print_warning(fmt::format("{}: cannot read it as a CPU list; its CPUs are shown as unknown",
                                printable(root.path(fmt::format("proc/irq/{}/smp_affinity_list", irq)))));
    v.effective = os.effective(irq);
    v.managed = irq_managed(root, irq);
    out.push_back(std::move(v));
  }
  return out;
}

std::string format_irq_text(const std::vector<IrqView>& views) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"IRQ", "CPUS", "EFFECTIVE", "MANAGED", "DEVICE", "NAME", "COUNTS"});
  for (const auto& v : views)
    rows.push_back({std::to_string(v.irq), v.cpus ? format_cpulist(*v.cpus) : "unknown",
                    v.effective ? list_or_none(*v.effective) : "-", managed_text(v.managed), printable(device_text(v)),
                    v.name.empty() ? "-" : printable(v.name), counts_text(v)});
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c)
      line += c + 1 == r.size() ? r[c] : fmt::format("{:<{}}  ", r[c], width[c]);
    out += line + "\n";
  }
  return out;
}

std::string format_irq_json(const std::vector<IrqView>& views) {
  JsonWriter j;
  j.begin_array();
  for (const auto& v : views) {
    j.begin_object();
    j.field("irq", v.irq);
    j.field("name", v.name);
    j.field("actions", v.actions);
    j.key("device");
    if (!v.pci) {
      j.null();
    } else {
      j.begin_object();
      j.field("pci", *v.pci);
      j.key("names");
      j.begin_array();
      for (const auto& n : v.names) j.value(n);
      j.end_array();
      j.end_object();
    }
    j.key("cpus");
    if (v.cpus) j.value(format_cpulist(*v.cpus)); else j.null();
    j.key("effective");
    if (v.effective) j.value(format_cpulist(*v.effective)); else j.null();
    j.key("counts");
    j.begin_object();
    for (const auto& [cpu, n] : v.counts) j.field(std::to_string(cpu), n);
    j.end_object();
    j.field("managed", v.managed);
    j.end_object();
  }
  j.end_array();
  return j.str() + "\n";
}

}  // namespace affix
