#include "watch_tracker.hpp"

#include <unistd.h>

#include <algorithm>
#include <set>

#include "error.hpp"
#include "os.hpp"
#include "proc.hpp"
#include "watch_pages.hpp"

namespace affix {

struct WatchTracker::Process {
  pid_t pid = 0;
  unsigned long long start_time = 0;
  std::string comm;
  bool kernel_thread = false;
  std::map<pid_t, ThreadWatch> threads;         // alive, as far as known
  std::map<pid_t, ThreadInterval> first;        // threads begun this sample: their first interval
  std::map<pid_t, ThreadReport> thread_totals;  // with a thread list: each thread's, over the run
  unsigned threads_seen = 0;                    // every thread reported
  std::set<pid_t> exited_now, exited_before;    // TIDs that exited in this and the last interval
  std::set<pid_t> unread;                       // TIDs unread in some interval
  CpuSet seen;                                  // CPUs its threads were seen on
  ProcessReport total;                          // over the run
  bool reported = false;
  bool exited = false;
  // Its main thread is a zombie (it called pthread_exit) while others run:
  // not watched, still in the kernel's thread count; the memory is read
  // from a live thread's files.
  bool zombie_leader = false;
  // The process's own CPU time (proc/PID/stat, ended threads included) at
  // the last sample, and how much more of it than its threads were counted
  // (signed: the threads are read a moment after it) not yet reported as
  // threads that came and went.
  std::optional<uint64_t> cpu_total;
  int64_t unseen = 0;
  double since = 0;  // when it started to be watched
  // Found between two samples (find_descendants): its first interval, read
  // then, goes on to this sample.
  bool found_between = false;
  ProcessPages pages;
};

namespace {

constexpr size_t k_max_ended = 10000;  // exited processes listed in the summary

void add_thread_report(ProcessReport& r, ThreadReport t, bool listed) {
  r.activity += t.activity;
  r.exact = r.exact && t.exact;
  ++r.threads;
  if (listed) r.thread_list.push_back(std::move(t));
}

// Two parts of one thread's interval, one after the other.
void merge(ThreadInterval& a, const ThreadInterval& b) {
  a.activity += b.activity;
  a.ran_on |= b.ran_on;
  a.exact = a.exact && b.exact;
  a.active = a.active || b.active;
  a.exited = b.exited;
}

ThreadReport thread_report(const ThreadWatch& t, const ThreadInterval& ti) {
  return ThreadReport{t.tid(), t.comm(), t.cpu(), ti.activity, ti.exact, ti.exited};
}

// The process's stat line: its comm, start time, thread count, its main
// thread's state, and its CPU time, that of every thread it had (the kernel
// walks its threads for it: 2 to 19 ms for 10,000 on a busy 2-CPU machine).
std::optional<StatLine> stat_of(const SysRoot& root, pid_t pid) {
  try {
    return read_stat(root, proc_dir(pid));
  } catch (const Error&) {
    return std::nullopt;  // not a stat line: as good as gone
  }
}

std::optional<StatLine> stat_of_thread(const SysRoot& root, pid_t pid, pid_t tid) {
  try {
    return read_stat(root, task_dir(pid, tid));
  } catch (const Error&) {
    return std::nullopt;
  }
}

uint64_t ticks_to_ns(unsigned long long ticks) {
  static const long hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  return static_cast<uint64_t>(ticks) * (1000000000ull / static_cast<uint64_t>(hz));
}

// More CPU time than this in the process's total than its threads counted
// is threads that came and went: the total is read in clock ticks, each of
// utime and stime rounded down (up to 2 ticks too few at the reading the
// count starts from), and 5 ms to spare. The threads are read after the
// total: they can only be counted ahead of it, which the next sample evens.
int64_t unseen_margin() { return static_cast<int64_t>(ticks_to_ns(2)) + 5000000; }

bool is_zombie(const StatLine& st) { return st.state == 'Z' || st.state == 'X'; }

// Whether `cpu` is in thread `tid`'s CPU list: where it is not, the thread
// has not run since its list changed (a pin), and is counted on no CPU
// until it runs (WATCH in the man page). On the machine's own /proc the
// list is the kernel's (`affinity`: no file to read, so an idle thread still
// costs one small read); under another root, its status. True where the
// list cannot be read.
bool in_cpu_list(const SysRoot& root, AffinityOs& affinity, pid_t pid, pid_t tid, long cpu) {
  CpuSet cpus;
  if (root.is_default()) {
    if (affinity.get_affinity(tid, cpus) != 0) return true;
  } else {
    std::optional<StatusInfo> status;
    try {
      status = read_status(root, task_dir(pid, tid));
    } catch (const Error&) {
    }
    if (!status) return true;
    cpus = status->cpus;
  }
  return cpus.test(static_cast<unsigned>(cpu));
}

}  // namespace

WatchTracker::WatchTracker(const SysRoot& root, const Topology& topo, AffinityOs& affinity,
                           MigrationEvents* events, std::vector<pid_t> pids, bool thread_list, bool tree)
  : m_root(root), m_topo(topo), m_levels(topo), m_affinity(affinity), m_events(events),
    m_named(std::move(pids)), m_thread_list(thread_list || !m_named.empty()), m_tree(tree && !m_named.empty()) {}

WatchTracker::~WatchTracker() {
  WatchContext cx{m_root, m_levels, m_events};
  for (auto& [pid, p] : m_live)
    for (auto& [tid, t] : p->threads) t.close(cx);
}

std::vector<pid_t> WatchTracker::start() {
  std::vector<pid_t> missing;
  if (m_named.empty()) {
    for (pid_t pid : list_pids(m_root)) add_process(pid, false, 0);
    return missing;
  }
  for (pid_t pid : m_named) {
    if (m_live.count(pid) || add_process(pid, false, 0, false)) continue;
    auto st = stat_of(m_root, pid);
    if (st && is_zombie(*st)) m_zombies.push_back(Zombie{pid, st->ppid});
    else missing.push_back(pid);
  }
  if (m_tree) add_descendants(false, 0);
  return missing;
}

void WatchTracker::find_descendants() {
  if (m_tree) add_descendants(true, m_time);
}

// Breadth first from every process watched: each one's children (its
// threads' children files), or, where those cannot be trusted
// (read_children), the processes whose parent it is, from one reading of
// every process's stat.
void WatchTracker::add_descendants(bool since_creation, double time) {
  std::vector<pid_t> queue;
  for (const auto& [pid, p] : m_live)
    if (!p->exited) queue.push_back(pid);
  std::optional<std::multimap<pid_t, pid_t>> by_parent;
  for (size_t i = 0; i < queue.size(); ++i) {
    pid_t pid = queue[i];
    auto children = read_children(m_root, pid);
    if (!children) {
      if (!m_root.exists(proc_dir(pid))) continue;  // gone: its children went to another parent
      if (!by_parent) {
        by_parent.emplace();
        for (pid_t other : list_pids(m_root))
          if (auto st = stat_of(m_root, other)) by_parent->emplace(st->ppid, other);
      }
      children.emplace();
      auto [from, to] = by_parent->equal_range(pid);
      for (auto it = from; it != to; ++it) children->push_back(it->second);
    }
    for (pid_t child : *children)
      if (!m_live.count(child) && add_process(child, since_creation, time, since_creation))
        queue.push_back(child);
  }
}

bool WatchTracker::add_process(pid_t pid, bool since_creation, double time, bool between) {
  auto st = stat_of(m_root, pid);
  if (!st) return false;
  auto tids = read_tasks(m_root, pid);
  if (!tids) return false;
  auto p = std::make_unique<Process>();
  p->pid = pid;
  p->start_time = st->start_time;
  p->comm = st->comm;
  p->kernel_thread = (st->flags & k_pf_kthread) != 0;
  p->zombie_leader = is_zombie(*st);
  p->since = time;
  p->found_between = between;
  p->total.pid = pid;
  p->total.exact = m_events != nullptr;
  WatchContext cx{m_root, m_levels, m_events};
  for (pid_t tid : *tids) {
    ThreadWatch t(tid);
    auto first = t.begin(cx, pid, since_creation, p->seen);
    if (!first) continue;
    p->seen |= first->ran_on;
    if (first->cpu >= 0 && first->cpu < static_cast<long>(k_max_id)) p->seen.set(static_cast<unsigned>(first->cpu));
    if (since_creation || first->unread) p->first.emplace(tid, *first);
    p->threads.emplace(tid, std::move(t));
  }
  if (p->threads.empty()) return false;
  // Its CPU time from here on (the threads' counters were read just
  // before); one created during the watch: all of it, as its threads'.
  if (since_creation) p->cpu_total = 0;
  else if (auto now = stat_of(m_root, pid); now && now->start_time == p->start_time)
    p->cpu_total = ticks_to_ns(now->cpu_ticks);
  m_live.emplace(pid, std::move(p));
  return true;
}

void WatchTracker::scan_machine(double time) {
  for (pid_t pid : list_pids(m_root))
    if (!m_live.count(pid)) add_process(pid, true, time);
}

IntervalReport WatchTracker::sample(double time, double interval) {
  double before = m_time;
  m_time = time;
  if (m_named.empty()) scan_machine(before);
  IntervalReport report;
  report.time = time;
  report.interval = interval;
  report.exact = m_events != nullptr;
  m_threads_read = m_threads_skipped = 0;
  for (auto it = m_live.begin(); it != m_live.end();) {
    Process& p = *it->second;
    ProcessReport r;
    update_process(p, r);
    if (!m_named.empty() || !r.activity.idle()) {
      report.exact = report.exact && r.exact;
      p.reported = true;
      report.processes.push_back(std::move(r));
    }
    if (p.exited) {
      // Kept for the summary where it was reported, without its threads;
      // memory stays bounded on a machine that starts processes all day.
      p.threads.clear();
      if (!p.reported) {
        // never shown: nothing to sum up
      } else if (m_ended.size() < k_max_ended) {
        m_ended.push_back(std::move(it->second));
      } else {
        ++m_unlisted;
      }
      it = m_live.erase(it);
    } else {
      ++it;
    }
  }
  return report;
}

IntervalReport WatchTracker::sample_switches(const std::map<pid_t, SwitchThread>& ran, double time,
                                             double interval) {
  m_time = time;
  IntervalReport report;
  report.time = time;
  report.interval = interval;
  report.exact = true;
  std::map<pid_t, std::vector<std::pair<pid_t, const SwitchThread*>>> by_pid;
  if (m_named.empty()) {
    for (const auto& [tid, t] : ran) by_pid[t.pid].emplace_back(tid, &t);
  } else {
    for (pid_t pid : m_named) by_pid[pid];
    for (const auto& [tid, t] : ran)
      if (auto found = by_pid.find(t.pid); found != by_pid.end()) found->second.emplace_back(tid, &t);
  }
  for (const auto& [pid, list] : by_pid) {
    auto st = stat_of(m_root, pid);
    if (!st || is_zombie(*st)) continue;  // exited: not reported
    Process p;
    p.pid = pid;
    p.start_time = st->start_time;
    p.comm = st->comm;
    p.kernel_thread = (st->flags & k_pf_kthread) != 0;
    p.total.exact = true;
    ProcessReport r;
    r.pid = pid;
    r.comm = st->comm;
    r.exact = true;
    for (const auto& [tid, t] : list) {
      std::optional<StatLine> ts = tid == pid ? st : stat_of_thread(m_root, pid, tid);
      if (!ts || is_zombie(*ts)) {  // exited since it ran: its time is the process's
        r.came_and_went_ns += t->cpu_ns;
        r.activity.cpu_ns += t->cpu_ns;
        r.activity.migrations += t->migrations;
        r.cpus_ran |= t->ran_on;
        continue;
      }
      ThreadReport tr;
      tr.tid = tid;
      tr.comm = ts->comm;
      tr.cpu = t->cpu;
      tr.activity.cpu_ns = t->cpu_ns;
      tr.activity.migrations = t->migrations;
      tr.activity.wait_unread = true;  // the events have no run-queue wait
      tr.exact = true;
      r.cpus_ran |= t->ran_on;
      r.activity += tr.activity;
      if (m_thread_list) r.thread_list.push_back(std::move(tr));
    }
    r.threads = static_cast<unsigned>(st->num_threads);
    // None ran: no CPU, as sample() has a process whose total did not move
    // under top's cost rule (skip_unmoved).
    p.threads_seen = r.threads;
    finish_report(p, r);
    report.processes.push_back(std::move(r));
  }
  return report;
}

void WatchTracker::update_process(Process& p, ProcessReport& r) {
  WatchContext cx{m_root, m_levels, m_events};
  auto st = stat_of(m_root, p.pid);
  // There but unreadable (no file left to open): not gone, its thread list
  // not checked, so not exact.
  bool unread = !st && m_root.exists(task_dir(p.pid, p.pid));
  bool gone = st ? st->start_time != p.start_time : !unread;
  if (st && !gone) {
    p.comm = st->comm;
    p.zombie_leader = is_zombie(*st);
  }
  r.pid = p.pid;
  r.comm = p.comm;
  r.exact = m_events != nullptr && !unread;
  // Nothing moved (skip_unmoved): no thread read, none taken as run.
  if (m_skip_unmoved && st && !gone && !p.zombie_leader && p.first.empty() && p.cpu_total &&
      ticks_to_ns(st->cpu_ticks) == *p.cpu_total && st->num_threads == p.threads.size()) {
    m_threads_skipped += p.threads.size();
    p.exited_before = std::move(p.exited_now);
    p.exited_now.clear();
    r.threads = static_cast<unsigned>(p.threads.size());
    r.exact = false;
    finish_report(p, r);
    return;
  }
  m_threads_read += p.threads.size();
  CpuSet last_cpus;  // where its threads last ran: cpus_ran where none ran
  p.exited_before = std::move(p.exited_now);
  p.exited_now.clear();
  bool any_ran = false;  // set below, before record is called
  bool some_late = false;  // a thread read for the first time though there before
  auto record = [&](ThreadWatch& t, const ThreadInterval& ti) {
    if (ti.exited) p.exited_now.insert(t.tid());
    if (ti.late) some_late = true;
    if (ti.unread) {  // counted, never shown as read
      ++r.threads_unread;
      r.exact = false;
      r.activity.wait_unread = true;  // its wait is missing: the process's is a lower bound
      p.unread.insert(t.tid());
      return;
    }
    if (!t.reported()) {
      t.mark_reported();
      ++p.threads_seen;
    }
    ThreadReport tr = thread_report(t, ti);
    // One that did not run counts where it last ran only where that CPU is
    // still in its list; it is read only where it is shown (the thread
    // list, or cpus_ran where no thread ran).
    bool idle = ti.ran_on.empty() && !ti.exited;
    long last = ti.cpu;
    if (idle && last >= 0 && last < static_cast<long>(k_max_id) && (m_thread_list || !any_ran) &&
        !in_cpu_list(m_root, m_affinity, p.pid, t.tid(), last)) {
      last = -1;
      tr.cpu = -1;
    }
    // The summary's thread list: at most k_max_ended threads per process.
    auto found = p.thread_totals.find(t.tid());
    if (m_thread_list && (found != p.thread_totals.end() || p.thread_totals.size() < k_max_ended)) {
      auto& total = p.thread_totals[t.tid()];
      bool first_time = total.tid == 0;
      total.tid = t.tid();
      total.comm = t.comm();
      total.cpu = tr.cpu;
      total.activity += ti.activity;
      total.exact = (first_time || total.exact) && ti.exact;
      total.exited = ti.exited;
    }
    r.cpus_ran |= ti.ran_on;
    p.seen |= ti.ran_on;
    if (last >= 0 && last < static_cast<long>(k_max_id)) last_cpus.set(static_cast<unsigned>(last));
    add_thread_report(r, std::move(tr), m_thread_list);
  };
  // What each thread did, ascending TID (p.threads is a map) but for the
  // new threads appended at the end: no map built at every interval.
  std::vector<std::pair<pid_t, ThreadInterval>> got;
  got.reserve(p.threads.size());
  size_t alive = 0;
  for (auto& [tid, t] : p.threads) {
    auto first = p.first.find(tid);
    // A main thread that became a zombie is done: what its event still holds.
    bool done = gone || (p.zombie_leader && tid == p.pid);
    ThreadInterval ti = first != p.first.end() ? first->second : t.update(cx, p.pid, p.seen, done);
    if (first != p.first.end() && p.found_between) merge(ti, t.update(cx, p.pid, p.seen, done));
    if (!ti.exited) ++alive;
    got.emplace_back(tid, std::move(ti));
  }
  const size_t known = got.size();
  p.first.clear();
  p.found_between = false;
  // The thread list changed where the kernel's count differs from the
  // threads known alive (each of which answered above); it counts a zombie
  // main thread.
  if (st && !gone && st->num_threads != alive + (p.zombie_leader ? 1 : 0)) {
    std::set<pid_t> listed;
    if (auto tids = read_tasks(m_root, p.pid)) listed.insert(tids->begin(), tids->end());
    for (auto& [tid, t] : p.threads) {
      if (t.exited() || listed.count(tid)) continue;
      auto at = std::lower_bound(got.begin(), got.begin() + static_cast<long>(known), tid,
                                 [](const auto& e, pid_t key) { return e.first < key; });
      merge(at->second, t.update(cx, p.pid, p.seen, true));  // gone: what its event still holds
    }
    for (pid_t tid : listed) {
      // One that exited may linger in the list a moment: not a new thread.
      if (p.threads.count(tid) || p.exited_now.count(tid) || p.exited_before.count(tid)) continue;
      if (p.zombie_leader && tid == p.pid) continue;
      ThreadWatch t(tid);
      auto ti = t.begin(cx, p.pid, true, p.seen);
      if (!ti) continue;
      got.emplace_back(tid, std::move(*ti));
      p.threads.emplace(tid, std::move(t));
    }
  }
  any_ran = std::any_of(got.begin(), got.end(), [](const auto& e) { return !e.second.ran_on.empty(); });
  for (const auto& [tid, ti] : got) record(p.threads.at(tid), ti);
  if (r.cpus_ran.empty()) r.cpus_ran = last_cpus;
  // Threads that came and went between two samples: what the process's own
  // total says it used beyond what its threads were counted. Not where a
  // thread's time is unknown (unread, or read late): the count starts over.
  if (st && !gone) {
    uint64_t total = ticks_to_ns(st->cpu_ticks);
    if (p.cpu_total && total >= *p.cpu_total) {
      p.unseen += static_cast<int64_t>(total - *p.cpu_total) - static_cast<int64_t>(r.activity.cpu_ns);
      if (r.threads_unread || some_late) {
        p.unseen = 0;
      } else if (p.unseen > unseen_margin()) {
        r.came_and_went_ns = static_cast<uint64_t>(p.unseen);
        r.activity.cpu_ns += r.came_and_went_ns;
        r.exact = false;  // their moves are not known
        p.unseen = 0;
      }
    }
    p.cpu_total = total;
  }
  for (auto it = p.threads.begin(); it != p.threads.end();) {
    if (it->second.exited()) it = p.threads.erase(it);
    else ++it;
  }
  p.exited = gone || p.threads.empty();
  r.exited = p.exited;
  finish_report(p, r);
}

void WatchTracker::finish_report(Process& p, ProcessReport& r) {
  std::sort(r.thread_list.begin(), r.thread_list.end(),
            [](const ThreadReport& a, const ThreadReport& b) { return a.tid < b.tid; });
  bool shown = !m_named.empty() || !r.activity.idle();
  // A zombie main thread's numa_maps is empty: a live thread's has the
  // process's mappings.
  pid_t reader = p.pid;
  if (p.zombie_leader)
    for (const auto& [tid, t] : p.threads)
      if (!t.exited() && tid != p.pid) {
        reader = tid;
        break;
      }
  const auto& usage = shown && !p.exited && !p.kernel_thread && (!p.zombie_leader || reader != p.pid)
                          ? p.pages.update(m_root, p.pid, reader, m_time)
                          : p.pages.last();
  if (usage) {
    r.pages = usage->pages;
    r.anon_pages = usage->anon;
    r.file_pages = usage->file;
    if (!usage->weighted_policy.empty()) r.weighted = weighted_share(*usage, weights_now());
  }
  r.remote_pages = remote_pages(r.anon_pages, r.cpus_ran, m_topo);
  r.ran_nodes = nodes_of(r.cpus_ran, m_topo);
  ProcessReport& t = p.total;
  t.comm = r.comm;
  t.activity += r.activity;
  t.came_and_went_ns += r.came_and_went_ns;
  t.cpus_ran |= r.cpus_ran;
  if (r.pages) {
    t.pages = r.pages;
    t.anon_pages = r.anon_pages;
    t.file_pages = r.file_pages;
  }
  if (r.remote_pages) {  // the last reading, against the nodes it ran on then
    t.remote_pages = r.remote_pages;
    t.ran_nodes = r.ran_nodes;
  }
  if (r.weighted) t.weighted = r.weighted;
  t.exact = t.exact && r.exact;
  t.exited = r.exited;
  t.threads = p.threads_seen;
  t.threads_unread = static_cast<unsigned>(p.unread.size());
  t.seconds = m_time - p.since;
}

const InterleaveWeights& WatchTracker::weights_now() {
  if (m_weights_time != m_time) {
    m_weights = read_interleave_weights(m_root);
    m_weights_time = m_time;
  }
  return m_weights;
}

WatchSummary WatchTracker::summary(double duration) const {
  WatchSummary s;
  s.duration = duration;
  s.exact = m_events != nullptr;
  auto add = [&](const Process& p) {
    if (!p.reported) return;
    ProcessReport r = p.total;
    if (m_thread_list)
      for (const auto& [tid, t] : p.thread_totals) r.thread_list.push_back(t);
    s.exact = s.exact && r.exact;
    s.processes.push_back(std::move(r));
  };
  for (const auto& [pid, p] : m_live) add(*p);
  for (const auto& p : m_ended) add(*p);
  s.unlisted = m_unlisted;
  std::sort(s.processes.begin(), s.processes.end(),
            [](const ProcessReport& a, const ProcessReport& b) { return a.pid < b.pid; });
  return s;
}

size_t WatchTracker::threads_watched() const {
  size_t n = 0;
  for (const auto& [pid, p] : m_live) n += p->threads.size();
  return n;
}

size_t WatchTracker::threads_exact() const {
  size_t n = 0;
  for (const auto& [pid, p] : m_live)
    for (const auto& [tid, t] : p->threads) n += t.exact();
  return n;
}

}  // namespace affix
