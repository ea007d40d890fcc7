#include "shield_status.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cgroup_mounts.hpp"
#include "proc.hpp"
#include "shield_ops.hpp"
#include "text.hpp"

namespace affix {

namespace {

std::optional<CpuSet> cpulist_file(FilesOs& files, const std::string& path) {
  auto text = files.read(path);
  if (!text) return std::nullopt;
  auto set = parse_cpulist(trim_space(*text), true);
  if (!set) return std::nullopt;
  return *set.value;
}

// The task's cgroup in the shield's hierarchy: cgroup2's "0::PATH" line,
// or the line of v1's cpuset controller.
std::string cgroup_of(const SysRoot& root, const std::string& dir, bool v1) {
  auto text = root.read(dir + "/cgroup", 1u << 16);
  if (!text) return {};
  std::string_view t = *text;
  while (!t.empty()) {
    auto nl = t.find('\n');
    std::string_view line = t.substr(0, nl);
    t = nl == std::string_view::npos ? std::string_view() : t.substr(nl + 1);
    auto c1 = line.find(':');
    auto c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    std::string_view id = line.substr(0, c1), controllers = line.substr(c1 + 1, c2 - c1 - 1);
    if ((!v1 && id == "0" && controllers.empty()) || (v1 && mount_has_option(controllers, "cpuset")))
      return std::string(line.substr(c2 + 1));
  }
  return {};
}

bool under(const std::string& cgroup, const std::string& dir) {
  return cgroup == dir || (cgroup.size() > dir.size() && cgroup.compare(0, dir.size() + 1, dir + "/") == 0);
}

// The shield's cgroup relative to its hierarchy's mount ("/affix-shield-1").
std::string relative_cgroup(const SysRoot& root, const ShieldRecord& r) {
  bool v1 = r.layout == ShieldLayout::Cgroup1;
  for (const auto& m : read_cgroup_mounts(root, "proc/self")) {
    if (v1 != is_cpuset_v1(m) || (!v1 && m.fstype != "cgroup2")) continue;
    const std::string& mp = m.mountpoint;
    if (r.cgroup.size() > mp.size() && r.cgroup.compare(0, mp.size() + 1, mp + "/") == 0)
      return r.cgroup.substr(mp.size());
  }
  return r.cgroup;
}

struct Task {
  TaskOnCpus task;
  bool kernel = false;
};

std::vector<Task> read_tasks_of_machine(const SysRoot& root, bool v1) {
  std::vector<Task> out;
  for (pid_t pid : list_pids(root)) {
    auto tids = read_tasks(root, pid);
    if (!tids) continue;
    for (pid_t tid : *tids) {
      std::string dir = task_dir(pid, tid);
      try {
        auto st = read_stat(root, dir);
        auto status = read_status(root, dir);
        if (!st || !status) continue;  // gone
        Task t;
        t.task = TaskOnCpus{pid, tid, st->comm, cgroup_of(root, dir, v1), status->cpus, (st->flags & k_pf_no_setaffinity) != 0};
        t.kernel = (st->flags & k_pf_kthread) != 0;
        out.push_back(std::move(t));
      } catch (const Error&) {
        // a task that vanished mid-read
      }
    }
  }
  return out;
}

LauncherState launcher_state(const SysRoot& root, const ShieldRecord& r) {
  if (r.launcher <= 0) return LauncherState::None;
  auto st = read_stat(root, proc_dir(r.launcher));
  return st && st->start_time == r.launcher_start && st->state != 'Z' ? LauncherState::Running : LauncherState::Gone;
}

}  // namespace

std::vector<ShieldStatus> read_shield_status(const SysRoot& root, FilesOs& files, IrqOs& irqs,
                                             const std::vector<ShieldRecord>& records) {
  std::vector<ShieldStatus> out;
  if (records.empty()) return out;
  bool any_v1 = false, any_v2 = false;
  for (const auto& r : records) (r.layout == ShieldLayout::Cgroup1 ? any_v1 : any_v2) = true;
  std::vector<Task> v1_tasks, v2_tasks;
  if (any_v1) v1_tasks = read_tasks_of_machine(root, true);
  if (any_v2) v2_tasks = read_tasks_of_machine(root, false);
  InterruptTable table = parse_interrupts(root.read("proc/interrupts", 64u << 20).value_or(""));
  std::vector<unsigned> irq_numbers;
  for (const auto& n : root.list("proc/irq"))
    if (auto v = parse_decimal(n, k_max_id)) irq_numbers.push_back(static_cast<unsigned>(*v));
  std::sort(irq_numbers.begin(), irq_numbers.end());
  auto workqueue_text = root.read("sys/devices/virtual/workqueue/cpumask");
  std::optional<CpuSet> workqueue;
  if (workqueue_text)
    if (auto mask = parse_cpumask(trim_space(*workqueue_text))) workqueue = *mask.value;

  for (const auto& r : records) {
    ShieldStatus s;
    s.record = r;
    const bool v1 = r.layout == ShieldLayout::Cgroup1;
    s.exists = files.exists(r.cgroup);
    s.workqueue = workqueue;
    std::string cgroup_root = r.cgroup.substr(0, r.cgroup.size() - relative_cgroup(root, r).size());
    if (!v1) s.isolated = cpulist_file(files, cgroup_root + "/cpuset.cpus.isolated");
    if (s.exists) {
      if (v1) {
        std::string p = files.exists(r.cgroup + "/cpuset.cpus") ? "cpuset." : "";
        s.effective = cpulist_file(files, r.cgroup + "/" + p + "effective_cpus");
        if (!s.effective) s.effective = cpulist_file(files, r.cgroup + "/" + p + "cpus");
        s.exclusive = trim_space(files.read(r.cgroup + "/" + p + "cpu_exclusive").value_or("")) == "1";
        s.holds = s.exclusive && s.effective && *s.effective == r.cpus;
      } else {
        s.partition = parse_partition(files.read(r.cgroup + "/cpuset.cpus.partition").value_or(""));
        s.effective = cpulist_file(files, r.cgroup + "/cpuset.cpus.effective");
        s.holds = s.partition->valid;
      }
      for (pid_t pid : parse_pids(files.read(r.cgroup + "/cgroup.procs").value_or(""))) {
        auto st = read_stat(root, proc_dir(pid));
        s.inside.emplace_back(pid, st ? st->comm : std::string());
      }
    }
    s.launcher = launcher_state(root, r);
    const std::string rel = relative_cgroup(root, r);
    std::vector<IrqOnCpus> irq_list;
    for (unsigned irq : irq_numbers) {
      auto cpus = irqs.affinity(irq);
      if (!cpus) continue;
      auto eff = irqs.effective(irq);
      if (!cpus->intersects(r.cpus) && !(eff && eff->intersects(r.cpus))) continue;
      irq_list.push_back(IrqOnCpus{irq, irq_actions(table, irq), *cpus, eff, irq_managed(root, irq)});
    }
    for (unsigned cpu : r.cpus.members()) {
      CpuReport c;
      c.cpu = cpu;
      for (const auto& t : v1 ? v1_tasks : v2_tasks) {
        if (!t.task.cpus.test(cpu) || under(t.task.cgroup, rel)) continue;
        (t.kernel ? c.kernel : c.others).push_back(t.task);
      }
      for (const auto& i : irq_list)
        if (i.effective ? i.effective->test(cpu) : i.cpus.test(cpu)) c.irqs.push_back(i);
      s.cpus.push_back(std::move(c));
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> shield_problems(const ShieldStatus& s) {
  std::vector<std::string> out;
  const ShieldRecord& r = s.record;
  if (!s.exists) {
    out.push_back(fmt::format("its cgroup {} is gone", printable(r.cgroup)));
    return out;
  }
  if (s.partition && !s.partition->valid)
    out.push_back(fmt::format("the kernel does not hold it: cpuset.cpus.partition reads '{}{}'", printable(s.partition->type),
                              s.partition->invalid
                                  ? " invalid" + (s.partition->reason.empty() ? std::string() : " (" + printable(s.partition->reason) + ")")
                                  : std::string()));
  if (r.layout == ShieldLayout::Cgroup1 && !s.holds)
    out.push_back(fmt::format("the kernel does not hold it: its cpuset is {}exclusive, with CPUs {}", s.exclusive ? "" : "not ",
                              s.effective ? list_or_none(*s.effective) : "unknown"));
  std::vector<pid_t> seen;
  for (const auto& c : s.cpus)
    for (const auto& t : c.others) {
      if (std::find(seen.begin(), seen.end(), t.tid) != seen.end()) continue;
      seen.push_back(t.tid);
      out.push_back(fmt::format("thread {} ({}) of process {}, in cgroup {}, may run on CPUs {}", t.tid, printable(t.comm),
                                t.pid, printable(t.cgroup), format_cpulist(t.cpus & r.cpus)));
    }
  return out;
}

}  // namespace affix
