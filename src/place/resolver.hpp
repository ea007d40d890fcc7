#pragma once
// The resolver: pure. Location spec x options x topology x allowed set ->
// placement. Nothing here touches the OS (the launcher environment for
// `--slice rank` is passed in).

#include <functional>
#include <optional>
#include <string>
#include <utility>
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

// A node-local rank: its number, how many ranks share the node, and where
// that came from ("SLURM_LOCALID/SLURM_STEP_TASKS_PER_NODE", "--slice 1/4",
// "--ranks"; empty where nothing says: rank 0 of 1).
struct LocalRank {
  unsigned rank = 0;
  unsigned size = 1;
  std::string source;
};

// --gpu closest|N|LIST (affix(1), GPUS).
struct GpuRequest {
  bool closest = false;           // closest: the NVIDIA and AMD GPUs near the ranks
  std::vector<unsigned> indices;  // N or LIST: gpuN numbers, in the order given
  std::string text;               // as written: "closest", "0,2"
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
  std::optional<GpuRequest> gpu;
  // explain --ranks: resolve for this rank instead of the launcher's.
  std::optional<LocalRank> rank;
};

// Environment variables to set, in order.
using EnvVars = std::vector<std::pair<std::string, std::string>>;

// What --gpu gave this rank (affix(1), GPUS).
struct GpuPlacement {
  Gpu gpu;                            // the rank's GPU
  CpuSet gpu_cpus;                    // its CPUs (near:gpuN's), within what is allowed
  LocalRank rank;                     // the rank it is given to
  CpuSet shared_with;                 // the other local ranks given the same GPU
  unsigned pool = 0;                  // how many GPUs the ranks were given from
  std::vector<std::string> left_out;  // GPUs whose CPUs are all outside what is allowed ("gpu2 (BDF): CPUs 8-15")
  std::string id;                     // what names the GPU to its runtime (gpu_pool.hpp's PoolGpu::id)
  std::string pool_source;            // the job's list that made the pool ("CUDA_VISIBLE_DEVICES=2"); empty: none
  std::vector<std::string> hidden;    // GPUs this process may not open ("gpu0 (BDF): this process may not open dev/nvidia0")
  EnvVars env;                        // what run exports, in order
  EnvVars replaced;                   // those of `env` set before affix, with their values then
  // A GPU the kernel places nowhere, a file of a GPU left out, the GPU
  // shared with other ranks (also in Placement::warnings; run prints them).
  std::vector<std::string> warnings;
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
  // --gpu: the rank's GPU, its CPUs and what run exports for it.
  std::optional<GpuPlacement> gpu;
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
// offline or not allowed, empty selections, --count/--slice that cannot be
// met, a --gpu that cannot be given. --gpu takes its GPUs from
// Topology::gpus (read_request_gpus, near.hpp) and implies --mem bind.
Placement resolve(const PlacementRequest& request, const Topology& topo, const Allowed& allowed,
                  const EnvLookup& env);
// The same with WHERE and --exclude already parsed (parse_locations of this
// request).
Placement resolve(const PlacementRequest& request, const RequestLocations& locations,
                  const Topology& topo, const Allowed& allowed, const EnvLookup& env);

}  // namespace affix
