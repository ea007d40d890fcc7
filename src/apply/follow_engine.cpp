#include "follow_engine.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "error.hpp"
#include "migration_level.hpp"
#include "proc.hpp"
#include "text.hpp"
#include "watch_tracker.hpp"

namespace affix {

namespace {

// The families, declared in this order (affix(1), METRICS).
void declare_families(Metrics& m) {
  m.family("affix_rule_matched_processes", "Processes the rule matches now (each by its first rule).",
           MetricType::Gauge);
  m.family("affix_rule_matched_threads", "Threads of the processes the rule matches now.", MetricType::Gauge);
  m.family("affix_rule_processes_matched_total", "Processes the rule was first to match, since the follower started.",
           MetricType::Counter);
  m.family("affix_rule_threads_matched_total", "Threads of them when matched, and new threads placed by the rule.",
           MetricType::Counter);
  m.family("affix_rule_placements_total", "Processes, threads and IRQs the rule changed.", MetricType::Counter);
  m.family("affix_rule_failures_total", "Placements refused (and rolled back).", MetricType::Counter);
  m.family("affix_rule_drift_seen_total", "Checks that found a process of the rule off its place.",
           MetricType::Counter);
  m.family("affix_rule_drift_undone_total", "Of those, processes put back (enforce = true).", MetricType::Counter);
  m.family("affix_process_migrations_total",
           "Migrations of the matched processes' threads, by rule, comm and the widest level crossed (sampled).",
           MetricType::Counter);
  m.family("affix_process_remote_memory_ratio",
           "Share of the matched processes' anonymous pages on nodes none of their CPUs is on, by rule and comm.",
           MetricType::Gauge);
  m.family("affix_follow_connector", "1: new processes come from the kernel's process events; 0: /proc is polled.",
           MetricType::Gauge);
  m.family("affix_follow_events_total", "Process events read from the kernel.", MetricType::Counter);
  m.family("affix_follow_losses_total",
           "Times events were lost: the kernel's ENOBUFS (cause=\"overrun\") or a gap in its numbers (cause=\"gap\").",
           MetricType::Counter);
  m.family("affix_follow_scans_total", "Scans of every process (the first, after a loss, a reload, or each poll).",
           MetricType::Counter);
  m.family("affix_follow_reloads_total", "SIGHUPs, by result (ok, refused: the rules in force kept).",
           MetricType::Counter);
  m.family("affix_follow_inherited_total", "Children forked before their parent was placed, placed as it.",
           MetricType::Counter);
}

std::string rule_name(const ApplyEngine& e, size_t i) { return e.rules().rules[i].name.value; }

}  // namespace

ApplyFollower::ApplyFollower(ApplyEngine& engine, Reload reload, const SysRoot& root, const Topology& topo,
                             AffinityOs& affinity, std::function<void(const std::string&)> log)
    : m_engine(&engine), m_reload(std::move(reload)), m_root(root), m_topo(topo), m_affinity(affinity),
      m_log(std::move(log)) {
  declare_families(m_metrics);
  if (m_root.is_default()) m_proc_fd = ::open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
  prepare_prefilter();
  refresh_metrics();
}

void ApplyFollower::prepare_prefilter() {
  m_comm_rules.clear();
  m_prefilter = true;
  for (const Rule& r : m_engine->rules().rules) {
    if (!r.match.comm) {
      m_prefilter = false;
      return;
    }
    Rule only;
    only.match.comm = r.match.comm;
    m_comm_rules.push_back(std::move(only));
  }
}

bool ApplyFollower::may_match(pid_t pid) {
  if (!m_prefilter) return true;
  // Its comm, from the one file that holds only that (stat's line costs the
  // kernel more: it adds up the threads' times). A kernel thread renamed
  // may pass here: the engine, which reads its flags, places no kernel
  // thread.
  std::optional<std::string> comm;
  if (m_proc_fd >= 0) {
    // From /proc's directory, open already: one lookup less for each exec.
    char path[32], buf[64];
    std::snprintf(path, sizeof path, "%d/comm", static_cast<int>(pid));
    int fd = openat(m_proc_fd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno != ENOENT && errno != ESRCH;  // gone; else the engine says what it is
    ssize_t n = read(fd, buf, sizeof buf);
    ::close(fd);
    if (n < 0) return errno != ESRCH;
    comm.emplace(buf, static_cast<size_t>(n));
  } else {
    try {
      comm = m_root.read(proc_dir(pid) + "/comm", 64);
    } catch (const Error&) {
      return true;  // the engine says what it is
    }
    if (!comm) return false;  // gone
  }
  if (!comm->empty() && comm->back() == '\n') comm->pop_back();
  ProcessFacts f;
  f.pid = pid;
  f.comm = std::move(*comm);
  for (const Rule& r : m_comm_rules)
    if (rule_matches(r, f)) return true;
  return false;
}

ApplyFollower::~ApplyFollower() {
  if (m_proc_fd >= 0) ::close(m_proc_fd);
}

std::optional<unsigned long long> ApplyFollower::outcome(const ProcessOutcome& o, const std::string& why) {
  if (!o.rule) return std::nullopt;
  const std::string who = fmt::format("{} ({})", o.pid, printable(o.comm));
  const std::string rule = printable(rule_name(*m_engine, *o.rule));
  switch (o.status) {
    case ProcessStatus::Placed: {
      m_log(fmt::format("rule {}: placed {}{}", rule, who, why));
      std::string_view text = o.text;
      while (!text.empty()) {
        auto nl = text.find('\n');
        m_log(fmt::format("  {}", text.substr(0, nl)));
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
      }
      break;
    }
    case ProcessStatus::Failed:
      m_log(fmt::format("rule {}: cannot place {}: {}", rule, who, o.error));
      return std::nullopt;
    case ProcessStatus::Already:
    case ProcessStatus::WouldPlace: break;
    default: return std::nullopt;
  }
  for (const auto& w : o.warnings) m_log(fmt::format("rule {}: {}: warning: {}", rule, who, w));
  if (o.tid == 0) m_matched[o.pid] = Matched{o.start_time, *o.rule, o.comm, o.threads};
  return o.start_time;
}

void ApplyFollower::scan() {
  ApplyReport report = m_engine->apply_all(false);
  std::set<pid_t> seen;
  for (const auto& o : report.processes) {
    seen.insert(o.pid);
    outcome(o, "");
  }
  for (const auto& q : report.irqs)
    if (q.failed) m_log(fmt::format("rule {}: IRQs not placed: {}", printable(rule_name(*m_engine, q.rule)), q.error));
  // Those no longer matched (exited unseen, renamed, or no rule after a reload).
  for (auto it = m_matched.begin(); it != m_matched.end();)
    it = seen.count(it->first) ? std::next(it) : m_matched.erase(it);
  refresh_metrics();
}

std::optional<unsigned long long> ApplyFollower::process(pid_t pid, uint64_t event_ns) {
  if (!may_match(pid)) {
    if (m_matched.erase(pid)) m_engine->forget(pid);  // renamed out of its rule
    return std::nullopt;
  }
  ProcessOutcome o = m_engine->apply_process(pid);
  // How long after the kernel's event the placement was made (bench/apply reads it).
  const uint64_t now = follow_now_ns();
  const std::string delay =
      event_ns != 0 && now >= event_ns ? fmt::format(", {:.3f} ms after its event", static_cast<double>(now - event_ns) / 1e6)
                                       : std::string();
  auto got = outcome(o, delay);
  if (!got) m_matched.erase(pid);
  return got;
}

std::optional<unsigned long long> ApplyFollower::inherit(pid_t child, pid_t parent) {
  auto got = outcome(m_engine->apply_process(child),
                     fmt::format(" (forked by {} before {} was placed)", parent, parent));
  if (!got) m_matched.erase(child);
  return got;
}

void ApplyFollower::thread(pid_t pid, pid_t tid) {
  ProcessOutcome o = m_engine->apply_thread(pid, tid);
  if (!o.rule) return;
  const std::string rule = printable(rule_name(*m_engine, *o.rule));
  if (o.status == ProcessStatus::Placed)
    m_log(fmt::format("rule {}: placed thread {} of {} ({}): {}", rule, tid, pid, printable(o.comm),
                      o.text.substr(0, o.text.find('\n'))));
  else if (o.status == ProcessStatus::Failed)
    m_log(fmt::format("rule {}: cannot place thread {} of {} ({}): {}", rule, tid, pid, printable(o.comm), o.error));
}

void ApplyFollower::gone(pid_t pid) {
  m_engine->forget(pid);
  m_matched.erase(pid);
}

std::optional<unsigned long long> ApplyFollower::start_time(pid_t pid) {
  try {
    auto st = read_stat(m_root, proc_dir(pid));
    if (st) return st->start_time;
  } catch (const Error&) {
  }
  return std::nullopt;
}

void ApplyFollower::tick() {
  // The check: what someone moved since.
  std::vector<pid_t> pids;
  for (const auto& [pid, m] : m_matched) pids.push_back(pid);
  for (pid_t pid : pids) {
    auto it = m_matched.find(pid);
    if (it == m_matched.end()) continue;
    auto now = start_time(pid);
    if (!now || *now != it->second.start_time) {  // gone, unseen
      gone(pid);
      continue;
    }
    ApplyCheckReport c = m_engine->check_process(pid);
    if (c.ok() || c.processes.empty()) continue;
    const CheckedProcess& cp = c.processes.front();
    const Rule& r = m_engine->rules().rules[cp.rule];
    const std::string rule = printable(r.name.value);
    const std::string who = fmt::format("{} ({})", pid, printable(cp.comm));
    for (const auto& d : c.differences)
      m_log(fmt::format("drift: {}; moved by a process the kernel does not name (no process event reports a "
                        "change of CPUs, policy or memory policy)",
                        d.text));
    if (!r.enforce) {
      m_log(fmt::format("rule {}: {} left there (enforce is not set)", rule, who));
      continue;
    }
    ProcessOutcome o = m_engine->apply_process(pid);
    if (o.status == ProcessStatus::Placed) {
      m_undone[r.name.value] += 1;
      m_log(fmt::format("rule {}: {} put back (enforce)", rule, who));
    } else if (o.status == ProcessStatus::Failed) {
      m_log(fmt::format("rule {}: cannot put {} back: {}", rule, who, o.error));
    }
  }
  sample_watch();
  refresh_metrics();
}

void ApplyFollower::sample_watch() {
  std::map<pid_t, unsigned long long> want;
  for (const auto& [pid, m] : m_matched) want[pid] = m.start_time;
  if (want.empty()) {
    m_watch.reset();
    m_watched.clear();
    return;
  }
  const double now = static_cast<double>(follow_now_ns()) / 1e9;
  if (!m_watch || want != m_watched) {
    // Another set: counted from the next sample on.
    std::vector<pid_t> pids;
    for (const auto& [pid, st] : want) pids.push_back(pid);
    try {
      m_watch = std::make_unique<WatchTracker>(m_root, m_topo, m_affinity, nullptr, pids, false, false);
      m_watch->start();
      m_watched = want;
      m_watch_time = now;
    } catch (const Error&) {
      m_watch.reset();
      m_watched.clear();
    }
    return;
  }
  IntervalReport report;
  try {
    report = m_watch->sample(now - m_watch_time, now - m_watch_time);
  } catch (const Error&) {
    m_watch.reset();
    m_watched.clear();
    return;
  }
  std::map<std::pair<std::string, std::string>, std::pair<uint64_t, uint64_t>> remote;
  for (const auto& p : report.processes) {
    auto it = m_matched.find(p.pid);
    if (it == m_matched.end()) continue;
    const std::string rule = rule_name(*m_engine, it->second.rule);
    it->second.threads = p.threads;
    for (size_t c = 0; c < k_crossings; ++c) {
      auto level = static_cast<Crossing>(c);
      m_migrations[{rule, comm_label(rule, it->second.comm), crossing_name(level)}] += p.activity.migrations[level];
    }
    if (p.remote_pages && p.anon_pages) {
      uint64_t anon = 0;
      for (const auto& [node, pages] : *p.anon_pages) anon += pages;
      auto& r = remote[{rule, comm_label(rule, it->second.comm)}];
      r.first += *p.remote_pages;
      r.second += anon;
    }
  }
  m_remote = std::move(remote);
}

const std::string& ApplyFollower::comm_label(const std::string& rule, const std::string& comm) {
  static const std::string other = "(other)";
  auto& named = m_comm_labels[rule];
  if (named.count(comm)) return comm;
  if (named.size() >= k_comm_labels) return other;
  named.insert(comm);
  return comm;
}

bool ApplyFollower::reload() {
  try {
    ApplyEngine& next = m_reload();
    next.adopt_counters(*m_engine);
    m_engine = &next;
    prepare_prefilter();
    m_matched.clear();
    m_log(fmt::format("rules read again: {} rule{}", next.rules().rules.size(),
                      next.rules().rules.size() == 1 ? "" : "s"));
    return true;
  } catch (const Error& e) {
    m_log(fmt::format("rules not read again, those in force are kept: {}", e.what()));
    return false;
  }
}

void ApplyFollower::refresh_metrics() {
  std::lock_guard<std::mutex> hold(m_lock);
  const auto& rules = m_engine->rules().rules;
  const auto& counters = m_engine->counters();
  // Gauges of what is matched now: a rule gone after a reload goes too.
  m_metrics.clear("affix_rule_matched_processes");
  m_metrics.clear("affix_rule_matched_threads");
  std::map<size_t, std::pair<size_t, size_t>> now;
  for (const auto& [pid, m] : m_matched) {
    now[m.rule].first += 1;
    now[m.rule].second += m.threads;
  }
  for (size_t i = 0; i < rules.size() && i < counters.size(); ++i) {
    const MetricLabels l{{"rule", rules[i].name.value}};
    m_metrics.set("affix_rule_matched_processes", l, static_cast<double>(now[i].first));
    m_metrics.set("affix_rule_matched_threads", l, static_cast<double>(now[i].second));
    const RuleCounters& c = counters[i];
    m_metrics.set("affix_rule_processes_matched_total", l, static_cast<double>(c.processes_matched));
    m_metrics.set("affix_rule_threads_matched_total", l, static_cast<double>(c.threads_matched));
    m_metrics.set("affix_rule_placements_total", l, static_cast<double>(c.placements));
    m_metrics.set("affix_rule_failures_total", l, static_cast<double>(c.failures));
    m_metrics.set("affix_rule_drift_seen_total", l, static_cast<double>(c.drift_seen));
    auto undone = m_undone.find(rules[i].name.value);
    m_metrics.set("affix_rule_drift_undone_total", l,
                  static_cast<double>(c.drift_undone + (undone == m_undone.end() ? 0 : undone->second)));
  }
  if (m_loop) {
    const FollowStats& stats = m_loop->stats();
    m_metrics.set("affix_follow_connector", {}, m_loop->following() ? 1 : 0);
    m_metrics.set("affix_follow_events_total", {}, static_cast<double>(stats.events));
    m_metrics.set("affix_follow_losses_total", {{"cause", "overrun"}}, static_cast<double>(stats.overruns));
    m_metrics.set("affix_follow_losses_total", {{"cause", "gap"}}, static_cast<double>(stats.gaps));
    m_metrics.set("affix_follow_scans_total", {}, static_cast<double>(stats.scans));
    m_metrics.set("affix_follow_reloads_total", {{"result", "ok"}}, static_cast<double>(stats.reloads));
    m_metrics.set("affix_follow_reloads_total", {{"result", "refused"}}, static_cast<double>(stats.reload_errors));
    m_metrics.set("affix_follow_inherited_total", {}, static_cast<double>(stats.inherited));
  }
  for (const auto& [key, n] : m_migrations) {
    const auto& [rule, comm, level] = key;
    m_metrics.set("affix_process_migrations_total", {{"rule", rule}, {"comm", comm}, {"level", level}},
                  static_cast<double>(n));
  }
  m_metrics.clear("affix_process_remote_memory_ratio");
  for (const auto& [key, pages] : m_remote)
    if (pages.second > 0)
      m_metrics.set("affix_process_remote_memory_ratio", {{"rule", key.first}, {"comm", key.second}},
                    static_cast<double>(pages.first) / static_cast<double>(pages.second));
}

std::string ApplyFollower::metrics_text() const {
  std::lock_guard<std::mutex> hold(m_lock);
  return m_metrics.text();
}

std::string apply_check_metrics(const RuleSet& rules, const ApplyCheckReport& report, double unix_time) {
  Metrics m;
  m.family("affix_check_ok", "1 where everything a rule matches is where the rule says, else 0.", MetricType::Gauge);
  m.family("affix_check_processes", "Processes the rule matched, checked.", MetricType::Gauge);
  m.family("affix_check_differences", "Differences found (one per line of apply --check), by rule.",
           MetricType::Gauge);
  m.family("affix_check_irqs", "IRQs checked.", MetricType::Gauge);
  m.family("affix_check_timestamp_seconds", "When the check ran (Unix time).", MetricType::Gauge);
  m.set("affix_check_ok", {}, report.ok() ? 1 : 0);
  std::vector<double> procs(rules.rules.size(), 0), diffs(rules.rules.size(), 0);
  for (const auto& p : report.processes)
    if (p.rule < procs.size()) procs[p.rule] += 1;
  for (const auto& d : report.differences)
    if (d.rule < diffs.size()) diffs[d.rule] += 1;
  for (size_t i = 0; i < rules.rules.size(); ++i) {
    m.set("affix_check_processes", {{"rule", rules.rules[i].name.value}}, procs[i]);
    m.set("affix_check_differences", {{"rule", rules.rules[i].name.value}}, diffs[i]);
  }
  m.set("affix_check_irqs", {}, static_cast<double>(report.irqs_checked));
  m.set("affix_check_timestamp_seconds", {}, unix_time);
  return m.text();
}

}  // namespace affix
