#pragma once
// The engine of `affix apply` (affix(1), APPLY): the parsed rules, the
// machine, the Os; one run over what runs now (apply FILE, apply --check
// FILE), and one process or thread at a time for the follower (apply
// --follow), with counters per rule for the metrics.
//
// Every placement goes through the pin engine (pin.hpp): a process is
// moved all or nothing, every thread of it (with `tree`, of its
// descendants), then its named threads (`threads`), then with `mem` its
// pages (migrate.hpp); a failure of any step puts back what that process
// had (roll_back) and is that process's failure alone: the other
// processes and rules go on. A check is pin --check's (pin_check.hpp) per
// process. IRQ rules go through pin_irq.hpp, all or nothing per rule.
//
// Identity: a process is its PID and its start time (ProcessFacts); the
// engine remembers the rule each process it matched was given, so a PID
// reused by another process is matched afresh, and a process is counted
// once per rule however often the follower hands it over.
//
// The words of the rules (WHERE, mem, policy, a user's name) are checked
// once, when the engine is made: a word that does not resolve on this
// machine refuses the whole file, "FILE:LINE:COL: ..." (Error(Usage)).
// What reads them (the location language's resolver, pin's option
// parsers) lives above this layer: the caller passes it as ApplyWords
// (src/cli/apply_words.hpp: make_apply_words; load_apply_engine there
// reads the file, the machine and makes the engine in one call).
//
// Not thread-safe: one caller at a time (the follower's loop).

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "irq.hpp"
#include "os.hpp"
#include "pin_irq.hpp"
#include "rules.hpp"
#include "sched.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// A WHERE resolved for one target.
struct ApplyPlace {
  CpuSet cpus;
  std::vector<unsigned> sequence;      // the CPUs in selection order (for spread)
  std::optional<MemPolicy> mem_policy; // with a rule's mem
  CpuSet mem_nodes;                    // where its pages go (mem's nodes, else those of `cpus`)
  std::vector<std::string> warnings;   // the resolver's (a device the kernel places nowhere)
};

// What the engine asks of the layers above it.
class ApplyWords {
 public:
  virtual ~ApplyWords() = default;
  // WHERE, with a rule's mem (--mem's words), for process `pid` against its
  // own allowed set as pin resolves it; pid 0: against every online CPU
  // of the machine (IRQs, and the check when the engine is made). Throws
  // Error(Spec) or Error(Resolution) with the resolver's message.
  virtual ApplyPlace place(const std::string& where, const std::optional<std::string>& mem, pid_t pid) = 0;
  // Checks mem's words alone (Error(Usage)).
  virtual void check_mem(const std::string& mem) = 0;
  // --policy's words (and nice) as pin reads them: Error(Usage).
  virtual SchedRequest sched(const std::optional<std::string>& policy, std::optional<int> nice) = 0;
  // A user name's uid; nullopt: no such user.
  virtual std::optional<uid_t> user_id(const std::string& name) = 0;
  // The machine the words resolve on (its nodes, the threads' cpusets).
  virtual const Topology& topology() const = 0;
};

// Per rule, since the engine was made (or adopted from the engine before a
// reload); the metrics read them. Each process (PID + start time) counts
// once per rule in processes_matched.
struct RuleCounters {
  uint64_t processes_matched = 0;  // processes the rule was first to match
  uint64_t threads_matched = 0;    // their threads when matched, and threads apply_thread was given
  uint64_t placements = 0;         // processes, threads and IRQs affix changed (not dry runs)
  uint64_t failures = 0;           // placements refused (and rolled back)
  uint64_t drift_seen = 0;         // checks that found a matched process or IRQ of the rule off its place
  uint64_t drift_undone = 0;       // of those, put back by enforce_process (enforce = true)
};

enum class ProcessStatus {
  NoRule,      // no rule matches it (or no rule acts on processes)
  Placed,      // affix changed something
  Already,     // everything was where the rule says: nothing changed
  WouldPlace,  // dry run: something would change
  Failed,      // refused; everything affix had changed was put back (`error`)
  Gone,        // exited before it could be read
};

struct ProcessOutcome {
  pid_t pid = 0;
  unsigned long long start_time = 0;
  std::string comm;           // as the kernel gives it (escape it to print)
  std::optional<size_t> rule; // index in rules().rules of the rule it got (first wins)
  std::vector<size_t> also;   // later rules that match it too
  ProcessStatus status = ProcessStatus::NoRule;
  pid_t tid = 0;              // apply_thread: the thread
  size_t processes = 0;       // processes placed (with tree: the root and its descendants)
  size_t threads = 0;         // threads seen
  size_t threads_changed = 0; // threads whose list or scheduling affix set (would set)
  std::string text;           // what was done, pin's lines, names escaped, each ending in '\n'
  std::string error;          // Failed: the error (and its hint after "; ")
  std::vector<std::string> warnings;
};

