#pragma once
// The node-local rank and size from the launcher's environment, for
// `--slice rank` and `--gpu` (the --slice option's text is parsed with the
// command line, parse_slice_option in src/cli/command_line.hpp). One table
// of launchers (affix(1), ENVIRONMENT, "Read by --slice rank and --gpu"),
// looked for in this order; the first whose rank variable is set wins, and
// its size variable must then be set too:
//   Open MPI     OMPI_COMM_WORLD_LOCAL_RANK / OMPI_COMM_WORLD_LOCAL_SIZE
//   MVAPICH2     MV2_COMM_WORLD_LOCAL_RANK / MV2_COMM_WORLD_LOCAL_SIZE
//   MPICH/Hydra  MPI_LOCALRANKID / MPI_LOCALNRANKS
//   PMI          PMI_LOCAL_RANK / PMI_LOCAL_SIZE
//   Slurm        SLURM_LOCALID / this node's entry of SLURM_STEP_TASKS_PER_NODE
//                ("2(x3),1" = 2,2,2,1) picked by SLURM_NODEID
//   PMIx         PMIX_LOCAL_RANK / PMIX_LOCAL_SIZE
//   Cray PALS    PALS_LOCAL_RANKID / PALS_LOCAL_SIZE
//   torchrun     LOCAL_RANK / LOCAL_WORLD_SIZE
// The generic LOCAL_RANK comes last: job scripts often set it from one of
// the others.

#include <optional>
#include <string>
#include <string_view>

#include "resolver.hpp"

namespace affix {

using LauncherRank = LocalRank;

// nullopt when no launcher variable is set; throws Error(Resolution) when a
// variable is malformed or only half of a pair is set. `option` starts the
// messages ("--slice rank", "--gpu").
std::optional<LauncherRank> launcher_rank(const EnvLookup& env, std::string_view option = "--slice rank");

// Throws Error(Resolution) (with a hint) when no launcher is found, and
// (check_rank) when the rank is not below the size.
LauncherRank require_launcher_rank(const EnvLookup& env, std::string_view option = "--slice rank");

// Throws Error(Resolution) where r.rank >= r.size (the launcher's
// variables contradict each other).
void check_rank(const LauncherRank& r, std::string_view option);

// A job-wide rank variable that is set ("PMI_RANK=3": OMPI_COMM_WORLD_RANK,
// MV2_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, PMIX_RANK, PALS_RANKID,
// RANK), as NAME=VALUE; nullopt where none is. Where no local rank is found
// but this is, a launcher started the command as one of several ranks that
// affix cannot tell apart.
std::optional<std::string> global_rank_variable(const EnvLookup& env);

// The rank variables of the table, in its order, comma-separated: what the
// error of no launcher names.
std::string launcher_rank_variables();

// The task count of node `node_id` in a SLURM_STEP_TASKS_PER_NODE value.
std::optional<unsigned> slurm_tasks_on_node(std::string_view spec, unsigned node_id);

}  // namespace affix
