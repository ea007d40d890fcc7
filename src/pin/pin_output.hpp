#pragma once
// What pin prints: a line per target (and with -v one per thread), and the
// --migrate reports and warnings.

#include <string>
#include <vector>

#include "cpuset.hpp"
#include "migrate.hpp"
#include "pin.hpp"
#include "sysroot.hpp"

namespace affix {

// A target's line: "4242: 3 threads on CPUs 0-1 (2 moved)"; with --tree the
// processes counted first ("2 processes, 5 threads"); --spread says "one CPU
// each from CPUs" (with --tree also that the root's threads are on all);
// with a scheduling request its words and "changed" ("4242: 3 threads on
// CPUs 0-1, policy fifo:50 (3 changed)"). With `verbose` (always with
// `dry_run`) a line per thread, "  thread 4243 (worker): 0-3 -> 0-1" (and
// ", other -> fifo:50"), under a line per process with --tree. `root`
// names the threads (thread_name).
std::string format_target(const SysRoot& root, const TargetReport& target, bool verbose, bool dry_run,
                          const SchedRequest& sched = {});

// "4242: moved 120 pages\n  pages per node before: 0:1200 1:7\n  ... after: ..."
std::string format_migrate(const MigrateResult& result);
// --dry-run: "4242: would move 120 pages to nodes 1\n  pages per node now: ...\n..."
std::string format_plan(const MigratePlan& plan);
// One warning per policy of the plan's own_policies: "4242's own memory
// policy (bind:2) still sends new allocations to node 2; only the process
// itself can change it" (affix(1), MEMORY).
std::vector<std::string> own_policy_warnings(const MigratePlan& plan);

// "node 2", "nodes 0-1".
std::string nodes_text(const CpuSet& nodes);

}  // namespace affix
