#pragma once
// The resolver: pure. Location spec x options x topology x allowed set ->
// placement. Nothing here touches the OS (the launcher environment for
// `--slice rank` is passed in).

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "devices.hpp"
#include "location.hpp"
#include "mem_select.hpp"
#include "os.hpp"
#include "topology.hpp"
#include "weights.hpp"

namespace affix {

enum class Order { Compact, Scatter };

struct SliceRequest {
  bool from_rank = false;  // --slice rank
  unsigned k = 0;          // part (0-based)
  unsigned n = 1;          // parts
};

struct MemRequest {
  MemPolicy policy = MemPolicy::Bind;
  std::optional<MemSelector> nodes;  // after ':' (mem_select.hpp); nullopt = default nodes
};

struct PlacementRequest {
  std::string where;                   // the location spec
  std::optional<std::string> exclude;  // --exclude WHERE
  bool no_smt = false;
  std::optional<unsigned> count;       // -n
  Order order = Order::Compact;
  std::optional<SliceRequest> slice;
  std::optional<MemRequest> mem;
  std::optional<WeightsRequest> weights;  // --weights (with --mem weighted)
};

struct Dropped {
  CpuSet cpus;
  std::string reason;  // offline, not-allowed, excluded, smt, slice, count
};

struct Placement {
  CpuSet cpus;
  std::vector<unsigned> sequence;  // the CPUs in selection order (--order), for OMP_PLACES and --spread
  CpuSet sockets;                  // socket numbers of the selected CPUs
  CpuSet nodes;                    // node numbers of the selected CPUs
  std::optional<MemPolicy> mem_policy;
  CpuSet mem_nodes;                // empty for local / no policy
  // What each term of a --mem selector with a tier: or mem: term gave
  // ("tier:22" -> 2), for explain; empty for node lists and defaults.
  std::vector<std::pair<std::string, CpuSet>> mem_terms;
  std::optional<WeightPlan> weights;  // --mem weighted: its weights (weights.hpp)
  std::vector<Dropped> dropped;
  std::vector<std::string> warnings;
  // Where the CPUs lie outside the affinity affix was started on while that
  // is narrower than what is allowed (affix(1), LOCATIONS, "Selection
  // rules", rule 5), the warning (also in `warnings`; run prints it on
  // stderr, explain lists it); else empty.
  std::string widening;
  // The devices WHERE names with near: (explain lists them); a device's
  // warning, where the kernel does not say where it is, is also in
  // `warnings` (run prints it on stderr).
  std::vector<NearDevice> near;
};

// WHERE and --exclude as syntax trees, parsed once by the location parser
// (location.hpp): the resolver, and a launch's choice of what to read of
// the machine (launch_scope.hpp), take the trees, never the text again.
struct RequestLocations {
  Location where;
  std::optional<Location> exclude;
};

// Parses request.where, then request.exclude; throws the parser's
// Error(Spec) for the first that does not parse.
RequestLocations parse_locations(const PlacementRequest& request);

// Looks up an environment variable (nullopt = unset). Tests pass a map.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_env();

// Throws Error(Spec) for syntax errors (message with the spec and a caret
// line), Error(Resolution) for units that do not exist, CPUs named that are
// offline or not allowed, empty selections, --count/--slice that cannot be met.
Placement resolve(const PlacementRequest& request, const Topology& topo, const Allowed& allowed,
                  const EnvLookup& env);
// The same with WHERE and --exclude already parsed (parse_locations of this
// request).
Placement resolve(const PlacementRequest& request, const RequestLocations& locations,
                  const Topology& topo, const Allowed& allowed, const EnvLookup& env);

}  // namespace affix
