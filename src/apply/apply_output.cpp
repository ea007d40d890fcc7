// What affix apply prints (affix(1), APPLY): a block per rule, or one JSON
// document; and the check's lines.
#include <algorithm>

#include <fmt/format.h>

#include "apply_engine.hpp"
#include "json.hpp"
#include "text.hpp"

namespace affix {

namespace {

const char* status_word(ProcessStatus s) {
  switch (s) {
    case ProcessStatus::NoRule: return "no_rule";
    case ProcessStatus::Placed: return "placed";
    case ProcessStatus::Already: return "already";
    case ProcessStatus::WouldPlace: return "would_place";
    case ProcessStatus::Failed: return "failed";
    case ProcessStatus::Gone: return "gone";
  }
  return "?";
}

const char* kind_word(DifferenceKind k) {
  switch (k) {
    case DifferenceKind::Cpus: return "cpus";
    case DifferenceKind::Sched: return "sched";
    case DifferenceKind::Memory: return "memory";
    case DifferenceKind::Irq: return "irq";
    case DifferenceKind::Gone: return "unreadable";
  }
  return "?";
}

std::string indent(const std::string& text, const std::string& by) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out += by + text.substr(start, nl - start) + "\n";
    start = nl + 1;
  }
  return out;
}

std::string rule_name(const RuleSet& rules, size_t i) { return printable(rules.rules[i].name.value); }

// "also matches rule web (the first rule wins)".
std::string also_text(const RuleSet& rules, const std::vector<size_t>& also) {
  std::string names;
  for (size_t k = 0; k < also.size(); ++k)
    names += (k == 0 ? "" : k + 1 == also.size() ? " and " : ", ") + rule_name(rules, also[k]);
  return fmt::format("also matches rule{} {} (the first rule wins)", also.size() == 1 ? "" : "s", names);
}

void names_field(JsonWriter& j, const RuleSet& rules, std::string_view key, const std::vector<size_t>& idx) {
  j.key(key);
  j.begin_array();
  for (size_t i : idx) j.value(rules.rules[i].name.value);
  j.end_array();
}

// "rule web: matched nothing", or where every process it matches went to
// an earlier rule, says so.
template <class Processes>
std::string unmatched_line(const RuleSet& rules, size_t i, const Processes& processes) {
  size_t lost = 0;
  for (const auto& p : processes) lost += std::find(p.also.begin(), p.also.end(), i) != p.also.end();
  if (lost == 0) return fmt::format("rule {}: matched nothing\n", rule_name(rules, i));
  return fmt::format("rule {}: no process of its own ({} it matches went to an earlier rule)\n", rule_name(rules, i),
                     plural(lost, "process", "processes"));
}

}  // namespace

std::string format_apply(const RuleSet& rules, const ApplyReport& report) {
  std::string out;
  for (size_t i = 0; i < rules.rules.size(); ++i) {
    size_t n = 0;
    for (const auto& p : report.processes) n += p.rule == i;
    bool irqs = false;
    for (const auto& q : report.irqs) irqs = irqs || q.rule == i;
    bool unmatched = std::find(report.unmatched.begin(), report.unmatched.end(), i) != report.unmatched.end();
    if (unmatched) {
      out += unmatched_line(rules, i, report.processes);
      continue;
    }
    if (n > 0) out += fmt::format("rule {}: {}\n", rule_name(rules, i), plural(n, "process", "processes"));
    for (const auto& p : report.processes) {
      if (p.rule != i) continue;
      std::string label = fmt::format("{} ({})", p.pid, printable(p.comm));
      if (p.status == ProcessStatus::Failed)
        out += fmt::format("  {}: failed, nothing changed: {}\n", label, p.error);
      else if (p.status == ProcessStatus::Gone)
        out += fmt::format("  {}: exited\n", label);
      else
        out += indent(p.text, "  ");
      if (!p.also.empty()) out += fmt::format("  {} {}\n", label, also_text(rules, p.also));
    }
    if (irqs) out += fmt::format("rule {}: IRQs\n", rule_name(rules, i));
    for (const auto& q : report.irqs) {
      if (q.rule != i) continue;
      const std::string glob = printable(rules.rules[i].irqs[q.glob].glob.value);
      if (q.failed) {
        out += fmt::format("  '{}': failed, every IRQ put back: {}\n", glob, q.error);
        continue;
      }
      out += indent(fmt::format("'{}': {}", glob,
                                format_irq_pin(q.result, q.cpus, false, report.dry_run, report.dry_run)),
                    "  ");
    }
  }
  return out;
}

