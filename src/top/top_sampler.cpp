#include "top_sampler.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <thread>

#include <fmt/format.h>

#include "error.hpp"
#include "machine_tree.hpp"
#include "top_batch.hpp"
#include "perf_events.hpp"
#include "proc.hpp"
#include "text.hpp"
#include "watch_pages.hpp"
#include "watch_tracker.hpp"

namespace affix {

namespace {

double percent_of(uint64_t ns, double interval) {
  return interval > 0 ? static_cast<double>(ns) / 1e9 / interval * 100.0 : 0.0;
}

}  // namespace

TopSampler::TopSampler(const SysRoot& root, const Topology& topo, AffinityOs& affinity, TopFilter filter,
                       CpuSet shielded)
  : m_root(root), m_topo(topo), m_affinity(affinity), m_filter(std::move(filter)),
    m_shielded(std::move(shielded)) {
  if (m_filter.name) {
    std::optional<std::string> why = regex_overlong_number(*m_filter.name);
    if (!why) {
      try {
        m_name.emplace(*m_filter.name, std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error& e) {
        why = e.what();
      }
    }
    if (why)
      throw Error(ErrorKind::Usage, fmt::format("invalid --name '{}': not a regular expression ({})",
                                                *m_filter.name, *why));
  }
  m_nohz = read_nohz_full(m_root);
  // Named PIDs: watched though idle; else the whole machine.
  m_tracker = std::make_unique<WatchTracker>(m_root, m_topo, m_affinity, nullptr, m_filter.pids, true);
  m_tracker->skip_unmoved(true);
}

TopSampler::~TopSampler() = default;

size_t TopSampler::threads_read() const { return m_tracker->threads_read(); }
size_t TopSampler::threads_skipped() const { return m_tracker->threads_skipped(); }

bool TopSampler::wanted(pid_t pid, const std::string& comm) {
  if (m_name && !std::regex_search(comm, *m_name)) return false;
  if (m_filter.tree) {
    // Up the parents (read once a frame each) to the tree's root or to 1.
    pid_t at = pid;
    for (int depth = 0; depth < 4096 && at > 0; ++depth) {
      if (at == *m_filter.tree) return true;
      if (at == 1) return false;
      auto found = m_parent.find(at);
      if (found == m_parent.end()) {
        std::optional<StatLine> st;
        try {
          st = read_stat(m_root, proc_dir(at));
        } catch (const Error&) {
        }
        found = m_parent.emplace(at, st ? st->ppid : 0).first;
      }
      at = found->second;
    }
    return false;
  }
  return true;
}

TopFrame TopSampler::frame_cpus(double interval) {
  TopFrame f;
  f.interval = interval;
  if (!m_machine) m_machine = std::make_shared<const Box>(machine_picture(m_topo).root);
  f.machine = m_machine;
  auto stat = read_proc_stat(m_root);
  if (!stat) f.warnings.push_back("cannot read /proc/stat: no busy figures");
  std::optional<IrqCounts> irqs;
  try {
    irqs = read_interrupt_totals(m_root);
  } catch (const Error& e) {
    f.warnings.push_back(e.what());
  }
  if (!irqs) f.warnings.push_back("cannot read /proc/interrupts: no IRQ figures");
  std::vector<long> socket_of(m_topo.cpus.size(), -1);
  for (size_t i = 0; i < m_topo.sockets.size(); ++i)
    m_topo.sockets[i].cpus.for_each([&](unsigned c) {
      if (c < socket_of.size()) socket_of[c] = static_cast<long>(i);
    });
  for (unsigned c : m_topo.possible.members()) {
    if (m_filter.cpus && !m_filter.cpus->test(c)) continue;
    TopCpu cpu;
    cpu.cpu = c;
    if (c < m_topo.cpus.size()) {
      const CpuInfo& info = m_topo.cpus[c];
      cpu.node = info.node;
      cpu.socket = socket_of[c];
      cpu.llc = info.llc;
      cpu.core = info.core;
    }
    cpu.online = m_topo.online.test(c);
    if (!cpu.online) cpu.marks.emplace_back("offline");
    if (m_topo.isolated.test(c)) cpu.marks.emplace_back("isolated");
    if (m_nohz.test(c)) cpu.marks.emplace_back("nohz_full");
    if (m_shielded.test(c)) cpu.marks.emplace_back("shielded");
    if (m_stat && stat) {
      auto before = m_stat->find(c), now = stat->find(c);
      if (before != m_stat->end() && now != stat->end()) {
        if (auto b = busy_between(before->second, now->second)) {
          cpu.busy = b->busy;
          cpu.user = b->user;
          cpu.system = b->system;
          cpu.irq = b->irq;
          cpu.softirq = b->softirq;
        }
      }
    }
    if (m_irqs && irqs && interval > 0) {
      auto before = m_irqs->find(c), now = irqs->find(c);
      if (before != m_irqs->end() && now != irqs->end() && now->second >= before->second)
        cpu.irqs_per_s = static_cast<double>(now->second - before->second) / interval;
    }
    f.cpus.push_back(std::move(cpu));
  }
  m_stat = std::move(stat);
  m_irqs = std::move(irqs);
  return f;
}

void TopSampler::open_events() {
  if (!m_want_events) return;
  m_why_no_events.clear();
  if (m_given) {
    m_switches = std::move(m_given);
    m_events_from = m_clock ? m_clock() : monotonic_ns();
    return;
  }
  if (!m_root.is_default()) {
    m_why_no_events = "not the machine's own /proc (--root)";
    return;
  }
  CpuSet mine;
  if (m_affinity.get_affinity(0, mine) != 0 || !m_topo.online.is_subset_of(mine)) {
    m_why_no_events = "affix may not run on every online CPU";
    return;
  }
  if ((m_topo.isolated | m_nohz | m_shielded).intersects(m_topo.online)) {
    m_why_no_events = "an online CPU is isolated, nohz_full or shielded";
    return;
  }
  m_switches = open_switch_events(m_topo.online.members(), k_switch_ring_pages, m_why_no_events);
  m_events_from = monotonic_ns();
}

std::optional<IntervalReport> TopSampler::events_report(double time, double interval) {
  // Every online CPU switches: what ran there since its last switch is seen.
  if (!visit_cpus()) {
    m_lost = fmt::format("a CPU could not be visited within {} ms", k_visit_ms + 2 * m_topo.online.count());
    return std::nullopt;
  }
  uint64_t to = m_clock ? m_clock() : monotonic_ns();
  std::vector<SwitchRecord> records;
  if (!m_switches->take(records)) {
    m_lost = "the scheduler's events lost records";
    return std::nullopt;
  }
  return m_tracker->sample_switches(tally_switches(std::move(records), m_events_from, to, LevelMap(m_topo)), time,
                                    interval);
}

bool TopSampler::visit_cpus() {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  AffinityOs* affinity = &m_affinity;
  std::thread([affinity, cpus = m_topo.online.members(), done] {
    for (unsigned c : cpus) affinity->set_affinity(0, CpuSet::range(c, c));
    done->set_value();
  }).detach();
  auto limit = std::chrono::milliseconds(k_visit_ms + 2 * m_topo.online.count());
  return finished.wait_for(limit) == std::future_status::ready;
}

void TopSampler::restart() {
  m_switches.reset();
  m_want_events = false;
  m_why_no_events = m_lost;
  m_lost.clear();
  m_started = false;
  m_last = 0;
  m_stat.reset();
  m_irqs.reset();
}

void TopSampler::wait(double seconds) {
  if (!m_switches) return top_sleep(seconds);
  uint64_t deadline = monotonic_ns() + static_cast<uint64_t>(seconds * 1e9);
  while (!m_switches->wait_until(deadline)) {
  }
}

TopFrame TopSampler::next() {
  uint64_t now_ns = m_clock ? m_clock() : monotonic_ns();
  if (!m_started) {
    m_started = true;
    m_start_ns = now_ns;
    open_events();
    if (m_switches) {
      for (pid_t pid : m_filter.pids)
        if (!m_root.exists(proc_dir(pid))) m_missing.push_back(pid);
    } else {
      m_missing = m_tracker->start();
    }
    TopFrame f = frame_cpus(0);
    return f;
  }
  double now = static_cast<double>(now_ns - m_start_ns) / 1e9;
  double interval = now - m_last;
  m_last = now;
  IntervalReport report;
  if (m_switches) {
    auto got = events_report(now, interval);
    if (!got) {
      TopFrame f = frame_cpus(interval);
      f.time = now;
      return f;
    }
    report = std::move(*got);
  } else {
    report = m_tracker->sample(now, interval);
  }
  TopFrame f = frame_cpus(interval);
  f.time = now;
  if (m_switches) f.source = "events";
  m_parent.clear();
  // Threads by the CPU they last ran on.
  std::map<unsigned, std::vector<TopThread>> on_cpu;
  for (const ProcessReport& r : report.processes) {
    if (!wanted(r.pid, r.comm)) continue;
    bool on_where = !m_filter.cpus;
    for (const ThreadReport& t : r.thread_list) {
      if (t.activity.cpu_ns == 0 || t.cpu < 0) continue;
      unsigned c = static_cast<unsigned>(t.cpu);
      if (m_filter.cpus && !m_filter.cpus->test(c)) continue;
      on_where = true;
      on_cpu[c].push_back(TopThread{r.pid, t.tid, t.comm, percent_of(t.activity.cpu_ns, interval)});
    }
    if (m_filter.cpus && r.cpus_ran.intersects(*m_filter.cpus)) on_where = true;
    bool named = !m_filter.pids.empty();
    if (!on_where || (!named && r.activity.cpu_ns == 0)) continue;
    TopProcess p;
    p.pid = r.pid;
    p.comm = r.comm;
    p.percent = percent_of(r.activity.cpu_ns, interval);
    p.threads = r.threads;
    p.migrations = r.activity.migrations;
    p.pages = r.anon_pages;
    p.ran_nodes = r.ran_nodes;
    if (auto share = r.remote_share()) p.remote_share = *share / 100.0;
    // Its main thread's CPU list: the kernel's under the default root, else status.
    CpuSet allowed;
    if (m_root.is_default()) {
      if (m_affinity.get_affinity(r.pid, allowed) != 0) allowed = CpuSet();
    } else {
      try {
        if (auto st = read_status(m_root, proc_dir(r.pid))) allowed = st->cpus;
      } catch (const Error&) {
      }
    }
    p.allowed = allowed;
    p.pinned = !allowed.empty() && !m_topo.online.is_subset_of(allowed);
    f.processes.push_back(std::move(p));
  }
  for (TopCpu& cpu : f.cpus) {
    auto found = on_cpu.find(cpu.cpu);
    if (found == on_cpu.end()) continue;
    auto& list = found->second;
    std::stable_sort(list.begin(), list.end(), [](const TopThread& a, const TopThread& b) {
      return a.percent != b.percent ? a.percent > b.percent : a.tid < b.tid;
    });
    if (list.size() > k_threads_per_cpu) list.resize(k_threads_per_cpu);
    cpu.threads = std::move(list);
  }
  std::stable_sort(f.processes.begin(), f.processes.end(), [](const TopProcess& a, const TopProcess& b) {
    return a.percent != b.percent ? a.percent > b.percent : a.pid < b.pid;
  });
  return f;
}

}  // namespace affix
