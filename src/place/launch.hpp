#pragma once
// `affix run` after resolution: apply a placement to this process and exec
// the command (no fork). The order is fixed: the interleave weights of
// --mem weighted (weights_apply.hpp: all or nothing), then the memory
// policy, then the scheduling policy and the CPU affinity (the policy
// first, but a SCHED_DEADLINE one after the CPUs: sched.hpp, cpus_first),
// then the --env variables, then (--spread) the thread follower, then exec.
// Nothing execs when a step before it fails: the command never runs
// unbound, nor unspread, nor under another policy than asked, and weights
// written for it are put back.

#include <concepts>
#include <cstdio>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "os.hpp"
#include "launch_env.hpp"  // EnvVars
#include "resolver.hpp"
#include "sched.hpp"

namespace affix {

// Where launch writes its lines (each write is flushed at once). The real
// run writes through stdio: constructing a std::ostream, or including
// <iostream> anywhere in affix, sets up the C++ locale first, which was 11%
// of a launch (docs/performance.md). Tests pass std::ostreams (the overload
// below).
class LaunchOutput {
public:
  virtual ~LaunchOutput() = default;
  virtual void write(const std::string& text) = 0;
};

class StdioOutput : public LaunchOutput {
public:
  explicit StdioOutput(std::FILE* file) : m_file(file) {}
  void write(const std::string& text) override {
    std::fputs(text.c_str(), m_file);
    std::fflush(m_file);
  }

private:
  std::FILE* m_file;
};

// What launch asks of the operating system: the interleave weights, the
// memory policy, the CPU affinity and the scheduling policy, then the
// environment, the thread
// follower and the exec.
struct LaunchOs {
  WeightsOs& weights;
  MemPolicyOs& mem_policy;
  AffinityOs& affinity;
  ExecOs& exec;
  SchedOs& sched;
  LaunchOs(WeightsOs& w, MemPolicyOs& m, AffinityOs& a, ExecOs& e, SchedOs& s)
      : weights(w), mem_policy(m), affinity(a), exec(e), sched(s) {}
  // One object that is all five (linux_os(), a test's fake).
  template <class All>
    requires std::derived_from<All, WeightsOs> && std::derived_from<All, MemPolicyOs> &&
             std::derived_from<All, AffinityOs> && std::derived_from<All, ExecOs> && std::derived_from<All, SchedOs>
  LaunchOs(All& all) : weights(all), mem_policy(all), affinity(all), exec(all), sched(all) {}
};

struct LaunchRequest {
  std::vector<std::string> argv;  // the command and its arguments, untouched
  EnvVars env;                    // variables to export (--env), in order
  EnvVars kept;                   // --env variables left as the user set them (listed by -v, --dry-run)
  EnvVars replaced;               // variables of `env` set before affix, with their values then (--gpu)
  bool verbose = false;           // -v: the placement on `err` before the exec
  bool dry_run = false;           // print what would be done on `out`, do nothing
  unsigned spread = 0;            // --spread=N: threads per CPU; 0: not spread
  SchedRequest sched;             // --policy, --nice, --sched-slice, --uclamp (nothing is read without one)
  // For a command not found that starts with '-' (a mistyped affix option):
  // "did you mean '--no-smt'?", or empty. The command line's option table
  // knows the options; none when null.
  std::string (*option_hint)(const std::string& word) = nullptr;
};

// The widening warning (Placement::widening) goes to `err` first, once,
// whatever the mode, then the warnings of near: devices and of --gpu. A dry run returns 0, or where the command would not be
// found or could not be executed (ExecOs::find_command) prints the error the
// real run would and returns its 127 or 126. When exec fails, prints the
// error on `err` and returns 127 (not found) or 126 (found, cannot execute). Returns 0 if
// ExecOs::exec returns 0 (only a fake does). Throws Error(Runtime) when the
// kernel lacks the policy's mode (several preferred nodes: 5.15; weighted:
// 6.9), the weights, the memory policy, the scheduling policy or the CPU
// affinity cannot be set (a dry run too where it can tell: what the kernel
// lacks, a deadline policy on fewer CPUs than their root domain), or
// (--spread) the threads cannot be followed (the caller exits 125). Weights
// it wrote are put back before it throws, and before it returns 126 or 127.
int launch(LaunchOs os, const Placement& placement, const LaunchRequest& request, LaunchOutput& out,
           LaunchOutput& err);
int launch(LaunchOs os, const Placement& placement, const LaunchRequest& request, std::ostream& out,
           std::ostream& err);

}  // namespace affix
