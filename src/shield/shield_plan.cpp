#include "shield_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "error.hpp"
#include "shield_systemd.hpp"
#include "text.hpp"

namespace affix {

namespace {

ShieldStep change(OpKind kind, std::string path, std::string value) {
  return ShieldStep{ShieldStepKind::Change, Op{kind, std::move(path), std::move(value), {}}};
}

bool taken(const ShieldMachine& m, const std::string& name) {
  return std::any_of(m.records.begin(), m.records.end(), [&](const auto& r) { return r.name == name; });
}

CpuSet shielded_cpus(const ShieldMachine& m) {
  CpuSet all;
  for (const auto& r : m.records) all |= r.cpus;
  return all;
}

std::string next_name(const ShieldMachine& m) {
  for (unsigned n = 1;; ++n) {
    std::string name = fmt::format("affix-shield-{}", n);
    if (!taken(m, name)) return name;
  }
}

void plan_cgroup2(const ShieldMachine& m, ShieldPlan& plan) {
  const ShieldRecord& r = plan.record;
  for (const auto& [dir, cpus] : m.partitions)
    if (cpus.intersects(r.cpus))
      throw Error(ErrorKind::Runtime,
                  fmt::format("shield {} (CPUs {}) overlaps the partition {} (CPUs {}): writing its CPUs would make the "
                              "kernel invalidate that one for good ('Cpu list in cpuset.cpus not exclusive'); nothing "
                              "was changed", r.name, format_cpulist(r.cpus), printable(dir), format_cpulist(cpus)),
                  "'affix show --shield' lists the shields and their CPUs; give CPUs no other partition holds, or "
                  "remove that one first ('affix shield --off NAME')");
  if (!m.cpuset_enabled) plan.steps.push_back(change(OpKind::Controller, m.cgroup_root + "/cgroup.subtree_control", "cpuset"));
  plan.steps.push_back(change(OpKind::Mkdir, r.cgroup, {}));
  plan.steps.push_back(change(OpKind::Write, r.cgroup + "/cpuset.cpus", format_cpulist(r.cpus)));
  if (!r.mems.empty()) plan.steps.push_back(change(OpKind::Write, r.cgroup + "/cpuset.mems", format_cpulist(r.mems)));
  plan.steps.push_back(change(OpKind::Write, r.cgroup + "/cpuset.cpus.partition", r.isolated ? "isolated" : "root"));
  plan.steps.push_back(ShieldStep{ShieldStepKind::Verdict, Op{OpKind::Write, r.cgroup + "/cpuset.cpus.partition", {}, {}}});
}

// Whether slice `a` is `b`, or one holds the other (systemd.slice(5): each
// '-' of a slice's name a level).
bool slices_nest(const std::string& a, const std::string& b) {
  std::string x = a.substr(0, a.size() - 6), y = b.substr(0, b.size() - 6);  // without ".slice"
  if (x.size() > y.size()) std::swap(x, y);
  return x == y || y.compare(0, x.size() + 1, x + "-") == 0;
}

void check_slice_name(const ShieldMachine& m, const std::string& name) {
  const std::string unit = shield_slice_unit(name);
  if (!default_shield_name(name) && slices_nest(unit, "affix-shield-1.slice"))
    throw Error(ErrorKind::Usage,
                fmt::format("invalid --name '{}': under systemd its slice, {}, is the one every default shield's slice "
                            "is in (systemd reads each '-' of a slice's name as a level)", printable(name), unit),
                "give another --name");
  for (const auto& r : m.records)
    if (!r.unit.empty() && slices_nest(unit, r.unit))
      throw Error(ErrorKind::Usage,
                  fmt::format("invalid --name '{}': under systemd its slice, {}, and shield {}'s, {}, would be one in "
                              "the other (systemd reads each '-' of a slice's name as a level)",
                              printable(name), unit, printable(r.name), printable(r.unit)),
                  "give another --name");
}

void plan_systemd(const ShieldMachine& m, ShieldPlan& plan) {
  const ShieldRecord& r = plan.record;
  if (!m.has_exclusive)
    throw Error(ErrorKind::Runtime,
                "systemd runs this machine, and a shield below its cgroups needs cpuset.cpus.exclusive, which "
                "this kernel does not have (Linux 6.7 and later have it)",
                "'affix explain --shield WHERE --as systemd' prints AllowedCPUs= lines that keep systemd's own "
                "slices off the CPUs instead");
  plan.steps.push_back(change(OpKind::Unit, slice_unit_path(r.unit), slice_unit_text(r)));
  // systemd turns cpuset on along the slice's path itself (AllowedCPUs=);
  // starting it checks that it did.
  plan.steps.push_back(change(OpKind::Start, r.unit, r.cgroup));
  for (const auto& dir : slice_cgroups(m.cgroup_root, r.unit))
    plan.steps.push_back(change(OpKind::Exclusive, dir + "/cpuset.cpus.exclusive", format_cpulist(r.cpus)));
  plan.steps.push_back(change(OpKind::Write, r.cgroup + "/cpuset.cpus.partition", r.isolated ? "isolated" : "root"));
  plan.steps.push_back(ShieldStep{ShieldStepKind::Verdict, Op{OpKind::Write, r.cgroup + "/cpuset.cpus.partition", {}, {}}});
}

void plan_cgroup1(const ShieldMachine& m, ShieldPlan& plan) {
  const ShieldRecord& r = plan.record;
  const std::string& p = m.v1_prefix;
  const std::string system = system_cpuset(m);
  plan.steps.push_back(change(OpKind::SystemSet, system, {}));
  plan.steps.push_back(change(OpKind::SystemTake, system + "/" + p + "cpus", format_cpulist(r.cpus)));
  if (!r.mems.empty()) plan.steps.push_back(change(OpKind::SystemMems, system + "/" + p + "mems", format_cpulist(r.mems)));
  // Tasks still in the shield when it goes join the rest of the machine.
  plan.steps.push_back(change(OpKind::Mkdir, r.cgroup, system));
  plan.steps.push_back(change(OpKind::Write, r.cgroup + "/" + p + "cpus", format_cpulist(r.cpus)));
  // A v1 cpuset takes no task before it has memory nodes: the root's (all
  // of them), or those of --mem.
  plan.steps.push_back(change(OpKind::Write, r.cgroup + "/" + p + "mems", r.mems.empty() ? m.v1_root_mems : format_cpulist(r.mems)));
  plan.steps.push_back(change(OpKind::Write, r.cgroup + "/" + p + "cpu_exclusive", "1"));
  if (!r.mems.empty()) plan.steps.push_back(change(OpKind::Write, r.cgroup + "/" + p + "mem_exclusive", "1"));
  if (r.isolated) {
    plan.steps.push_back(change(OpKind::Write, r.cgroup + "/" + p + "sched_load_balance", "0"));
    plan.steps.push_back(change(OpKind::Shared, m.cgroup_root + "/" + p + "sched_load_balance", "0"));
  }
}

}  // namespace

std::optional<std::string> bad_shield_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return "it must have 1 to 64 characters";
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return "it may hold letters, digits, '_' and '-' only";
  if (name.front() == '-' || name.front() == '_') return "it must start with a letter or a digit";
  if (name.back() == '-' || name.find("--") != std::string::npos) return "it may not end in '-' or hold \"--\"";
  if (name == "affix-system" || name == "affix") return "affix uses that name itself";
  return std::nullopt;
}