std::string apply_json(const RuleSet& rules, const ApplyReport& report) {
  JsonWriter j;
  j.begin_object();
  j.field("file", rules.file);
  j.field("dry_run", report.dry_run);
  j.field("ok", !report.failed());
  j.key("rules");
  j.begin_array();
  for (size_t i = 0; i < rules.rules.size(); ++i) {
    j.begin_object();
    j.field("name", rules.rules[i].name.value);
    bool unmatched = std::find(report.unmatched.begin(), report.unmatched.end(), i) != report.unmatched.end();
    j.field("matched", !unmatched);
    j.key("processes");
    j.begin_array();
    for (const auto& p : report.processes) {
      if (p.rule != i) continue;
      j.begin_object();
      j.field("pid", p.pid);
      j.field("comm", p.comm);
      j.field("start_time", p.start_time);
      j.field("status", status_word(p.status));
      j.field("processes", p.processes);
      j.field("threads", p.threads);
      j.field("threads_changed", p.threads_changed);
      names_field(j, rules, "also_matches", p.also);
      j.key("error");
      if (p.status == ProcessStatus::Failed) j.value(p.error);
      else j.null();
      j.end_object();
    }
    j.end_array();
    j.key("irqs");
    j.begin_array();
    for (const auto& q : report.irqs) {
      if (q.rule != i) continue;
      j.begin_object();
      j.field("glob", rules.rules[i].irqs[q.glob].glob.value);
      j.field("cpus", format_cpulist(q.cpus));
      j.field("failed", q.failed);
      j.key("error");
      if (q.failed) j.value(q.error);
      else j.null();
      j.key("irqs");
      j.begin_array();
      for (const auto& mv : q.result.moves) {
        j.begin_object();
        j.field("irq", mv.target.irq);
        j.field("name", mv.target.name);
        j.key("before");
        if (q.failed) j.null();
        else j.value(format_cpulist(mv.before));
        j.field("cpus", format_cpulist(mv.want));
        j.key("effective");
        if (mv.effective) j.value(format_cpulist(*mv.effective));
        else j.null();
        j.field("changed", mv.changed);
        j.end_object();
      }
      j.end_array();
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

std::string format_apply_check(const RuleSet& rules, const ApplyCheckReport& report) {
  std::string out;
  for (const auto& d : report.differences) out += d.text + "\n";
  for (const auto& p : report.processes)
    if (!p.also.empty())
      out += fmt::format("{}: {} ({}) {}\n", rule_name(rules, p.rule), p.pid, printable(p.comm), also_text(rules, p.also));
  for (size_t i : report.unmatched) out += unmatched_line(rules, i, report.processes);
  std::string what = plural(report.processes.size(), "process", "processes");
  if (report.irqs_checked > 0) what += ", " + plural(report.irqs_checked, "IRQ");
  if (report.ok())
    out += fmt::format("{} checked: everything where the rules say\n", what);
  else
    out += fmt::format("{} checked: {}\n", what, plural(report.differences.size(), "difference"));
  return out;
}

std::string apply_check_json(const RuleSet& rules, const ApplyCheckReport& report) {
  JsonWriter j;
  j.begin_object();
  j.field("file", rules.file);
  j.field("ok", report.ok());
  j.key("differences");
  j.begin_array();
  for (const auto& d : report.differences) {
    j.begin_object();
    j.field("rule", rules.rules[d.rule].name.value);
    j.field("kind", kind_word(d.kind));
    j.key("pid");
    if (d.kind == DifferenceKind::Irq) j.null();
    else j.value(d.pid);
    j.key("tid");
    if (d.tid == 0) j.null();
    else j.value(d.tid);
    j.key("irq");
    if (d.kind == DifferenceKind::Irq) j.value(d.irq);
    else j.null();
    j.field("text", d.text);
    j.end_object();
  }
  j.end_array();
  j.key("processes");
  j.begin_array();
  for (const auto& p : report.processes) {
    j.begin_object();
    j.field("rule", rules.rules[p.rule].name.value);
    j.field("pid", p.pid);
    j.field("comm", p.comm);
    j.field("start_time", p.start_time);
    j.field("threads", p.threads);
    j.field("ok", p.ok);
    names_field(j, rules, "also_matches", p.also);
    j.end_object();
  }
  j.end_array();
  j.field("irqs_checked", report.irqs_checked);
  names_field(j, rules, "unmatched", report.unmatched);
  j.end_object();
  return j.str() + "\n";
}

}  // namespace affix
