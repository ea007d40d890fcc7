#include "top_output.hpp"

#include <fmt/format.h>

#include "json.hpp"
#include "text.hpp"

namespace affix {

namespace {

constexpr Crossing k_levels[] = {Crossing::Smt, Crossing::Core, Crossing::Llc, Crossing::Node, Crossing::Socket};

double per_s(uint64_t n, double interval) { return interval > 0 ? static_cast<double>(n) / interval : 0.0; }

std::string unit_text(const char* name, long id) { return id < 0 ? fmt::format("{} ?", name) : fmt::format("{} {}", name, id); }

}  // namespace

std::string top_remote_text(const TopProcess& p) {
  if (p.remote_share) return fmt::format("{:.1f}%", *p.remote_share * 100);
  if (p.pages && p.ran_nodes.count() > 1) return "multi";
  return "-";
}

std::string top_json(const TopFrame& f) {
  JsonWriter j;
  j.begin_object();
  j.field("interval", f.interval);
  j.field("source", f.source);
  j.key("cpus");
  j.begin_array();
  for (const TopCpu& c : f.cpus) {
    j.begin_object();
    j.field("cpu", c.cpu);
    j.field("node", c.node);
    j.field("core", c.core);
    j.key("busy");
    if (c.busy) j.value_fixed(*c.busy, 1);
    else j.null();
    j.key("irqs_per_s");
    if (c.irqs_per_s) j.value_fixed(*c.irqs_per_s, 1);
    else j.null();
    j.key("marks");
    j.begin_array();
    for (const auto& m : c.marks) j.value(m);
    j.end_array();
    j.key("threads");
    j.begin_array();
    for (const TopThread& t : c.threads) {
      j.begin_object();
      j.field("pid", static_cast<long>(t.pid));
      j.field("tid", static_cast<long>(t.tid));
      j.field("comm", t.comm);
      j.key("percent");
      j.value_fixed(t.percent, 1);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.key("processes");
  j.begin_array();
  for (const TopProcess& p : f.processes) {
    j.begin_object();
    j.field("pid", static_cast<long>(p.pid));
    j.field("comm", p.comm);
    j.key("percent");
    j.value_fixed(p.percent, 1);
    j.field("threads", p.threads);
    j.key("migrations_per_s");
    j.begin_object();
    for (Crossing c : k_levels) j.field(crossing_name(c), per_s(p.migrations[c], f.interval));
    j.end_object();
    node_counts_field(j, "pages", p.pages);
    j.field("remote_share", p.remote_share);
    j.field("ran_on_nodes", format_cpulist(p.ran_nodes));
    j.field("allowed", format_cpulist(p.allowed));
    j.field("pinned", p.pinned);
    j.end_object();
  }
  j.end_array();
  j.key("warnings");
  j.begin_array();
  for (const auto& w : f.warnings) j.value(w);
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

std::string top_text(const TopFrame& f, size_t rows) {
  std::string out = fmt::format("interval {:.2f} s\n", f.interval);
  out += "  CPU   BUSY   USR   SYS   IRQ  SIRQ   IRQ/S  MARKS                THREADS (PID/TID COMM %)\n";
  long node = -2, socket = -2, llc = -2, core = -2;
  for (const TopCpu& c : f.cpus) {
    if (c.node != node || c.socket != socket) {
      out += unit_text("node", c.node) + ", " + unit_text("socket", c.socket) + "\n";
      llc = core = -2;
    }
    // No LLC line where the machine names none (no cache in /sys): the
    // picture and the screen have no LLC level there either.
    if (c.llc != llc && c.llc >= 0) out += " " + unit_text("llc", c.llc) + "\n";
    node = c.node;
    socket = c.socket;
    llc = c.llc;
    core = c.core;
    std::string marks;
    for (const auto& m : c.marks) marks += (marks.empty() ? "" : ",") + m;
    std::string threads;
    for (size_t i = 0; i < c.threads.size() && i < 3; ++i) {
      const TopThread& t = c.threads[i];
      threads += fmt::format("{}{}/{} {} {:.1f}", i ? "; " : "", t.pid, t.tid, printable(t.comm), t.percent);
    }
    if (c.threads.size() > 3) threads += fmt::format("; +{}", c.threads.size() - 3);
    auto num = [](const std::optional<double>& v, double part, int width) {
      return v ? fmt::format("{:>{}.1f}", part, width) : fmt::format("{:>{}}", "-", width);
    };
    out += fmt::format("  {:>4} {} {} {} {} {} {:>7} {:<20} {}\n", c.cpu,
                       c.busy ? fmt::format("{:>5.1f}%", *c.busy) : std::string("     -"), num(c.busy, c.user, 5),
                       num(c.busy, c.system, 5), num(c.busy, c.irq, 5), num(c.busy, c.softirq, 5),
                       c.irqs_per_s ? fmt::format("{:.0f}", *c.irqs_per_s) : std::string("-"),
                       marks.empty() ? "-" : marks, threads);
  }
  out += "\n    PID  CPU%  THREADS  MIGR/S smt/core/llc/node/socket  REMOTE  PAGES/NODE       ALLOWED      COMM\n";
  size_t n = 0;
  for (const TopProcess& p : f.processes) {
    if (rows && n++ == rows) {
      out += fmt::format("  ... {} more\n", f.processes.size() - rows);
      break;
    }
    std::string migr;
    for (Crossing c : k_levels) migr += fmt::format("{}{:.1f}", migr.empty() ? "" : "/", per_s(p.migrations[c], f.interval));
    std::string pages;
    if (p.pages)
      for (const auto& [n_id, count] : *p.pages) pages += fmt::format("{}{}:{}", pages.empty() ? "" : ",", n_id, count);
    out += fmt::format("  {:>5} {:>5.1f} {:>8}  {:<26} {:>6}  {:<16} {:<12} {}\n", p.pid, p.percent, p.threads, migr,
                       top_remote_text(p),
                       pages.empty() ? "-" : pages,
                       format_cpulist(p.allowed) + (p.pinned ? " pinned" : ""), printable(p.comm));
  }
  for (const auto& w : f.warnings) out += "warning: " + printable(w) + "\n";
  return out;
}

}  // namespace affix