std::string system_cpuset(const ShieldMachine& m) { return m.cgroup_root + "/affix-system"; }

std::string shield_cgroup(const ShieldMachine& m, const std::string& name) {
  if (m.layout == ShieldLayout::Systemd) return slice_cgroup(m.cgroup_root, shield_slice_unit(name));
  return m.cgroup_root + "/" + name;
}

ShieldPlan plan_shield(const ShieldMachine& m, const ShieldRequest& req) {
  if (!m.layout)
    throw Error(ErrorKind::Runtime, fmt::format("no cpuset controller to fence CPUs off with: {}", m.why_none),
                "mount cgroup v2 (mount -t cgroup2 none /sys/fs/cgroup), or cgroup v1's cpuset where cgroup v2 "
                "does not use it (Linux 6.12 and later have that only with CONFIG_CPUSETS_V1)");
  ShieldPlan plan;
  ShieldRecord& r = plan.record;
  if (!req.name.empty()) {
    if (auto why = bad_shield_name(req.name))
      throw Error(ErrorKind::Usage, fmt::format("invalid --name '{}': {}", printable(req.name), *why));
    if (taken(m, req.name))
      throw Error(ErrorKind::Resolution, fmt::format("a shield named {} exists", req.name),
                  "'affix show --shield' lists the shields; choose another name, or remove it first");
    r.name = req.name;
  } else {
    r.name = next_name(m);
  }
  CpuSet others = shielded_cpus(m);
  if ((m.online - others - req.cpus).empty())
    throw Error(ErrorKind::Resolution,
                fmt::format("shielding CPUs {} leaves no online CPU to the rest of the machine", format_cpulist(req.cpus)),
                "leave at least one online CPU outside every shield: PID 1 and the kernel's own threads need one");
  r.layout = *m.layout;
  if (r.layout == ShieldLayout::Systemd) check_slice_name(m, r.name);
  for (const auto& other : m.records) r.made = std::max(r.made, other.made);
  ++r.made;
  r.cpus = req.cpus;
  if (req.mems) r.mems = *req.mems;
  r.isolated = req.isolated;
  r.irqs = req.irqs;
  if (r.layout == ShieldLayout::Systemd) r.unit = shield_slice_unit(r.name);
  r.cgroup = shield_cgroup(m, r.name);
  switch (r.layout) {
    case ShieldLayout::Cgroup2: plan_cgroup2(m, plan); break;
    case ShieldLayout::Systemd: plan_systemd(m, plan); break;
    case ShieldLayout::Cgroup1: plan_cgroup1(m, plan); break;
  }
  if (r.irqs) plan.steps.push_back(ShieldStep{ShieldStepKind::Irqs, Op{OpKind::Irq, "/proc/irq", format_cpulist(r.cpus), {}}});
  return plan;
}

