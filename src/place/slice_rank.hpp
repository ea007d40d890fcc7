#pragma once
// `--slice rank`: the node-local rank and size from the launcher's
// environment (the --slice option's text is parsed with the command line,
// parse_slice_option in src/cli/command_line.hpp).
//
// Looked for in this order (the first launcher whose rank variable is set
// wins; its size variable must then be set too):
//   Open MPI     OMPI_COMM_WORLD_LOCAL_RANK / OMPI_COMM_WORLD_LOCAL_SIZE
//   MPICH/Hydra  MPI_LOCALRANKID / MPI_LOCALNRANKS
//   PMI          PMI_LOCAL_RANK / PMI_LOCAL_SIZE
//   Slurm        SLURM_LOCALID / this node's entry of SLURM_STEP_TASKS_PER_NODE
//                ("2(x3),1" = 2,2,2,1) picked by SLURM_NODEID

#include <optional>
#include <string>
#include <string_view>

#include "resolver.hpp"

namespace affix {

struct LauncherRank {
  unsigned rank = 0;
  unsigned size = 0;
  std::string source;  // "OMPI_COMM_WORLD_LOCAL_RANK/OMPI_COMM_WORLD_LOCAL_SIZE", ...
};

// nullopt when no launcher variable is set; throws Error(Resolution) when a
// variable is malformed or only half of a pair is set.
std::optional<LauncherRank> launcher_rank(const EnvLookup& env);

// Throws Error(Resolution) (with a hint) when no launcher is found.
LauncherRank require_launcher_rank(const EnvLookup& env);

// The task count of node `node_id` in a SLURM_STEP_TASKS_PER_NODE value.
std::optional<unsigned> slurm_tasks_on_node(std::string_view spec, unsigned node_id);


}  // namespace affix
