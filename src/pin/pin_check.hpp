#pragma once
// pin --check: whether every thread of a pin's targets may already run only
// within its placement (with --spread: only on the CPU the spread gives it),
// with a scheduling request has the policy asked (sched.hpp,
// sched_satisfies), and with --mem the memory policy, with --migrate the
// anonymous pages;
// changes nothing (affix(1), Pin options). The threads come from the pin
// engine run with PinOptions::check, so a check reads exactly the threads a
// pin would move, in the same order (the spread's CPUs match).

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpuset.hpp"
#include "os.hpp"
#include "pin.hpp"
#include "pin_check_env.hpp"
#include "proc.hpp"
#include "sysroot.hpp"

namespace affix {

// What a target's memory must be: with `policy_asked` (--mem) the policy
// numa_maps shows for most of its pages; with `pages_asked` (--migrate)
// every anonymous page on `nodes`.
struct MemExpect {
  MemPolicy policy = MemPolicy::Bind;
  CpuSet nodes;
  bool policy_asked = false;
  bool pages_asked = false;
};

// What `pin --check` compares of memory, from its words: --mem alone, the
// process's own policy (a process started by run --mem has it); --migrate,
// what pin --migrate did: the anonymous pages on the nodes (a running
// process's policy is its own, and pin leaves it as it was, so --mem with
// --migrate names where the pages go, not a policy to find); --gpu, the
// policy run --gpu sets, with --migrate the pages too. nullopt without any.
std::optional<MemExpect> mem_expect(MemPolicy policy, const CpuSet& nodes, bool mem_given, bool gpu_given,
                                    bool migrate);

struct ThreadOutside {
  pid_t pid = 0, tid = 0;
  std::string name;  // "4250 (nginx)", escaped (thread_name)
  std::string comm;  // as the kernel gives it, for JSON
  CpuSet cpus;       // the list it has
  CpuSet want;       // the selection, or with --spread its one CPU
};

// A thread whose scheduling attributes are not what was asked.
struct ThreadPolicy {
  pid_t pid = 0, tid = 0;
  std::string name, comm;  // as for ThreadOutside
  SchedAttr have;
};

struct MemoryCheck {
  pid_t pid = 0;
  bool readable = false;       // numa_maps could be read
  std::string policy;          // numa_maps' policy of the most pages
  bool policy_ok = true;
  NodePages anon;              // its anonymous pages per node
  unsigned long long anon_total = 0, outside = 0;  // ...and those off `nodes`
  bool pages_ok = true;
};

struct TargetCheck {
  TargetReport target;
  size_t processes = 0, threads = 0;  // alive at the check
  std::vector<ThreadOutside> outside;
  std::vector<ThreadPolicy> off_policy;  // with a scheduling request
  std::optional<MemExpect> mem;
  std::vector<MemoryCheck> memory;  // one per process, with `mem`
  std::optional<EnvExpect> env;     // --gpu
  std::vector<EnvCheck> envs;       // one per process, with `env`
  bool ok = true;
};

// A shield (affix shield) whose CPUs the selection shares: the check
// fails where the kernel does not hold it, or a task outside it may run on
// its CPUs (each a phrase in `problems`; the caller reads them).
struct ShieldCheck {
  std::string name;
  CpuSet cpus;
  std::vector<std::string> problems;
};

// --weights (with --mem weighted): the machine's interleave weights against
// those asked; the caller fills it (its line from the plan).
struct WeightCheckNode {
  unsigned node = 0;
  std::optional<unsigned> now, want;  // want: nullopt where the kernel's are asked for
};
struct WeightsCheck {
  bool ok = true;
  std::string text;  // "interleave weights node 0: 3, node 2: 1, as asked (given with --weights)"
  std::vector<WeightCheckNode> nodes;
  std::optional<bool> auto_mode;  // the kernel's auto mode (nullopt: it has none)
};

struct CheckReport {
  SchedRequest sched;  // the report's (PinReport::sched)
  std::vector<TargetCheck> targets;
  std::optional<WeightsCheck> weights;
  std::vector<ShieldCheck> shields;
  bool ok = true;
};

// Checks each target of a report (from pin_threads with options.check).
// `mem_of` gives a target's memory expectations (nullopt: none), `env_of`
// what its environment must hold (--gpu; null or nullopt: nothing). `root`
// names the threads and reads numa_maps and environ.
CheckReport check_pin(const SysRoot& root, const PinReport& report,
                      const std::function<std::optional<MemExpect>(const TargetReport&)>& mem_of,
                      const std::function<std::optional<EnvExpect>(const TargetReport&)>& env_of = nullptr);

// Whether a policy as numa_maps writes it ("bind:0-1", "bind=static:0",
// "prefer:1", "prefer (many):0-1", "interleave:0-3", "weighted
// interleave:0,2", "default", "local") is `want` on nodes within `nodes`
// (interleave and weighted: exactly `nodes`; local: also "default", which
// allocates on the local node too).
bool policy_matches(std::string_view policy, MemPolicy want, const CpuSet& nodes);

// "bind:0", "prefer:1", "prefer (many):0-1", "interleave:0-1", "weighted
// interleave:0,2", "local": what
// numa_maps shows for a policy (the words of the messages).
std::string numa_maps_policy(MemPolicy policy, const CpuSet& nodes);

// Text: a line per target ("4242: 3 threads within CPUs 0-3"; "4242: 3
// threads, 1 not within CPUs 0-3"; with a scheduling request ", with policy
// fifo:50" or ", 2 not with policy fifo:50"; where the memory fails, which
// part: ", memory policy not bind:0", ", anonymous pages outside node 0",
// ", memory unknown"), a line per thread outside
// ("  4250 (nginx): cpus 0-7, not within 0-3") and per thread under another
// policy ("  4250 (nginx): policy other (asked: policy fifo:50)"), and with
// --mem/--migrate a line per process; with `verbose` every thread's line
// (`root` names them); then the weights' line (--weights); then a line per shield the selection shares ("shield
// affix-shield-1 (CPUs 4-7): held, no other task on its CPUs", or one per
// problem).
std::string format_check(const SysRoot& root, const CheckReport& report, bool verbose);
// The same as one JSON document.
std::string check_json(const CheckReport& report);

}  // namespace affix
