#include "cpu_view.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "error.hpp"
#include "json.hpp"
#include "proc.hpp"
#include "show_table.hpp"
#include "text.hpp"

namespace affix {

CpuThreadKind classify_thread(const CpuThread& t, const CpuSet& online) {
  if (online.is_subset_of(t.cpus)) return CpuThreadKind::Unpinned;
  return t.kernel && t.no_setaffinity ? CpuThreadKind::Bound : CpuThreadKind::Pinned;
}

namespace {

// Every IRQ of ROOT/proc/irq whose delivery list takes in a CPU of `cpus`;
// nullopt where that directory cannot be read.
std::optional<std::vector<CpuIrq>> read_irqs_on(const SysRoot& root, IrqOs& os, const CpuSet& cpus) {
  if (!root.exists("proc/irq")) return std::nullopt;
  std::vector<unsigned> numbers;
  for (const auto& n : root.list("proc/irq"))
    if (auto v = parse_decimal(n, k_max_id)) numbers.push_back(static_cast<unsigned>(*v));
  std::sort(numbers.begin(), numbers.end());
  InterruptTable table = parse_interrupts(root.read("proc/interrupts", 64u << 20).value_or(""));
  std::map<unsigned, const InterruptLine*> line_of;
  for (const auto& l : table.lines) line_of.emplace(l.irq, &l);
  std::vector<CpuIrq> out;
  for (unsigned irq : numbers) {
    auto list = os.affinity(irq);
    if (!list) continue;  // gone, or no list the kernel would write
    CpuIrq i;
    i.irq = irq;
    i.cpus = *list;
    i.effective = os.effective(irq);
    if (!i.there().intersects(cpus)) continue;
    if (auto it = line_of.find(irq); it != line_of.end()) {
      std::string joined;
      for (const auto& a : it->second->actions) joined += (joined.empty() ? "" : ",") + a;
      i.actions = joined;
      for (size_t c = 0; c < table.cpus.size(); ++c)
        if (cpus.test(table.cpus[c])) i.counts.emplace_back(table.cpus[c], it->second->counts[c]);
      std::sort(i.counts.begin(), i.counts.end());
    }
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace

CpuView read_cpu_view(const SysRoot& root, IrqOs& irqs, const CpuSet& cpus, const CpuSet& online) {
  CpuView v;
  v.cpus = cpus;
  v.online = online;
  v.proc = root.path("proc");
  std::vector<unsigned> members = cpus.members();
  std::vector<long> line_at(cpus.empty() ? 0 : cpus.end(), -1);  // CPU -> index in per_cpu
  for (unsigned c : members) {
    line_at[c] = static_cast<long>(v.per_cpu.size());
    v.per_cpu.push_back(CpuLine{c, 0, 0, 0, 0, 0});
  }
  auto line_of = [&](long cpu) -> CpuLine* {
    if (cpu < 0 || static_cast<size_t>(cpu) >= line_at.size() || line_at[static_cast<size_t>(cpu)] < 0) return nullptr;
    return &v.per_cpu[static_cast<size_t>(line_at[static_cast<size_t>(cpu)])];
  };

  for (pid_t pid : list_pids(root)) {
    std::optional<StatLine> pst;
    std::optional<std::vector<pid_t>> tids;
    try {
      pst = read_stat(root, proc_dir(pid));
      if (pst) tids = read_tasks(root, pid);
    } catch (const Error&) {
      continue;  // a stat line that is none: not a process to show
    }
    if (!pst || !tids) continue;  // gone while listed
    ++v.processes;
    UnpinnedCount counted{pid, pst->comm, 0, {}};
    for (pid_t tid : *tids) {
      CpuThread t;
      try {
        std::string dir = task_dir(pid, tid);
        auto st = read_stat(root, dir);
        auto status = read_status(root, dir);
        if (!st || !status) continue;  // exited while read
        t = CpuThread{pid, tid, st->comm, pst->comm, status->cpus, st->last_cpu,
                      (st->flags & k_pf_kthread) != 0, (st->flags & k_pf_no_setaffinity) != 0};
      } catch (const Error&) {
        continue;
      }
      if (!t.cpus.intersects(cpus)) continue;  // it may not run there
      CpuThreadKind kind = classify_thread(t, online);
      (t.cpus & cpus).for_each([&](unsigned c) {
        CpuLine& l = *line_of(c);
        ++l.may_run;
        if (kind == CpuThreadKind::Pinned) ++l.pinned;
        if (kind == CpuThreadKind::Bound) ++l.bound;
      });
      if (CpuLine* l = line_of(t.last_cpu)) ++l->ran;
      switch (kind) {
        case CpuThreadKind::Bound: v.bound.push_back(std::move(t)); break;
        case CpuThreadKind::Pinned: v.pinned.push_back(std::move(t)); break;
        case CpuThreadKind::Unpinned: {
          UnpinnedCount& to = t.kernel ? v.unpinned_kernel : counted;
          ++to.threads;
          if (v.ran(t)) to.ran.push_back(tid);
          break;
        }
      }
    }
    if (counted.threads > 0) v.unpinned.push_back(std::move(counted));
  }
  std::sort(v.unpinned_kernel.ran.begin(), v.unpinned_kernel.ran.end());
  v.irqs = read_irqs_on(root, irqs, cpus);
  if (v.irqs)
    for (const auto& i : *v.irqs)
      (i.there() & cpus).for_each([&](unsigned c) { ++line_of(c)->irqs; });
  return v;
}

namespace {

// A process's name in a table: escaped; a kernel thread's in brackets, as
// ps shows it.
std::string process_cell(const std::string& comm, bool kernel) {
  return kernel ? "[" + printable(comm) + "]" : printable(comm);
}

// Threads of one process that share a CPU list (pinned), or every bound
// thread of one CPU list, in the order of their first TID.
struct CpuThreadGroup {
  pid_t pid = 0;
  std::string process;
  bool kernel = false;
  CpuSet cpus;
  std::vector<const CpuThread*> threads;
};

std::vector<CpuThreadGroup> group(const std::vector<CpuThread>& threads, bool by_process) {
  std::vector<CpuThreadGroup> out;
  std::map<std::pair<pid_t, std::vector<uint64_t>>, size_t> index;
  for (const auto& t : threads) {
    auto [it, added] = index.emplace(std::make_pair(by_process ? t.pid : 0, t.cpus.words()), out.size());
    if (added) out.push_back(CpuThreadGroup{t.pid, t.process, t.kernel, t.cpus, {}});
    out[it->second].threads.push_back(&t);
  }
  if (!by_process)  // one row per CPU list: in the order of the lists' first CPU
    std::stable_sort(out.begin(), out.end(), [](const CpuThreadGroup& a, const CpuThreadGroup& b) {
      return a.cpus.first() < b.cpus.first() || (a.cpus.first() == b.cpus.first() && a.cpus.count() < b.cpus.count());
    });
  return out;
}

std::vector<pid_t> tids_of(const CpuThreadGroup& g) {
  std::vector<pid_t> out;
  for (const auto* t : g.threads) out.push_back(t->tid);
  std::sort(out.begin(), out.end());
  return out;
}

// The names of a group's threads, each once, in the order of their TIDs.
std::string names_of(const CpuThreadGroup& g) {
  std::vector<std::string> seen;
  for (const auto* t : g.threads)
    if (std::find(seen.begin(), seen.end(), t->comm) == seen.end()) seen.push_back(t->comm);
  std::string out;
  for (const auto& n : seen) out += (out.empty() ? "" : ",") + printable(n);
  return out;
}

std::string ran_count(const CpuView& v, const CpuThreadGroup& g) {
  return std::to_string(std::count_if(g.threads.begin(), g.threads.end(), [&](const CpuThread* t) { return v.ran(*t); }));
}

std::string last_cpus(const CpuThreadGroup& g) {
  CpuSet last;
  for (const auto* t : g.threads)
    if (t->last_cpu >= 0) last.set(static_cast<unsigned>(t->last_cpu));
  return last.empty() ? "-" : format_cpulist(last);
}

std::string counts_text(const CpuIrq& i) {
  std::string out;
  for (const auto& [cpu, n] : i.counts)
    if (n > 0) out += fmt::format("{}{}:{}", out.empty() ? "" : " ", cpu, n);
  return out.empty() ? "none" : out;
}

}  // namespace

std::string format_cpu_text(const CpuView& v) {
  std::string out = fmt::format("CPUs {} (online {})\n", format_cpulist(v.cpus), list_or_none(v.online));
  std::vector<std::vector<std::string>> rows{{"CPU", "PINNED", "BOUND", "MAY RUN", "RAN", "IRQS"}};
  // "-": unknown (a root without processes, without proc/irq).
  auto count = [](bool known, unsigned n) { return known ? std::to_string(n) : std::string("-"); };
  const bool threads = v.processes > 0;
  for (const auto& l : v.per_cpu)
    rows.push_back({std::to_string(l.cpu), count(threads, l.pinned), count(threads, l.bound), count(threads, l.may_run),
                    count(threads, l.ran), count(v.irqs.has_value(), l.irqs)});
  out += table(rows, "");
  if (v.processes == 0) {
    out += fmt::format("\nThreads: none read: {} holds no process\n", printable(v.proc));
  } else {
    out += fmt::format("\nPinned threads (CPU lists narrower than the online CPUs, {})\n", list_or_none(v.online));
    if (v.pinned.empty()) {
      out += "  none\n";
    } else {
      rows = {{"PID", "PROCESS", "CPUS", "THREADS", "TIDS", "RAN", "LAST CPUS", "NAMES"}};
      for (const auto& g : group(v.pinned, true))
        rows.push_back({std::to_string(g.pid), process_cell(g.process, g.kernel), format_cpulist(g.cpus),
                        std::to_string(g.threads.size()), format_id_list(tids_of(g)), ran_count(v, g), last_cpus(g),
                        names_of(g)});
      out += table(rows, "  ");
    }
    out += "\nKernel threads bound there (PF_NO_SETAFFINITY: they cannot be moved)\n";
    if (v.bound.empty()) {
      out += "  none\n";
    } else {
      rows = {{"CPUS", "THREADS", "TIDS", "RAN", "LAST CPUS", "NAMES"}};
      for (const auto& g : group(v.bound, false))
        rows.push_back({format_cpulist(g.cpus), std::to_string(g.threads.size()), format_id_list(tids_of(g)),
                        ran_count(v, g), last_cpus(g), names_of(g)});
      out += table(rows, "  ");
    }
    // The unpinned ones counted: those of the processes that ran there
    // first (most first), the others in one line.
    out += "\nUnpinned threads (any online CPU), counted per process that ran there\n";
    std::vector<const UnpinnedCount*> ran;
    unsigned idle_processes = 0, idle_threads = 0;
    for (const auto& u : v.unpinned) {
      if (u.ran.empty()) {
        ++idle_processes;
        idle_threads += u.threads;
      } else {
        ran.push_back(&u);
      }
    }
    std::stable_sort(ran.begin(), ran.end(),
                     [](const UnpinnedCount* a, const UnpinnedCount* b) { return a->ran.size() > b->ran.size(); });
    if (ran.empty() && v.unpinned_kernel.threads == 0) {
      out += "  none\n";
    } else {
      rows = {{"PID", "PROCESS", "THREADS", "RAN"}};
      for (const auto* u : ran)
        rows.push_back({std::to_string(u->pid), printable(u->process), std::to_string(u->threads),
                        std::to_string(u->ran.size())});
      if (v.unpinned_kernel.threads > 0)
        rows.push_back({"-", "[kernel threads]", std::to_string(v.unpinned_kernel.threads),
                        std::to_string(v.unpinned_kernel.ran.size())});
      out += table(rows, "  ");
    }
    if (idle_processes > 0)
      out += fmt::format("  and {} of {} that did not run there last\n", plural(idle_threads, "thread"),
                         plural(idle_processes, "process", "processes"));
  }
  out += "\nIRQs delivered there (effective affinity, else the CPU list)\n";
  if (!v.irqs) {
    out += fmt::format("  unknown: {}/irq cannot be read\n", printable(v.proc));
  } else if (v.irqs->empty()) {
    out += "  none\n";
  } else {
    rows = {{"IRQ", "EFFECTIVE", "CPUS", "COUNTS", "NAME"}};
    for (const auto& i : *v.irqs)
      rows.push_back({std::to_string(i.irq), i.effective ? list_or_none(*i.effective) : "-", list_or_none(i.cpus),
                      counts_text(i), i.actions.empty() ? "-" : printable(i.actions)});
    out += table(rows, "  ");
  }
  return out;
}

namespace {

void tid_array(JsonWriter& j, const std::vector<pid_t>& tids) {
  j.begin_array();
  for (pid_t t : tids) j.value(static_cast<long long>(t));
  j.end_array();
}

void thread_object(JsonWriter& j, const CpuView& v, const CpuThread& t, bool kernel_field) {
  j.begin_object();
  j.field("pid", static_cast<long long>(t.pid));
  j.field("tid", static_cast<long long>(t.tid));
  j.field("comm", t.comm);
  j.field("process", t.process);
  j.field("cpus", format_cpulist(t.cpus));
  j.key("last_cpu");
  if (t.last_cpu >= 0) j.value(static_cast<long long>(t.last_cpu)); else j.null();
  j.field("ran", v.ran(t));
  if (kernel_field) j.field("kernel", t.kernel);
  j.end_object();
}

void unpinned_object(JsonWriter& j, const UnpinnedCount& u, bool kernel) {
  j.begin_object();
  if (!kernel) {
    j.field("pid", static_cast<long long>(u.pid));
    j.field("process", u.process);
  }
  j.field("threads", u.threads);
  j.field("ran", static_cast<unsigned>(u.ran.size()));
  j.key("ran_tids");
  tid_array(j, u.ran);
  j.end_object();
}

}  // namespace

std::string format_cpu_json(const CpuView& v) {
  JsonWriter j;
  j.begin_object();
  j.field("cpus", format_cpulist(v.cpus));
  j.field("online", format_cpulist(v.online));
  j.field("processes", v.processes);
  j.key("per_cpu");
  j.begin_array();
  for (const auto& l : v.per_cpu) {
    j.begin_object();
    j.field("cpu", l.cpu);
    auto count = [&](const char* name, bool known, unsigned n) {
      j.key(name);
      if (known) j.value(n); else j.null();
    };
    const bool threads = v.processes > 0;
    count("pinned", threads, l.pinned);
    count("bound", threads, l.bound);
    count("may_run", threads, l.may_run);
    count("ran", threads, l.ran);
    count("irqs", v.irqs.has_value(), l.irqs);
    j.end_object();
  }
  j.end_array();
  j.key("pinned");
  j.begin_array();
  for (const auto& t : v.pinned) thread_object(j, v, t, true);
  j.end_array();
  j.key("bound");
  j.begin_array();
  for (const auto& t : v.bound) thread_object(j, v, t, false);
  j.end_array();
  j.key("unpinned");
  j.begin_array();
  for (const auto& u : v.unpinned) unpinned_object(j, u, false);
  j.end_array();
  j.key("unpinned_kernel");
  unpinned_object(j, v.unpinned_kernel, true);
  j.key("irqs");
  if (!v.irqs) {
    j.null();
  } else {
    j.begin_array();
    for (const auto& i : *v.irqs) {
      j.begin_object();
      j.field("irq", i.irq);
      j.field("actions", i.actions);
      j.field("cpus", format_cpulist(i.cpus));
      j.key("effective");
      if (i.effective) j.value(format_cpulist(*i.effective)); else j.null();
      j.key("counts");
      j.begin_object();
      for (const auto& [cpu, n] : i.counts) j.field(std::to_string(cpu), n);
      j.end_object();
      j.end_object();
    }
    j.end_array();
  }
  j.end_object();
  return j.str() + "\n";
}

}  // namespace affix
