#include "shield_output.hpp"

#include <fmt/format.h>

#include "json.hpp"
#include "text.hpp"

namespace affix {

namespace {

std::string mode_text(const ShieldRecord& r) {
  if (r.layout == ShieldLayout::Cgroup1) return r.isolated ? "exclusive cpuset, no load balancing" : "exclusive cpuset";
  return r.isolated ? "isolated partition" : "root partition";
}

std::string where_text(const ShieldRecord& r) {
  switch (r.layout) {
    case ShieldLayout::Cgroup2: return "cgroup2 " + printable(r.cgroup);
    case ShieldLayout::Systemd: return fmt::format("systemd {}: cgroup2 {}", printable(r.unit), printable(r.cgroup));
    case ShieldLayout::Cgroup1: return "cgroup1 (the v1 way, as cset shield) " + printable(r.cgroup);
  }
  return {};
}

std::string kernel_text(const ShieldStatus& s) {
  if (!s.exists) return "its cgroup is gone";
  std::string out;
  if (s.partition) {
    const PartitionState& p = *s.partition;
    std::string state = printable(p.type);
    if (p.invalid) state += " invalid" + (p.reason.empty() ? std::string() : " (" + printable(p.reason) + ")");
    out = fmt::format("{}{} (cpuset.cpus.partition)", s.holds ? "" : "NOT HELD: ", state);
  } else {
    out = s.holds ? "exclusive (cpu_exclusive 1)" : (s.exclusive ? "NOT HELD: exclusive, other CPUs" : "NOT HELD: not exclusive");
  }
  out += "; effective CPUs " + (s.effective ? list_or_none(*s.effective) : std::string("unknown"));
  if (s.isolated) out += "; isolated CPUs " + list_or_none(*s.isolated) + " (cpuset.cpus.isolated)";
  if (s.workqueue) out += "; unbound workqueues " + list_or_none(*s.workqueue);
  return out;
}

std::string process_list(const std::vector<std::pair<pid_t, std::string>>& procs) {
  if (procs.empty()) return "none";
  std::string out = plural(procs.size(), "process", "processes") + ":";
  for (const auto& [pid, comm] : procs) out += fmt::format(" {} ({})", pid, printable(comm));
  return out;
}

std::string tasks_text(const std::vector<TaskOnCpus>& tasks, bool with_cgroup, int bound = -1) {
  std::string out;
  for (const auto& t : tasks) {
    if (bound >= 0 && t.bound != (bound == 1)) continue;
    out += (out.empty() ? "" : ", ") + printable(t.comm) + " (" + std::to_string(t.tid);
    if (t.tid != t.pid) out += fmt::format(" of {}", t.pid);
    if (with_cgroup) out += ", cgroup " + (t.cgroup.empty() ? std::string("unknown") : printable(t.cgroup));
    out += ")";
  }
  return out.empty() ? "none" : out;
}

std::string irqs_text(const std::vector<IrqOnCpus>& irqs) {
  if (irqs.empty()) return "none";
  std::string out;
  for (const auto& i : irqs) {
    out += (out.empty() ? "" : ", ") + std::to_string(i.irq);
    std::string about = printable(i.name);
    if (i.managed && *i.managed) about += about.empty() ? "managed" : ", managed";
    if (!about.empty()) out += " (" + about + ")";
  }
  return out;
}

std::string launcher_text(const ShieldStatus& s) {
  const ShieldRecord& r = s.record;
  switch (s.launcher) {
    case LauncherState::None:
      return fmt::format("none: it stands until 'affix shield --off {}'", printable(r.name));
    case LauncherState::Running:
      return fmt::format("affix {} runs command {} in it; the shield goes when that ends", r.launcher, r.command);
    case LauncherState::Gone:
      return fmt::format("affix {} is gone (killed?); the shield stays until 'affix shield --off {}'", r.launcher,
                         printable(r.name));
  }
  return {};
}

void task_json(JsonWriter& j, const TaskOnCpus& t, bool with_cgroup) {
  j.begin_object();
  j.field("pid", t.pid);
  j.field("tid", t.tid);
  j.field("comm", t.comm);
  if (with_cgroup) {
    j.field("cgroup", t.cgroup);
    j.field("cpus", format_cpulist(t.cpus));
  } else {
    j.field("bound", t.bound);
  }
  j.end_object();
}

}  // namespace

std::string shield_label(const ShieldRecord& r) {
  return fmt::format("{} (CPUs {})", printable(r.name), format_cpulist(r.cpus));
}

std::string format_plan(const ShieldPlan& plan) {
  const ShieldRecord& r = plan.record;
  std::string out = fmt::format("{}: CPUs {}{}, {}, {}\n", printable(r.name), format_cpulist(r.cpus),
                                r.mems.empty() ? "" : ", memory nodes " + format_cpulist(r.mems), mode_text(r), where_text(r));
  for (size_t i = 0; i < plan.steps.size(); ++i) out += fmt::format("  {}. {}\n", i + 1, describe_step(plan.steps[i]));
  return out;
}

std::string format_shields_text(const std::vector<ShieldStatus>& shields, const std::vector<std::string>& bad_records) {
  std::string out;
  if (shields.empty()) out = "no shields\n";
  for (const auto& s : shields) {
    const ShieldRecord& r = s.record;
    out += fmt::format("{}  CPUs {}  {}  {}\n", printable(r.name), format_cpulist(r.cpus), mode_text(r), where_text(r));
    out += fmt::format("  kernel    {}\n", kernel_text(s));
    if (!r.mems.empty()) out += fmt::format("  memory    nodes {}\n", format_cpulist(r.mems));
    out += fmt::format("  inside    {}\n", process_list(s.inside));
    out += fmt::format("  launcher  {}\n", launcher_text(s));
    for (const auto& c : s.cpus) {
      out += fmt::format("  CPU {:<5} kernel threads that cannot move: {}\n", c.cpu, tasks_text(c.kernel, false, 1));
      std::string free = tasks_text(c.kernel, false, 0);
      if (free != "none") out += fmt::format("            other kernel threads: {}\n", free);
      out += fmt::format("            IRQs: {}\n", irqs_text(c.irqs));
      out += fmt::format("            other tasks: {}\n", tasks_text(c.others, true));
    }
  }
  for (const auto& b : bad_records) out += fmt::format("unreadable record {}\n", b);
  return out;
}

std::string format_shields_json(const std::vector<ShieldStatus>& shields) {
  JsonWriter j;
  j.begin_array();
  for (const auto& s : shields) {
    const ShieldRecord& r = s.record;
    j.begin_object();
    j.field("name", r.name);
    j.field("layout", layout_name(r.layout));
    j.field("cgroup", r.cgroup);
    j.key("unit");
    if (r.unit.empty()) j.null(); else j.value(r.unit);
    j.field("cpus", format_cpulist(r.cpus));
    j.key("mems");
    if (r.mems.empty()) j.null(); else j.value(format_cpulist(r.mems));
    j.field("mode", r.isolated ? "isolated" : "root");
    j.field("irqs", r.irqs);
    j.field("exists", s.exists);
    j.key("kernel");
    j.begin_object();
    j.field("holds", s.holds);
    j.key("partition");
    if (s.partition) j.value(s.partition->type); else j.null();
    j.key("reason");
    if (s.partition && s.partition->invalid) j.value(s.partition->reason); else j.null();
    j.key("exclusive");
    if (r.layout == ShieldLayout::Cgroup1) j.value(s.exclusive); else j.null();
    j.key("effective");
    if (s.effective) j.value(format_cpulist(*s.effective)); else j.null();
    j.key("isolated");
    if (s.isolated) j.value(format_cpulist(*s.isolated)); else j.null();
    j.key("workqueue");
    if (s.workqueue) j.value(format_cpulist(*s.workqueue)); else j.null();
    j.end_object();
    j.key("inside");
    j.begin_array();
    for (const auto& [pid, comm] : s.inside) {
      j.begin_object();
      j.field("pid", pid);
      j.field("comm", comm);
      j.end_object();
    }
    j.end_array();
    j.key("launcher");
    j.begin_object();
    j.field("state", s.launcher == LauncherState::Running ? "running" : s.launcher == LauncherState::Gone ? "gone" : "none");
    j.key("pid");
    if (r.launcher > 0) j.value(r.launcher); else j.null();
    j.key("command");
    if (r.launcher > 0) j.value(r.command); else j.null();
    j.end_object();
    j.key("problems");
    j.begin_array();
    for (const auto& p : shield_problems(s)) j.value(p);
    j.end_array();
    j.key("per_cpu");
    j.begin_array();
    for (const auto& c : s.cpus) {
      j.begin_object();
      j.field("cpu", c.cpu);
      j.key("kernel_threads");
      j.begin_array();
      for (const auto& t : c.kernel) task_json(j, t, false);
      j.end_array();
      j.key("irqs");
      j.begin_array();
      for (const auto& i : c.irqs) {
        j.begin_object();
        j.field("irq", i.irq);
        j.field("name", i.name);
        j.field("cpus", format_cpulist(i.cpus));
        j.key("effective");
        if (i.effective) j.value(format_cpulist(*i.effective)); else j.null();
        j.key("managed");
        if (i.managed) j.value(*i.managed); else j.null();
        j.end_object();
      }
      j.end_array();
      j.key("others");
      j.begin_array();
      for (const auto& t : c.others) task_json(j, t, true);
      j.end_array();
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
  return j.str() + "\n";
}

}  // namespace affix
