#pragma once
// The least a launch must read of the machine (ReadScope, topology.hpp),
// so that `affix 0-3 cmd` costs what taskset costs: a bare CPU list
// (taskset's own syntax) needs only which CPUs exist and which are online,
// not the tree: on a 4096-CPU machine a handful of files instead of ~50,000
// (docs/performance.md).

#include "resolver.hpp"
#include "topology.hpp"

namespace affix {

// What a plain launch of `request` (no -v, --dry-run, --env: those report
// more than the CPUs) must read; the placement resolves the same on that as
// on the whole machine:
// - no tree for a bare list of numbers (N, N-M, N-M:S, commas; not `all`,
//   no level) without an option that needs the tree (--exclude, --no-smt,
//   --count, --order scatter, --slice, --mem, --gpu);
// - caches only where a step could index by the order of units or name
//   llc/die/core (a later step, a die/llc/core level, --count, --slice,
//   --gpu: a GPU's CPUs are a unit's);
// - memory sizes and distances only with --mem or --gpu (which binds memory);
// - memory tiers, kinds, HMAT figures and interleave weights only where
//   --mem needs them (needs_tiers).
// `locations` are the request's own, parsed (parse_locations).
ReadScope scope_for(const PlacementRequest& request, const RequestLocations& locations);

// The same for a request not yet parsed; where its WHERE or --exclude does
// not parse, everything (the resolver then throws the parser's error).
ReadScope scope_for(const PlacementRequest& request);

// Whether --mem needs the memory tiers, kinds, HMAT figures and weights:
// --mem weighted (its weights, and its default nodes by their HMAT
// initiators), or a tier: or mem: term.
bool needs_tiers(const PlacementRequest& request);

// Whether WHERE or --exclude has a kind: step: only then are the per-CPU
// files that rank kinds read (ReadScope::kinds, cpu_kinds.hpp).
bool names_kind(const RequestLocations& locations);

}  // namespace affix
