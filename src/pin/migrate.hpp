#pragma once
// pin --migrate: move a process's existing pages to the target nodes and
// count its pages per node before and after from /proc/PID/numa_maps.
//
// bind, preferred and local move every page off the other nodes with
// migrate_pages; interleave spreads the pages evenly over the nodes, page by
// page with move_pages (page i of those present, in address order, goes to
// the i-th node round-robin; a page already there stays); weighted spreads
// them by the nodes' interleave weights the same way, over the sequence in
// which the kernel's weighted interleave takes the nodes (each node, in
// ascending order, as many times as its weight: weights 0=3,2=1 are
// 0,0,0,2). Every target is
// planned (which pages, affix's right to move them) before any page moves:
// plan_migration changes nothing.

#include <sys/types.h>

#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "migrate_progress.hpp"
#include "os.hpp"
#include "proc.hpp"
#include "sysroot.hpp"

namespace affix {

struct MigratePlan {
  pid_t pid = 0;
  MemPolicy policy = MemPolicy::Bind;
  CpuSet to;                       // the target nodes
  std::vector<unsigned> sequence;  // weighted: the nodes in the kernel's weighted order
  CpuSet from;                     // migrate_pages: the nodes pages leave
  std::optional<NodePages> before; // numa_maps; nullopt where it cannot be read
  NodePages leaving;               // pages that would move, per node they are on
  NodePages arriving;              // interleave: pages that would move, per node they go to
  std::vector<uint64_t> pages;     // interleave: the pages that move...
  std::vector<int> nodes;          // ...and where each goes
  // The process's own memory policies (numa_maps) that send new memory to
  // nodes outside `to`: policy text and those nodes ("bind:2", 2).
  std::vector<std::pair<std::string, CpuSet>> own_policies;
  bool exited = false;             // the process exited first
};

struct MigrateResult {
  pid_t pid = 0;
  std::optional<NodePages> before, after;  // numa_maps
  unsigned long long moved = 0;  // pages moved
  long not_moved = 0;            // pages the kernel could not move
  NodePages arriving;            // interleave: pages moved, per node they went to
  bool interleave = false;        // interleave or weighted: pages moved one by one
  bool nothing_to_move = false;  // every node is a target (bind)
  bool exited = false;
};

// Throws Error(Resolution) naming the nodes of `to` outside the memory
// nodes affix itself may use: the kernel would leave pages meant for them
// where they are (migrate_pages drops such nodes without a word).
void check_own_nodes(PagesOs& os, const CpuSet& to);

// What a migration asks of the operating system: the pages, and (to explain
// an EPERM) affix's own capability.
struct MigrateOs {
  PagesOs& pages;
  CapabilityOs& caps;
  MigrateOs(PagesOs& p, CapabilityOs& c) : pages(p), caps(c) {}
  // One object that is both (linux_os(), a test's fake).
  template <class All>
    requires std::derived_from<All, PagesOs> && std::derived_from<All, CapabilityOs>
  MigrateOs(All& all) : pages(all), caps(all) {}
};

// Reads where the pages are and checks that affix may move them (an empty
// call of migrate_pages or move_pages). Throws Error(Runtime) where it may
// not; changes nothing. `nodes`: every node of the machine; `sequence`:
// weighted's (weighted_sequence).
MigratePlan plan_migration(MigrateOs os, const SysRoot& root, pid_t pid, MemPolicy policy, const CpuSet& to,
                           const CpuSet& nodes, const std::vector<unsigned>& sequence = {});

// The nodes in the order the kernel's weighted interleave takes them: each
// node of `weights` (node -> weight), ascending, as many times as its weight.
std::vector<unsigned> weighted_sequence(const std::map<unsigned, unsigned>& weights);

// Moves the pages of a plan. Throws Error(Runtime) where the kernel refuses.
// With `progress` (stderr a terminal): interleave's pages move in chunks of
// k_move_chunk, each reported; migrate_pages's one call is watched from a
// second thread that reads numa_maps every 250 ms and reports the pages
// gone from the nodes they leave. The line is cleared before it returns.
constexpr size_t k_move_chunk = 16384;  // pages per move_pages call that moves them (64 MiB of 4 KiB pages)
MigrateResult migrate(MigrateOs os, const SysRoot& root, const MigratePlan& plan,
                      MigrateProgress* progress = nullptr);

// pin --migrate over every process of a pin: plans them all (so that one
// that cannot be moved stops everything before any page moves), then moves
// them one after the other. With dry_run it only plans. A failure while
// moving throws the Error with, added to its message, the processes whose
// pages moved already ("; the pages of process 10 were moved and are not
// moved back").
struct MigrateTarget {
  pid_t pid = 0;
  MemPolicy policy = MemPolicy::Bind;
  CpuSet to;
  // Whether `pid` still names the process the pin held (its pidfd), asked
  // before each step and after each read: where it does not, the process
  // exited and its pages are not touched. Empty: not asked.
  std::function<bool()> held;
  std::vector<unsigned> sequence{};  // weighted: weighted_sequence of the nodes' weights
};
struct MigrateOutput {
  std::string text;                   // the reports (format_migrate / format_plan, pin_output.hpp)
  std::vector<std::string> warnings;  // own_policy_warnings of every target
};
MigrateOutput migrate_all(MigrateOs os, const SysRoot& root, const std::vector<MigrateTarget>& targets,
                          const CpuSet& nodes, bool dry_run, MigrateProgress* progress = nullptr);

}  // namespace affix
