#pragma once
// `affix apply --follow`'s FollowHandler: the follower's loop
// (follow_loop.hpp) driving the apply engine (apply_engine.hpp), with the
// log lines it writes and the metrics it keeps (metrics.hpp; affix(1),
// METRICS).
//
// - a process: ApplyEngine::apply_process (placed: a log line with what was
//   done; refused: a log line with why); a child forked before its parent
//   was placed: the same, said so;
// - a thread (new, or renamed) of a placed process: apply_thread;
// - every tick: each matched process is checked (ApplyEngine::check_process,
//   counting drift_seen); one off its place is logged with what differs,
//   and, where its rule says `enforce = true`, placed again and logged as
//   put back. Who moved it the kernel does not say: no process event
//   reports a change of a CPU list, a scheduling policy or a memory
//   policy (the connector reports fork, exec, exit, comm, uid/gid, sid,
//   ptrace and coredump only), so the line says so;
// - every tick, the metrics: the engine's per-rule counters, what is
//   matched now, and each matched process's migrations by level and the
//   remote share of its memory, sampled as `affix watch` samples without
//   perf events (WatchTracker), labelled by rule and comm, not by PID.
//
// Identity: a process is its PID and its start time.

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "apply_engine.hpp"
#include "follow_loop.hpp"
#include "metrics.hpp"
#include "os.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// Distinct comm label values a rule's series have (affix(1), METRICS).
constexpr size_t k_comm_labels = 16;

class WatchTracker;

class ApplyFollower final : public FollowHandler {
public:
  // Reads the rules file again and makes a new engine (Error where the
  // file is refused; the engine in force is then kept).
  using Reload = std::function<ApplyEngine&()>;
  // `log` gets each line (without its newline).
  ApplyFollower(ApplyEngine& engine, Reload reload, const SysRoot& root, const Topology& topo, AffinityOs& affinity,
                std::function<void(const std::string&)> log);
  ~ApplyFollower() override;
  ApplyFollower(const ApplyFollower&) = delete;
  ApplyFollower& operator=(const ApplyFollower&) = delete;

  void scan() override;
  std::optional<unsigned long long> process(pid_t pid, uint64_t event_ns) override;
  std::optional<unsigned long long> inherit(pid_t child, pid_t parent) override;
  void thread(pid_t pid, pid_t tid) override;
  void gone(pid_t pid) override;
  void tick() override;
  bool reload() override;
  std::optional<unsigned long long> start_time(pid_t pid) override;
  void note(const std::string& line) override { m_log(line); }

  // The loop whose counters (FollowStats) the metrics show with the rest.
  void attach(const FollowLoop* loop) { m_loop = loop; }
  // The text exposition of everything (called from the metrics server's thread).
  std::string metrics_text() const;

private:
  struct Matched {
    unsigned long long start_time = 0;
    size_t rule = 0;
    std::string comm;
    size_t threads = 0;
  };
  std::optional<unsigned long long> outcome(const ProcessOutcome& o, const std::string& why);
  void refresh_metrics();
  // The cheap test before the engine's (six files of /proc): where every
  // rule names a comm, a process whose comm (its stat line, one read)
  // none of them matches is matched by none (rule_matches needs every key).
  void prepare_prefilter();
  bool may_match(pid_t pid);
  void sample_watch();

  ApplyEngine* m_engine;
  Reload m_reload;
  SysRoot m_root;
  int m_proc_fd = -1;  // the machine's /proc, where m_root is the machine's: may_match opens from it
  const Topology& m_topo;
  AffinityOs& m_affinity;
  std::function<void(const std::string&)> m_log;
  std::map<pid_t, Matched> m_matched;
  std::map<std::string, uint64_t> m_undone;  // per rule name: put back by the enforce check
  // Migrations by (rule, comm, level), summed over samples; remote share per (rule, comm).
  // The comm label's value for a process of `rule`: its comm for the
  // first k_comm_labels names seen under the rule, "(other)" after (a
  // process may rename itself at will: the series stay bounded).
  const std::string& comm_label(const std::string& rule, const std::string& comm);
  std::map<std::string, std::set<std::string>> m_comm_labels;  // rule -> comms with series of their own
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t> m_migrations;
  std::map<std::pair<std::string, std::string>, std::pair<uint64_t, uint64_t>> m_remote;  // remote, anon pages
  std::unique_ptr<WatchTracker> m_watch;
  std::map<pid_t, unsigned long long> m_watched;  // the processes m_watch follows (PID, start time)
  double m_watch_time = 0;
  mutable std::mutex m_lock;  // m_metrics: the loop writes, the server reads
  Metrics m_metrics;
  const FollowLoop* m_loop = nullptr;
  std::vector<Rule> m_comm_rules;  // each rule's comm alone (prepare_prefilter)
  bool m_prefilter = false;        // every rule names a comm
};

}  // namespace affix

namespace affix {
// `apply --check --metrics FILE`: the check as the textfile collector
// reads it (affix_check_* families; affix(1), METRICS).
std::string apply_check_metrics(const RuleSet& rules, const ApplyCheckReport& report, double unix_time);
}  // namespace affix