struct IrqOutcome {
  size_t rule = 0;
  size_t glob = 0;            // index in the rule's irqs
  CpuSet cpus;                // where the glob's IRQs go
  IrqPinResult result;        // each IRQ, before and after
  bool failed = false;
  std::string error;          // failed: why (the IRQs were put back)
};

struct ApplyReport {
  bool dry_run = false;
  std::vector<ProcessOutcome> processes;  // matched processes, ancestors before descendants (by start time)
  std::vector<IrqOutcome> irqs;           // in rule order
  std::vector<size_t> unmatched;          // rules that matched no process (and no IRQ)
  bool failed() const;                    // a process or IRQ rule failed
};

// One difference a check found: one line each.
enum class DifferenceKind { Cpus, Sched, Memory, Irq, Gone };
struct Difference {
  size_t rule = 0;
  DifferenceKind kind = DifferenceKind::Cpus;
  pid_t pid = 0, tid = 0;  // 0 for an IRQ; tid 0 for the memory of a process
  unsigned irq = 0;        // Irq
  std::string text;        // the line, names escaped: "db: 4250 (gc) of 4242 (postgres): cpus 0-1, not within 1"
};

// A process a check looked at.
struct CheckedProcess {
  pid_t pid = 0;
  unsigned long long start_time = 0;
  std::string comm;
  size_t rule = 0;
  std::vector<size_t> also;  // later rules that match too (the check says so; not a difference)
  size_t threads = 0;
  bool ok = true;
};

struct ApplyCheckReport {
  std::vector<CheckedProcess> processes;
  std::vector<Difference> differences;  // in the order of `processes`, then IRQs
  size_t irqs_checked = 0;
  std::vector<size_t> unmatched;        // rules that matched nothing
  bool ok() const { return differences.empty(); }
};

class ApplyEngine {
 public:
  // Checks every word of `rules` through `words` (the file is refused
  // whole, Error(Usage) "FILE:LINE:COL: ...", where one does not resolve
  // on this machine) and keeps them. `os` and `irqs` are kept by
  // reference and must outlive the engine; `words` is owned.
  ApplyEngine(RuleSet rules, std::unique_ptr<ApplyWords> words, const SysRoot& root, LinuxOs& os, IrqOs& irqs);
  ~ApplyEngine();
  ApplyEngine(const ApplyEngine&) = delete;
  ApplyEngine& operator=(const ApplyEngine&) = delete;

  // One run over what runs now: every process (in start order), each by
  // its first rule; then every IRQ rule. A rule that matches nothing is
  // listed in `unmatched`, not a failure.
  ApplyReport apply_all(bool dry_run);
  ApplyCheckReport check_all();

  // The follower: a process that appeared, exec'd or changed its comm
  // (matched afresh: an exec can give it another rule, or none); a new
  // thread of a process (placed by the thread rule its name matches, else
  // where its process's rule puts every thread; NoRule where its process
  // has none).
  ProcessOutcome apply_process(pid_t pid, bool dry_run = false);
  ProcessOutcome apply_thread(pid_t pid, pid_t tid);
  // What of process `pid` is off its rule's place (no difference where it
  // has no rule). Counts drift_seen.
  ApplyCheckReport check_process(pid_t pid);
  // enforce: checks `pid` and, where it drifted and its rule says
  // enforce = true, places it again (Placed, counting drift_undone); else
  // Already, or NoRule.
  ProcessOutcome enforce_process(pid_t pid);
  // The follower saw `pid` exit: forget its rule.
  void forget(pid_t pid);
  // The rule the engine gave process `pid` (with this start time), where
  // it knows one.
  std::optional<size_t> rule_of(pid_t pid, unsigned long long start_time) const;

  const RuleSet& rules() const;
  // One per rule, in rules().rules order.
  const std::vector<RuleCounters>& counters() const;
  // After a reload (SIGHUP): take the counters of the rules of the same
  // name from the engine before.
  void adopt_counters(const ApplyEngine& before);

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

// The facts of process `pid` from ROOT/proc; nullopt where it is gone.
std::optional<ProcessFacts> read_process_facts(const SysRoot& root, pid_t pid);

// Output (affix(1), APPLY): text, a block per rule; JSON, one document.
std::string format_apply(const RuleSet& rules, const ApplyReport& report);
std::string apply_json(const RuleSet& rules, const ApplyReport& report);
std::string format_apply_check(const RuleSet& rules, const ApplyCheckReport& report);
std::string apply_check_json(const RuleSet& rules, const ApplyCheckReport& report);

}  // namespace affix