std::string describe_step(const ShieldStep& s) {
  const Op& op = s.op;
  const std::string path = printable(op.path);
  switch (s.kind) {
    case ShieldStepKind::Verdict: return fmt::format("read {}: the kernel's verdict", path);
    case ShieldStepKind::Irqs:
      return fmt::format("move every movable IRQ off CPUs {} (/proc/irq/N/smp_affinity_list), and "
                         "/proc/irq/default_smp_affinity", op.value);
    case ShieldStepKind::Change: break;
  }
  switch (op.kind) {
    case OpKind::Mkdir: return fmt::format("mkdir {}", path);
    case OpKind::Write:
    case OpKind::Shared:
      return fmt::format("write {} to {}", printable(op.value), path);
    case OpKind::Controller: return fmt::format("write +{} to {}", op.value, path);
    case OpKind::Exclusive: return fmt::format("add CPUs {} to {}", op.value, path);
    case OpKind::SystemSet:
      return fmt::format("make the system cpuset {} (where it is not there) and move every movable task of "
                         "the root cpuset into it", path);
    case OpKind::SystemTake: return fmt::format("take CPUs {} out of {}", op.value, path);
    case OpKind::SystemMems: return fmt::format("take memory nodes {} out of {}", op.value, path);
    case OpKind::Unit: return fmt::format("write the unit {}, then systemctl daemon-reload", path);
    case OpKind::Start: return fmt::format("systemctl start {}", path);
    case OpKind::Irq: return fmt::format("write {} to /proc/irq/{}/smp_affinity_list", op.value, path);
  }
  return {};
}

}  // namespace affix
