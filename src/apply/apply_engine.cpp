// The engine of affix apply: each matched process through the pin engine
// (pin.hpp), its checks through pin_check.hpp, IRQ rules through
// pin_irq.hpp. See apply_engine.hpp for the contract.
#include "apply_engine.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "error.hpp"
#include "migrate.hpp"
#include "pin.hpp"
#include "pin_check.hpp"
#include "pin_output.hpp"
#include "proc.hpp"
#include "proc_events.hpp"
#include "text.hpp"

namespace affix {

bool ApplyReport::failed() const {
  for (const auto& p : processes)
    if (p.status == ProcessStatus::Failed) return true;
  for (const auto& i : irqs)
    if (i.failed) return true;
  return false;
}

namespace {

std::string error_text(const Error& e) { return e.hint().empty() ? e.what() : std::string(e.what()) + "; " + e.hint(); }

// Threads a pin changed (would change, with dry_run), as pin counts them.
size_t changed_threads(const PinReport& report, bool dry_run) {
  size_t n = 0;
  for (const auto& t : report.targets)
    for (const auto& p : t.processes) {
      if (p.exited) continue;
      for (const auto& m : p.threads)
        n += !m.gone && (dry_run ? !(m.before == m.after) || !(m.sched_before == m.sched_after)
                                 : m.changed || m.sched_changed);
    }
  return n;
}

size_t live_threads(const PinReport& report, size_t& processes) {
  size_t n = 0;
  for (const auto& t : report.targets)
    for (const auto& p : t.processes) {
      if (p.exited) continue;
      ++processes;
      for (const auto& m : p.threads) n += !m.gone;
    }
  return n;
}

// "4242 (postgres)", the name escaped.
std::string process_label(pid_t pid, const std::string& comm) { return fmt::format("{} ({})", pid, printable(comm)); }

}  // namespace

std::optional<ProcessFacts> read_process_facts(const SysRoot& root, pid_t pid) {
  const std::string dir = proc_dir(pid);
  std::optional<StatLine> stat;
  try {
    stat = read_stat(root, dir);
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!stat) return std::nullopt;
  ProcessFacts f;
  f.pid = pid;
  f.start_time = stat->start_time;
  f.comm = stat->comm;
  f.kernel_thread = (stat->flags & k_pf_kthread) != 0;
  if (f.kernel_thread) return f;
  f.exe = root.read_link(dir + "/exe");
  try {
    f.cmdline = read_cmdline(root, pid);
  } catch (const Error&) {
  }
  try {
    if (auto text = root.read(dir + "/cgroup")) {
      f.cgroup = cgroup_of_proc(*text);
      if (f.cgroup) f.unit = unit_of_cgroup(*f.cgroup);
    }
    if (auto text = root.read(dir + "/status")) {
      for_each_field(*text, [&](std::string_view key, std::string_view value) {
        if (key != "Uid") return true;
        auto first = value.substr(0, value.find_first_of(" \t"));
        if (auto n = parse_pid(first); n || first == "0") f.uid = n ? static_cast<uid_t>(*n) : 0;
        return false;
      });
    }
  } catch (const Error&) {
  }
  // The identity is the one stat gave: a process that was replaced while
  // its files were read is read again by the caller (it is gone here).
  try {
    auto again = read_stat(root, dir);
    if (!again || again->start_time != f.start_time) return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
  return f;
}

struct ApplyEngine::Impl {
  RuleSet rules;
  std::unique_ptr<ApplyWords> words;
  const SysRoot& root;
  LinuxOs& os;
  IrqOs& irqs;
  std::vector<SchedRequest> sched;  // each rule's
  std::vector<RuleCounters> counters;
  struct Known {
    unsigned long long start_time = 0;
    size_t rule = 0;
  };
  std::map<pid_t, Known> known;

  Impl(RuleSet r, std::unique_ptr<ApplyWords> w, const SysRoot& rt, LinuxOs& o, IrqOs& i)
    : rules(std::move(r)), words(std::move(w)), root(rt), os(o), irqs(i) {}

  // Every word of every rule, on this machine: the first that does not
  // resolve refuses the file.
  void check_words() {
    for (Rule& r : rules.rules) {
      auto at = [&](SourcePos pos, auto&& f) {
        try {
          f();
        } catch (const Error& e) {
          throw Error(ErrorKind::Usage, where_in(rules, pos) + e.what(), e.hint());
        }
      };
      if (r.match.user && !r.match.uid)
        at(r.match.user->at, [&] {
          r.match.uid = words->user_id(r.match.user->value);
          if (!r.match.uid) throw Error(ErrorKind::Usage, fmt::format("no such user: {}", printable(r.match.user->value)));
        });
      if (r.mem) at(r.mem->at, [&] { words->check_mem(r.mem->value); });
      if (r.where) at(r.where->at, [&] { words->place(r.where->value, std::nullopt, 0); });
      if (r.where && r.mem) at(r.mem->at, [&] { words->place(r.where->value, r.mem->value, 0); });
      SchedRequest s;
      if (r.policy || r.nice) {
        SourcePos pos = r.policy ? r.policy->at : r.nice->at;
        at(pos, [&] {
          s = words->sched(r.policy ? std::optional<std::string>(r.policy->value) : std::nullopt,
                           r.nice ? std::optional<int>(r.nice->value) : std::nullopt);
        });
      }
      sched.push_back(s);
      for (const auto& t : r.threads) at(t.where.at, [&] { words->place(t.where.value, std::nullopt, 0); });
      for (const auto& i : r.irqs) at(i.where.at, [&] { words->place(i.where.value, std::nullopt, 0); });
    }
    counters.assign(rules.rules.size(), {});
  }

  PinOptions pin_options(size_t rule, bool dry_run, bool check, bool with_sched) {
    PinOptions o;
    o.dry_run = dry_run || check;
    o.check = check;
    if (with_sched) o.sched = sched[rule];
    const Topology& topo = words->topology();
    o.cpuset_of = [this, &topo](pid_t pid, pid_t tid) { return read_thread_cpuset(root, topo, pid, tid); };
    return o;
  }

  // The process step: every thread (with tree, of the tree) to the rule's
  // where, with its scheduling. nullopt where the rule has neither.
  std::optional<PinReport> pin_process(size_t idx, pid_t pid, bool dry_run, bool check, ApplyPlace* placed) {
    const Rule& r = rules.rules[idx];
    if (!r.where && !sched[idx].any()) return std::nullopt;
    PinOptions options = pin_options(idx, dry_run, check, true);
    std::unique_ptr<ForkWatchOs> forks;
    if (r.tree && !options.dry_run) {
      forks = linux_fork_watch();
      options.forks = forks.get();
    }
    auto resolver = [&](const PinRequest& req) {
      PinPlace p;
      if (!r.where) {
        p.keep_cpus = true;
        return p;
      }
      ApplyPlace a = words->place(r.where->value, r.mem ? std::optional<std::string>(r.mem->value) : std::nullopt, req.id);
      p.cpus = a.cpus;
      if (r.spread) {
        p.spread = a.sequence;
        p.per_cpu = r.spread->value;
      }
      if (placed) *placed = std::move(a);
      return p;
    };
    return pin_threads(os, root, {{pid, r.tree ? PinScope::Tree : PinScope::Process}}, resolver, options);
  }

  // The threads step: each thread of `pid` whose name a glob of the rule
  // matches (the first), to that glob's where.
  std::optional<PinReport> pin_named(size_t idx, pid_t pid, bool dry_run, bool check, std::set<pid_t>* named,
                                     std::optional<pid_t> only = std::nullopt) {
    const Rule& r = rules.rules[idx];
    if (r.threads.empty()) return std::nullopt;
    std::map<pid_t, size_t> glob_of;
    auto tids = read_tasks(root, pid);
    if (!tids) return std::nullopt;
    for (pid_t tid : *tids) {
      if (only && tid != *only) continue;
      std::optional<StatLine> st;
      try {
        st = read_stat(root, task_dir(pid, tid));
      } catch (const Error&) {
        continue;
      }
      if (!st) continue;
      if (auto g = first_glob(r.threads, st->comm)) glob_of[tid] = *g;
    }
    if (named)
      for (const auto& [tid, g] : glob_of) named->insert(tid);
    if (glob_of.empty()) return std::nullopt;
    std::vector<PinRequest> requests;
    for (const auto& [tid, g] : glob_of) requests.push_back({tid, PinScope::Thread});
    std::map<size_t, ApplyPlace> places;
    auto resolver = [&](const PinRequest& req) {
      size_t g = glob_of.at(req.id);
      auto it = places.find(g);
      if (it == places.end()) it = places.emplace(g, words->place(r.threads[g].where.value, std::nullopt, pid)).first;
      PinPlace p;
      p.cpus = it->second.cpus;
      return p;
    };
    return pin_threads(os, root, requests, resolver, pin_options(idx, dry_run, check, false));
  }

  void note_match(size_t idx, const ProcessFacts& f, size_t threads) {
    auto it = known.find(f.pid);
    if (it != known.end() && it->second.start_time == f.start_time && it->second.rule == idx) return;
    known[f.pid] = {f.start_time, idx};
    counters[idx].processes_matched += 1;
    counters[idx].threads_matched += threads;
  }

  ProcessOutcome place(const ProcessFacts& f, size_t idx, std::vector<size_t> also, bool dry_run,
                       std::map<pid_t, size_t>* covered) {
    const Rule& r = rules.rules[idx];
    ProcessOutcome o;
    o.pid = f.pid;
    o.start_time = f.start_time;
    o.comm = f.comm;
    o.rule = idx;
    o.also = std::move(also);
    // Where everything is already in place nothing is set (a second run,
    // and enforce, leave a placed process alone: the process step would
    // take a named thread through `where` on its way back to its glob's).
    {
      ApplyCheckReport now;
      check(f, idx, {}, now, false);
      if (now.ok() && now.processes.size() == 1) {
        o.status = ProcessStatus::Already;
        o.processes = 1;
        o.threads = now.processes.front().threads;
        o.text = fmt::format("{}: {} where the rule says (nothing to change)\n", f.pid,
                             plural(o.threads, "thread", "threads"));
        if (!dry_run) note_match(idx, f, o.threads);
        return o;
      }
    }
    std::optional<PinReport> whole, named;
    std::string migrated;
    try {
      ApplyPlace placed;
      whole = pin_process(idx, f.pid, dry_run, false, &placed);
      try {
        named = pin_named(idx, f.pid, dry_run, false, nullptr);
        if (r.mem && whole) {
          std::vector<MigrateTarget> targets;
          for (const auto& t : whole->targets)
            for (const auto& p : t.processes)
              if (!p.exited)
                targets.push_back({p.pid, placed.mem_policy.value_or(MemPolicy::Bind), placed.mem_nodes,
                                   [this, &p] { return identity_of(os, p) == Identity::Same; }});
          MigrateOutput out = migrate_all(os, root, targets, words->topology().node_set(), dry_run);
          migrated = out.text;
          for (auto& w : out.warnings) o.warnings.push_back(std::move(w));
        }
        for (auto& w : placed.warnings) o.warnings.push_back(std::move(w));
      } catch (const Error&) {
        if (!dry_run) {
          if (named) roll_back(os, os, os, *named);
          if (whole) roll_back(os, os, os, *whole);
        }
        throw;
      }
    } catch (const Error& e) {
      o.status = ProcessStatus::Failed;
      o.error = error_text(e);
      auto still = read_stat(root, proc_dir(f.pid));
      if (!still || still->start_time != f.start_time) o.status = ProcessStatus::Gone;
      if (o.status == ProcessStatus::Failed && !dry_run) counters[idx].failures += 1;
      return o;
    }
    size_t procs = 0;
    if (whole) {
      o.threads = live_threads(*whole, procs);
      o.threads_changed += changed_threads(*whole, dry_run);
      for (const auto& t : whole->targets) {
        o.text += format_target(root, t, dry_run, dry_run, sched[idx]);
        if (covered)
          for (const auto& p : t.processes) covered->emplace(p.pid, idx);
      }
    }
    if (named) {
      size_t unused = 0;
      if (!whole) o.threads = live_threads(*named, unused);
      o.threads_changed += changed_threads(*named, dry_run);
      for (const auto& t : named->targets) o.text += format_target(root, t, dry_run, dry_run);
    }
    if (!whole && !named) o.text = fmt::format("{}: no thread of it is named by the rule's threads\n", f.pid);
    o.processes = std::max<size_t>(procs, 1);
    o.text += migrated;
    bool pages = !migrated.empty() && migrated.find(": moved 0 pages") == std::string::npos &&
                 migrated.find("would move 0 pages") == std::string::npos;
    bool changed = o.threads_changed > 0 || (r.mem && pages);
    o.status = dry_run ? (changed ? ProcessStatus::WouldPlace : ProcessStatus::Already)
                       : (changed ? ProcessStatus::Placed : ProcessStatus::Already);
    if (!dry_run) {
      note_match(idx, f, o.threads);
      if (changed) counters[idx].placements += 1;
    }
    return o;
  }

  // The differences of one process against its rule.
  void check(const ProcessFacts& f, size_t idx, std::vector<size_t> also, ApplyCheckReport& out,
             bool count = true) {
    const Rule& r = rules.rules[idx];
    CheckedProcess cp;
    cp.pid = f.pid;
    cp.start_time = f.start_time;
    cp.comm = f.comm;
    cp.rule = idx;
    cp.also = std::move(also);
    size_t before = out.differences.size();
    const std::string name = printable(r.name.value);
    auto add = [&](DifferenceKind kind, pid_t pid, pid_t tid, std::string text) {
      out.differences.push_back({idx, kind, pid, tid, 0, fmt::format("{}: {}", name, text)});
    };
    auto thread_label = [&](pid_t pid, pid_t tid, const std::string& tcomm, const std::string& pcomm) {
      if (pid == tid) return process_label(pid, tcomm);
      return fmt::format("{} of {}", process_label(tid, tcomm), process_label(pid, pcomm));
    };
    try {
      std::set<pid_t> named_tids;
      std::optional<PinReport> named = pin_named(idx, f.pid, false, true, &named_tids);
      ApplyPlace placed;
      std::optional<PinReport> whole = pin_process(idx, f.pid, false, true, &placed);
      auto mem_of = [&](const TargetReport&) -> std::optional<MemExpect> {
        if (!r.mem) return std::nullopt;
        return mem_expect(placed.mem_policy.value_or(MemPolicy::Bind), placed.mem_nodes, true, false, true);
      };
      // With tree: a descendant a rule of its own matches is that rule's.
      std::map<pid_t, bool> own_rule;
      auto skip_pid = [&](pid_t pid) {
        if (pid == f.pid) return false;
        auto it = own_rule.find(pid);
        if (it != own_rule.end()) return it->second;
        bool own = false;
        if (auto df = read_process_facts(root, pid)) {
          auto m = first_match(rules, *df);
          own = m && *m != idx;
        }
        own_rule[pid] = own;
        return own;
      };
      if (whole) {
        size_t procs = 0;
        cp.threads = live_threads(*whole, procs);
        CheckReport c = check_pin(root, *whole, mem_of);
        for (const auto& t : c.targets) {
          for (const auto& o : t.outside) {
            if ((o.pid == f.pid && named_tids.count(o.tid)) || skip_pid(o.pid)) continue;
            add(DifferenceKind::Cpus, o.pid, o.tid,
                fmt::format("{}: cpus {}, not within {}", thread_label(o.pid, o.tid, o.comm, f.comm),
                            format_cpulist(o.cpus), format_cpulist(o.want)));
          }
          for (const auto& o : t.off_policy) {
            if (skip_pid(o.pid)) continue;
            add(DifferenceKind::Sched, o.pid, o.tid,
                fmt::format("{}: {} (asked: {})", thread_label(o.pid, o.tid, o.comm, f.comm),
                            sched_have_text(o.have, sched[idx]), sched_request_text(sched[idx])));
          }
          if (t.mem)
            for (const auto& m : t.memory) {
              if (skip_pid(m.pid)) continue;
              if (!m.readable)
                add(DifferenceKind::Memory, m.pid, 0,
                    fmt::format("{}: memory unknown (numa_maps cannot be read)", m.pid));
              else if (!m.pages_ok)
                add(DifferenceKind::Memory, m.pid, 0,
                    fmt::format("{}: {} of {} anonymous pages outside {}", m.pid, grouped(m.outside),
                                grouped(m.anon_total), nodes_text(t.mem->nodes)));
            }
        }
      }
      if (named) {
        if (!whole) {
          size_t unused = 0;
          cp.threads = live_threads(*named, unused);
        }
        CheckReport c = check_pin(root, *named, [](const TargetReport&) { return std::nullopt; });
        for (const auto& t : c.targets)
          for (const auto& o : t.outside)
            add(DifferenceKind::Cpus, f.pid, o.tid,
                fmt::format("{}: cpus {}, not within {}", thread_label(f.pid, o.tid, o.comm, f.comm),
                            format_cpulist(o.cpus), format_cpulist(o.want)));
      }
    } catch (const Error& e) {
      auto still = read_stat(root, proc_dir(f.pid));
      if (!still || still->start_time != f.start_time) return;  // exited: nothing to check
      add(DifferenceKind::Gone, f.pid, 0, fmt::format("{}: cannot be checked: {}", process_label(f.pid, f.comm), error_text(e)));
    }
    // A thread's lines together, threads in TID order (the memory of a
    // process, TID 0, after its threads).
    std::stable_sort(out.differences.begin() + static_cast<std::ptrdiff_t>(before), out.differences.end(),
                     [](const Difference& a, const Difference& b) {
                       auto key = [](const Difference& d) {
                         return std::make_tuple(d.pid, d.tid == 0 ? k_max_pid + 1 : d.tid, static_cast<int>(d.kind));
                       };
                       return key(a) < key(b);
                     });
    cp.ok = out.differences.size() == before;
    if (!cp.ok && count) counters[idx].drift_seen += 1;
    out.processes.push_back(std::move(cp));
  }

  // Every process now, by start time (ancestors before descendants), each
  // with its first rule.
  struct Matched {
    ProcessFacts facts;
    size_t rule = 0;
    std::vector<size_t> also;
  };
  std::vector<Matched> matched_now() {
    std::vector<Matched> out;
    pid_t self = ::getpid();
    for (pid_t pid : list_pids(root)) {
      if (pid == self) continue;
      auto f = read_process_facts(root, pid);
      if (!f || f->kernel_thread) continue;
      std::vector<size_t> also;
      auto m = first_match(rules, *f, &also);
      if (!m) continue;
      out.push_back({std::move(*f), *m, std::move(also)});
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Matched& a, const Matched& b) { return a.facts.start_time < b.facts.start_time; });
    return out;
  }

  // Each IRQ rule's IRQs: those with an action its globs match, the first
  // glob of the first rule winning; and where each glob sends them.
  struct IrqPlan {
    size_t rule = 0;
    std::vector<IrqTarget> targets;
    std::vector<CpuSet> wants;
    std::vector<size_t> glob_of;  // per target
    std::map<size_t, CpuSet> cpus;  // per glob
  };
  std::vector<IrqPlan> irq_plans() {
    std::vector<IrqPlan> plans;
    bool any = false;
    for (const auto& r : rules.rules) any = any || !r.irqs.empty();
    if (!any) return plans;
    InterruptTable table = read_interrupts(root);
    std::set<unsigned> claimed;
    for (size_t idx = 0; idx < rules.rules.size(); ++idx) {
      const Rule& r = rules.rules[idx];
      if (r.irqs.empty()) continue;
      IrqPlan plan;
      plan.rule = idx;
      for (const auto& line : table.lines) {
        if (claimed.count(line.irq)) continue;
        std::optional<size_t> g;
        for (const auto& action : line.actions)
          if (auto hit = first_glob(r.irqs, action); hit && (!g || *hit < *g)) g = hit;
        if (!g) continue;
        claimed.insert(line.irq);
        auto it = plan.cpus.find(*g);
        if (it == plan.cpus.end()) it = plan.cpus.emplace(*g, words->place(r.irqs[*g].where.value, std::nullopt, 0).cpus).first;
        plan.targets.push_back({line.irq, irq_actions(table, line.irq)});
        plan.wants.push_back(it->second);
        plan.glob_of.push_back(*g);
      }
      plans.push_back(std::move(plan));
    }
    return plans;
  }
};

ApplyEngine::ApplyEngine(RuleSet rules, std::unique_ptr<ApplyWords> words, const SysRoot& root, LinuxOs& os,
                         IrqOs& irqs)
  : m(std::make_unique<Impl>(std::move(rules), std::move(words), root, os, irqs)) {
  m->check_words();
}

ApplyEngine::~ApplyEngine() = default;

const RuleSet& ApplyEngine::rules() const { return m->rules; }
const std::vector<RuleCounters>& ApplyEngine::counters() const { return m->counters; }

void ApplyEngine::adopt_counters(const ApplyEngine& before) {
  for (size_t i = 0; i < m->rules.rules.size(); ++i)
    for (size_t j = 0; j < before.m->rules.rules.size(); ++j)
      if (before.m->rules.rules[j].name.value == m->rules.rules[i].name.value) m->counters[i] = before.m->counters[j];
}

void ApplyEngine::forget(pid_t pid) { m->known.erase(pid); }

std::optional<size_t> ApplyEngine::rule_of(pid_t pid, unsigned long long start_time) const {
  auto it = m->known.find(pid);
  if (it == m->known.end() || it->second.start_time != start_time) return std::nullopt;
  return it->second.rule;
}

ApplyReport ApplyEngine::apply_all(bool dry_run) {
  ApplyReport report;
  report.dry_run = dry_run;
  std::vector<bool> hit(m->rules.rules.size(), false);
  std::map<pid_t, size_t> covered;  // placed with a tree rule's process, by that rule
  for (auto& x : m->matched_now()) {
    // A descendant a tree placed: placed again only by a rule of its own
    // that is not that tree's (ancestors come first, so its own wins).
    auto c = covered.find(x.facts.pid);
    if (c != covered.end() && c->second == x.rule) {
      hit[x.rule] = true;
      continue;
    }
    hit[x.rule] = true;
    report.processes.push_back(m->place(x.facts, x.rule, std::move(x.also), dry_run, &covered));
  }
  for (auto& plan : m->irq_plans()) {
    if (plan.targets.empty()) continue;
    hit[plan.rule] = true;
    IrqPinResult result;
    bool failed = false;
    std::string error;
    try {
      result = pin_irqs(m->irqs, plan.targets, plan.wants, dry_run);
    } catch (const Error& e) {
      failed = true;
      error = error_text(e);
      m->counters[plan.rule].failures += dry_run ? 0 : 1;
    }
    // One outcome per glob, its IRQs in order.
    for (const auto& [g, cpus] : plan.cpus) {
      IrqOutcome o;
      o.rule = plan.rule;
      o.glob = g;
      o.cpus = cpus;
      o.failed = failed;
      o.error = error;
      for (size_t i = 0; i < plan.targets.size(); ++i) {
        if (plan.glob_of[i] != g) continue;
        if (failed) {
          o.result.moves.push_back({plan.targets[i], {}, plan.wants[i], std::nullopt, false, 0});
        } else if (i < result.moves.size()) {
          o.result.moves.push_back(result.moves[i]);
          if (result.moves[i].changed && !dry_run) m->counters[plan.rule].placements += 1;
        }
      }
      if (!failed) o.result.warnings = result.warnings;
      report.irqs.push_back(std::move(o));
    }
  }
  for (size_t i = 0; i < hit.size(); ++i)
    if (!hit[i]) report.unmatched.push_back(i);
  return report;
}

ApplyCheckReport ApplyEngine::check_all() {
  ApplyCheckReport report;
  std::vector<bool> hit(m->rules.rules.size(), false);
  for (auto& x : m->matched_now()) {
    hit[x.rule] = true;
    // A tree's descendant that a rule of its own matches is checked
    // against that rule (the tree's check leaves it out: skip_pid).
    m->check(x.facts, x.rule, std::move(x.also), report);
  }
  for (auto& plan : m->irq_plans()) {
    if (plan.targets.empty()) continue;
    hit[plan.rule] = true;
    IrqCheckReport c = check_irqs(m->irqs, plan.targets, plan.wants);
    report.irqs_checked += c.irqs.size();
    bool drift = false;
    for (const auto& i : c.irqs) {
      if (i.ok) continue;
      drift = true;
      std::string have = i.cpus ? "cpus " + format_cpulist(*i.cpus) : std::string("cpus unreadable");
      if (i.effective && !i.effective->is_subset_of(i.want)) have += ", effective " + format_cpulist(*i.effective);
      report.differences.push_back({plan.rule, DifferenceKind::Irq, 0, 0, i.target.irq,
                                    fmt::format("{}: {}: {}, not within {}", printable(m->rules.rules[plan.rule].name.value),
                                                irq_label(i.target), have, format_cpulist(i.want))});
    }
    if (drift) m->counters[plan.rule].drift_seen += 1;
  }
  for (size_t i = 0; i < hit.size(); ++i)
    if (!hit[i]) report.unmatched.push_back(i);
  return report;
}

namespace {

// The process's facts; its start time and comm in `o` (Gone where it is not there).
std::optional<ProcessFacts> facts_into(const SysRoot& root, pid_t pid, ProcessOutcome& o) {
  o.pid = pid;
  auto f = read_process_facts(root, pid);
  if (!f) {
    o.status = ProcessStatus::Gone;
    return f;
  }
  o.start_time = f->start_time;
  o.comm = f->comm;
  return f;
}

}  // namespace

ProcessOutcome ApplyEngine::apply_process(pid_t pid, bool dry_run) {
  ProcessOutcome o;
  auto f = facts_into(m->root, pid, o);
  if (!f) return o;
  std::vector<size_t> also;
  auto idx = f->kernel_thread ? std::nullopt : first_match(m->rules, *f, &also);
  if (!idx) {
    m->known.erase(pid);
    return o;
  }
  return m->place(*f, *idx, std::move(also), dry_run, nullptr);
}

ProcessOutcome ApplyEngine::apply_thread(pid_t pid, pid_t tid) {
  ProcessOutcome o;
  o.tid = tid;
  auto f = facts_into(m->root, pid, o);
  if (!f) return o;
  auto idx = f->kernel_thread ? std::nullopt : first_match(m->rules, *f);
  if (!idx) return o;
  o.rule = idx;
  const Rule& r = m->rules.rules[*idx];
  try {
    std::optional<PinReport> report = m->pin_named(*idx, pid, false, false, nullptr, tid);
    if (!report && (r.where || m->sched[*idx].any())) {
      PinOptions options = m->pin_options(*idx, false, false, true);
      auto resolver = [&](const PinRequest&) {
        PinPlace p;
        if (!r.where) {
          p.keep_cpus = true;
          return p;
        }
        p.cpus = m->words->place(r.where->value, std::nullopt, pid).cpus;
        return p;
      };
      report = pin_threads(m->os, m->root, {{tid, PinScope::Thread}}, resolver, options);
    }
    if (!report) {
      o.status = ProcessStatus::Already;
      return o;
    }
    size_t unused = 0;
    o.threads = live_threads(*report, unused);
    o.processes = 1;
    o.threads_changed = changed_threads(*report, false);
    for (const auto& t : report->targets) o.text += format_target(m->root, t, false, false);
  } catch (const Error& e) {
    std::optional<StatLine> still;
    try {
      still = read_stat(m->root, task_dir(pid, tid));
    } catch (const Error&) {
    }
    if (!still) {
      o.status = ProcessStatus::Gone;
      return o;
    }
    o.status = ProcessStatus::Failed;
    o.error = error_text(e);
    m->counters[*idx].failures += 1;
    return o;
  }
  m->counters[*idx].threads_matched += o.threads;
  o.status = o.threads_changed > 0 ? ProcessStatus::Placed : ProcessStatus::Already;
  if (o.threads_changed > 0) m->counters[*idx].placements += 1;
  return o;
}

ApplyCheckReport ApplyEngine::check_process(pid_t pid) {
  ApplyCheckReport report;
  auto f = read_process_facts(m->root, pid);
  if (!f || f->kernel_thread) return report;
  std::vector<size_t> also;
  auto idx = first_match(m->rules, *f, &also);
  if (!idx) return report;
  m->check(*f, *idx, std::move(also), report);
  return report;
}

ProcessOutcome ApplyEngine::enforce_process(pid_t pid) {
  ApplyCheckReport c = check_process(pid);
  if (c.processes.empty()) {
    ProcessOutcome o;
    o.pid = pid;
    o.status = read_process_facts(m->root, pid) ? ProcessStatus::NoRule : ProcessStatus::Gone;
    return o;
  }
  const CheckedProcess& cp = c.processes.front();
  if (c.ok() || !m->rules.rules[cp.rule].enforce) {
    ProcessOutcome o;
    o.pid = pid;
    o.start_time = cp.start_time;
    o.comm = cp.comm;
    o.rule = cp.rule;
    o.also = cp.also;
    o.threads = cp.threads;
    o.status = ProcessStatus::Already;
    return o;
  }
  ProcessOutcome o = apply_process(pid, false);
  if (o.status == ProcessStatus::Placed && o.rule) m->counters[*o.rule].drift_undone += 1;
  return o;
}

}  // namespace affix
