#include <catch2/catch.hpp>

#include <map>

#include "error.hpp"
#include "fixtures.hpp"
#include "slice_rank.hpp"

using namespace affix;
using affix::test::env_of;

namespace {

std::string rank_error(std::map<std::string, std::string> vars) {
  try {
    require_launcher_rank(env_of(vars));
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Resolution);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("slice_rank: each launcher's variables") {
  auto r = require_launcher_rank(
      env_of({{"OMPI_COMM_WORLD_LOCAL_RANK", "3"}, {"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}}));
  CHECK(r.rank == 3);
  CHECK(r.size == 4);
  CHECK(r.source == "OMPI_COMM_WORLD_LOCAL_RANK/OMPI_COMM_WORLD_LOCAL_SIZE");
  r = require_launcher_rank(env_of({{"MPI_LOCALRANKID", "1"}, {"MPI_LOCALNRANKS", "2"}}));
  CHECK(r.rank == 1);
  CHECK(r.size == 2);
  r = require_launcher_rank(env_of({{"PMI_LOCAL_RANK", "0"}, {"PMI_LOCAL_SIZE", "5"}}));
  CHECK(r.rank == 0);
  CHECK(r.size == 5);
  r = require_launcher_rank(env_of(
      {{"SLURM_LOCALID", "1"}, {"SLURM_STEP_TASKS_PER_NODE", "4,2(x2)"}, {"SLURM_NODEID", "2"}}));
  CHECK(r.rank == 1);
  CHECK(r.size == 2);
  CHECK(r.source == "SLURM_LOCALID/SLURM_STEP_TASKS_PER_NODE");
  // Open MPI wins over Slurm when both are present (mpirun inside an allocation).
  r = require_launcher_rank(env_of({{"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                                    {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                                    {"SLURM_LOCALID", "0"},
                                    {"SLURM_STEP_TASKS_PER_NODE", "1"},
                                    {"SLURM_NODEID", "0"}}));
  CHECK(r.size == 2);
  CHECK_FALSE(launcher_rank(env_of({})).has_value());
}

TEST_CASE("slice_rank: MVAPICH2, PMIx and torchrun; the generic LOCAL_RANK last") {
  auto r = require_launcher_rank(env_of({{"MV2_COMM_WORLD_LOCAL_RANK", "2"}, {"MV2_COMM_WORLD_LOCAL_SIZE", "3"}}));
  CHECK(r.rank == 2);
  CHECK(r.size == 3);
  CHECK(r.source == "MV2_COMM_WORLD_LOCAL_RANK/MV2_COMM_WORLD_LOCAL_SIZE");
  r = require_launcher_rank(env_of({{"PMIX_LOCAL_RANK", "1"}, {"PMIX_LOCAL_SIZE", "4"}}));
  CHECK(r.source == "PMIX_LOCAL_RANK/PMIX_LOCAL_SIZE");
  CHECK(r.rank == 1);
  r = require_launcher_rank(env_of({{"LOCAL_RANK", "7"}, {"LOCAL_WORLD_SIZE", "8"}}));
  CHECK(r.rank == 7);
  CHECK(r.size == 8);
  CHECK(r.source == "LOCAL_RANK/LOCAL_WORLD_SIZE");
  // A job script's LOCAL_RANK copied from Slurm's: Slurm's own variables win.
  r = require_launcher_rank(env_of({{"LOCAL_RANK", "0"},
                                    {"LOCAL_WORLD_SIZE", "9"},
                                    {"SLURM_LOCALID", "1"},
                                    {"SLURM_STEP_TASKS_PER_NODE", "2"},
                                    {"SLURM_NODEID", "0"}}));
  CHECK(r.rank == 1);
  CHECK(r.size == 2);
  // --gpu's messages name --gpu.
  try {
    launcher_rank(env_of({{"PMIX_LOCAL_RANK", "0"}}), "--gpu");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "--gpu: PMIX_LOCAL_RANK is set but PMIX_LOCAL_SIZE is not");
  }
  CHECK(launcher_rank_variables() ==
        "OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, PMI_LOCAL_RANK, SLURM_LOCALID, "
        "PMIX_LOCAL_RANK, PALS_LOCAL_RANKID, LOCAL_RANK");
}

TEST_CASE("slice_rank: SLURM_STEP_TASKS_PER_NODE") {
  CHECK(slurm_tasks_on_node("2(x3),1", 0) == 2u);
  CHECK(slurm_tasks_on_node("2(x3),1", 2) == 2u);
  CHECK(slurm_tasks_on_node("2(x3),1", 3) == 1u);
  CHECK_FALSE(slurm_tasks_on_node("2(x3),1", 4).has_value());
  CHECK(slurm_tasks_on_node("16", 0) == 16u);
  CHECK_FALSE(slurm_tasks_on_node("2(3)", 0).has_value());
  CHECK_FALSE(slurm_tasks_on_node("2(x0)", 0).has_value());
  CHECK_FALSE(slurm_tasks_on_node("", 0).has_value());
  CHECK_FALSE(slurm_tasks_on_node("2,,1", 1).has_value());
  CHECK_FALSE(slurm_tasks_on_node("x", 0).has_value());
  CHECK(slurm_tasks_on_node("1(x1048576),7", 1048576) == 7u);
}

TEST_CASE("slice_rank: malformed or missing variables are errors") {
  CHECK(rank_error({}) ==
        "--slice rank: no launcher rank found (OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK, "
        "MPI_LOCALRANKID, PMI_LOCAL_RANK, SLURM_LOCALID, PMIX_LOCAL_RANK, PALS_LOCAL_RANKID, LOCAL_RANK are unset)");
  CHECK(rank_error({{"OMPI_COMM_WORLD_LOCAL_RANK", "0"}}) ==
        "--slice rank: OMPI_COMM_WORLD_LOCAL_RANK is set but OMPI_COMM_WORLD_LOCAL_SIZE is not");
  CHECK(rank_error({{"MPI_LOCALRANKID", "-1"}, {"MPI_LOCALNRANKS", "2"}}) ==
        "--slice rank: MPI_LOCALRANKID='-1' is not a number");
  CHECK(rank_error({{"PMI_LOCAL_RANK", "2"}, {"PMI_LOCAL_SIZE", "2"}}) ==
        "--slice rank: local rank 2 is not below local size 2 (PMI_LOCAL_RANK/PMI_LOCAL_SIZE)");
  CHECK(rank_error({{"SLURM_LOCALID", "0"}}) ==
        "--slice rank: SLURM_LOCALID is set but SLURM_STEP_TASKS_PER_NODE or SLURM_NODEID is "
        "not");
  CHECK(rank_error({{"SLURM_LOCALID", "0"}, {"SLURM_STEP_TASKS_PER_NODE", "2"},
                    {"SLURM_NODEID", "1"}}) ==
        "--slice rank: SLURM_STEP_TASKS_PER_NODE='2' has no entry for SLURM_NODEID=1");
  try {
    require_launcher_rank(env_of({}));
  } catch (const Error& e) {
    CHECK(e.hint() == "start affix under mpirun or srun, or give --slice K/N");
  }
}

