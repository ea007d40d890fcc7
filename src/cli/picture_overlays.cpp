#include "picture_overlays.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "memory_text.hpp"
#include "text.hpp"

namespace affix {

namespace {

std::string why_dropped(const std::string& reason) {
  if (reason == "offline") return "offline";
  if (reason == "not-allowed") return "not allowed (cgroup cpuset)";
  if (reason == "excluded") return "--exclude";
  if (reason == "smt") return "--no-smt: another thread of its core is kept";
  if (reason == "slice") return "--slice: another part's";
  if (reason == "count") return "--count: past the first N";
  return reason;
}

std::string who(pid_t pid, const std::string& comm) { return fmt::format("{} ({})", pid, comm); }

}  // namespace

Overlay explain_overlay(const Placement& p, const std::string& where) {
  Overlay o;
  p.cpus.for_each([&](unsigned c) { o.mark_cpu(c, Mark::Chosen, "chosen"); });
  for (const Dropped& d : p.dropped) {
    std::string why = why_dropped(d.reason);
    d.cpus.for_each([&](unsigned c) { o.mark_cpu(c, Mark::Dropped, "dropped: " + why); });
  }
  CpuSet mem = p.mem_policy && !p.mem_nodes.empty() ? p.mem_nodes : p.nodes;
  std::string policy = p.mem_policy ? memory_policy_text(p) : "policy unchanged: the kernel allocates on the CPUs' nodes";
  mem.for_each([&](unsigned n) { o.mark_node(n, Mark::Memory, "memory: " + policy); });
  o.caption.push_back(fmt::format("affix explain {}: CPUs {} ({})", where, list_or_none(p.cpus),
                                  plural(p.cpus.count(), "CPU", "CPUs")));
  o.caption.push_back("memory: " + policy);
  for (const Dropped& d : p.dropped)
    o.caption.push_back(fmt::format("dropped {}: {}", format_cpulist(d.cpus), why_dropped(d.reason)));
  return o;
}

Overlay show_overlay(const std::vector<ProcessView>& views) {
  Overlay o;
  for (const ProcessView& v : views) {
    std::string name = who(v.pid, v.comm);
    v.cpus.for_each([&](unsigned c) { o.mark_cpu(c, Mark::Allowed, "allowed: " + name); });
    for (const ThreadView& t : v.threads)
      if (t.last_cpu >= 0)
        o.mark_cpu(static_cast<unsigned>(t.last_cpu), Mark::Ran,
                   fmt::format("ran: {} thread {} ({})", name, t.tid, t.comm));
    if (v.pages)
      for (const auto& [node, pages] : *v.pages)
        if (pages) o.mark_node(node, Mark::Memory, fmt::format("memory: {} has {} pages here", name, pages));
    std::string line = fmt::format("process {}: allowed CPUs {}, last CPUs", name, list_or_none(v.cpus));
    CpuSet ran;
    for (const ThreadView& t : v.threads)
      if (t.last_cpu >= 0) ran.set(static_cast<unsigned>(t.last_cpu));
    line += " " + list_or_none(ran);
    if (v.pages) {
      CpuSet nodes;
      for (const auto& [node, pages] : *v.pages)
        if (pages) nodes.set(node);
      line += ", pages on nodes " + list_or_none(nodes);
    }
    o.caption.push_back(line);
  }
  if (views.empty()) o.caption.push_back("no process shown");
  return o;
}

Overlay shield_overlay(const std::vector<ShieldStatus>& shields) {
  Overlay o;
  for (const ShieldStatus& s : shields) {
    std::string name = s.record.name;
    for (const CpuReport& r : s.cpus) {
      std::string note = fmt::format("shield {}", name);
      std::vector<std::string> still;
      if (!r.kernel.empty()) still.push_back(plural(r.kernel.size(), "kernel thread", "kernel threads"));
      if (!r.irqs.empty()) still.push_back(plural(r.irqs.size(), "IRQ", "IRQs"));
      if (!r.others.empty()) {
        std::string others = plural(r.others.size(), "other task", "other tasks");
        others += " (";
        for (size_t i = 0; i < r.others.size() && i < 3; ++i)
          others += (i ? ", " : "") + who(r.others[i].pid, r.others[i].comm);
        others += r.others.size() > 3 ? ", ...)" : ")";
        still.push_back(others);
      }
      if (!still.empty()) {
        note += "; still runs here: ";
        for (size_t i = 0; i < still.size(); ++i) note += (i ? ", " : "") + still[i];
      }
      o.mark_cpu(r.cpu, Mark::Shield, note);
    }
    s.record.mems.for_each([&](unsigned n) { o.mark_node(n, Mark::Memory, "memory: shield " + name); });
    o.caption.push_back(fmt::format("shield {}: CPUs {}{}", name, list_or_none(s.record.cpus),
                                    s.holds ? "" : " (not held by the kernel)"));
  }
  if (shields.empty()) o.caption.push_back("no shield");
  return o;
}

void add_irq_counts(Overlay& o, const InterruptTable& table, const std::optional<std::vector<unsigned>>& only) {
  std::map<unsigned, uint64_t> counts;
  for (unsigned c : table.cpus) counts[c] = 0;
  unsigned lines = 0;
  for (const InterruptLine& line : table.lines) {
    if (only && std::find(only->begin(), only->end(), line.irq) == only->end()) continue;
    ++lines;
    for (size_t i = 0; i < line.counts.size() && i < table.cpus.size(); ++i) counts[table.cpus[i]] += line.counts[i];
  }
  for (const auto& [cpu, n] : counts) o.irq_counts[cpu] = n;
  o.caption.push_back(fmt::format("irq: interrupts taken per CPU, since boot, of {}", plural(lines, "IRQ", "IRQs")));
}

}  // namespace affix
