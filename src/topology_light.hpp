#pragma once
// The launch fast path: a bare CPU list (`affix 0-3 cmd`, taskset's own
// syntax) needs to know only which CPUs exist and which are online, not the
// whole tree. read_cpus_only reads just that (cpu/online, cpu/present, the
// cpuN directory names and the nodes' cpumaps, as read_topology counts
// them) and leaves every CPU's place unknown. On a 4096-CPU machine that is a
// handful of files instead of ~50,000 (docs/performance.md).

#include "resolver.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// True where `request` resolves the same on read_cpus_only as on the full
// topology: WHERE is numbers only (N, N-M, N-M:S, commas; not `all`, no
// level), with no option that needs the tree (--exclude, --no-smt, --count,
// --order scatter, --slice, --mem). What a resolution reports beyond the
// CPUs (sockets, nodes, warnings, selection order) is not exact there: only
// a plain launch may use it, not -v, --dry-run, --env or explain.
bool is_plain_cpulist(const PlacementRequest& request);

// The least a launch of `request` must read: caches only where a step
// could index by the order of units or name llc/die/core (a later step, a
// die/llc/core level, --count, --slice), memory sizes and distances only
// with --mem. Like is_plain_cpulist, for a plain launch only.
ReadScope scope_for(const PlacementRequest& request);

// possible (cpuN directories | present | online | node CPUs) and online, as
// read_topology reads them; every online CPU known with an unknown place.
// Falls back to read_topology where there is no cpu/online file.
Topology read_cpus_only(const SysRoot& root);

}  // namespace affix
