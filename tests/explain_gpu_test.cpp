// What explain prints of --gpu (affix(1), GPUS, "Seeing the map"; OUTPUT):
// the rank's GPU lines, its JSON object, and the map of explain --ranks,
// on the resolver's own placements of a synthetic machine.
#include <catch2/catch.hpp>

#include "explain_gpu.hpp"
#include "gpu_fixtures.hpp"

using namespace affix;
using namespace affix::test;

namespace {

std::vector<Placement> ranks_of(const TempRoot& root, const PlacementRequest& r, unsigned n) {
  std::vector<Placement> out;
  for (unsigned k = 0; k < n; ++k) {
    PlacementRequest request = r;
    request.rank = LocalRank{k, n, "--ranks"};
    out.push_back(place(root, request, {}));
  }
  return out;
}

Allowed all_of(const TempRoot& root) { return allow_all(read_topology(SysRoot(root.path()))); }

}  // namespace

TEST_CASE("explain_gpu: the rank's GPU, where its rank came from, what run exports and what that replaces") {
  TempRoot root;
  amd_machine(root);
  Env env = ompi(3, 16);
  env["CUDA_VISIBLE_DEVICES"] = "0,1";
  Placement p = place(root, gpu_request("closest"), env);
  CHECK(explain_gpu_text(*p.gpu) ==
        "gpu       gpu1 (amd): PCI 0000:30:00.0, node 0, CPUs 0-3\n"
        "rank      3 of 16 (from OMPI_COMM_WORLD_LOCAL_RANK/OMPI_COMM_WORLD_LOCAL_SIZE)\n"
        "pool      2 GPUs of the job's list: CUDA_VISIBLE_DEVICES=0,1\n"
        "exports   ROCR_VISIBLE_DEVICES=1 (by index: 1 among the AMD GPUs this process may open, in PCI address "
        "order)\n"
        "          CUDA_VISIBLE_DEVICES=0 (replaces '0,1')\n");
  JsonWriter j;
  j.begin_object();
  explain_gpu_json(j, *p.gpu);
  j.end_object();
  CHECK(j.str() ==
        R"({"gpu": {"name": "gpu1", "pci": "0000:30:00.0", "vendor": "amd", "node": 0, "memory_node": null, )"
        R"("card": null, "uuid": null, "cpus": "0-3", "rank": 3, "ranks": 16, )"
        R"("rank_source": "OMPI_COMM_WORLD_LOCAL_RANK/OMPI_COMM_WORLD_LOCAL_SIZE", "shared_with": "1", )"
        R"("env": {"ROCR_VISIBLE_DEVICES": "1", "CUDA_VISIBLE_DEVICES": "0"}, )"
        R"("replaced": {"CUDA_VISIBLE_DEVICES": "0,1"}, "left_out": [], "pool_source": "CUDA_VISIBLE_DEVICES=0,1"}})");
}

TEST_CASE("explain_gpu: the map of --ranks; a rank across two nodes takes the GPU with more of its CPUs") {
  TempRoot root;
  amd_machine(root);
  std::vector<Placement> ranks = ranks_of(root, gpu_request("closest"), 6);
  CHECK(explain_ranks_text(ranks, all_of(root)) ==
        "ranks     6 local ranks (--ranks)\n"
        "allowed   CPUs 0-15, nodes 0-3 (from all-online)\n"
        "by index  ROCR_VISIBLE_DEVICES counts the AMD GPUs this process may open, in PCI address order (no unique_id here)\n"
        "\n"
        "RANK  GPU   PCI           VENDOR  CPUS       NODES  MEMORY  VARIABLE\n"
        "0     gpu0  0000:10:00.0  amd     0-2 (3)    0      bind:0  ROCR_VISIBLE_DEVICES=GPU-00000000000000a0\n"
        "1     gpu2  0000:50:00.0  amd     4-5 (2)    1      bind:1  ROCR_VISIBLE_DEVICES=GPU-00000000000000a2\n"
        "2     gpu3  0000:70:00.0  amd     6-7 (2)    1      bind:1  ROCR_VISIBLE_DEVICES=3\n"
        "3     gpu4  0000:90:00.0  amd     9-11 (3)   2      bind:2  ROCR_VISIBLE_DEVICES=GPU-00000000000000a4\n"
        "4     gpu6  0000:d0:00.0  amd     12-13 (2)  3      bind:3  ROCR_VISIBLE_DEVICES=GPU-00000000000000a6\n"
        "5     gpu7  0000:f0:00.0  amd     14-15 (2)  3      bind:3  ROCR_VISIBLE_DEVICES=7\n");
  // Slices 3-5 and 6-8 straddle two nodes: gpu1 and gpu5 are left to no rank, and their CPUs 3, 8 with them.
  CHECK(format_cpulist(ranks[1].dropped.back().cpus) == "3");
  CHECK(ranks[1].dropped.back().reason == "gpu");
  std::string json = explain_ranks_json(ranks, all_of(root));
  CHECK(json.rfind(R"({"ranks": [{"rank": 0, "cpus": "0-2", "count": 3, "nodes": "0", "mem": {"policy": "bind", "nodes": "0"}, "gpu": {"name": "gpu0", )", 0) == 0);
  CHECK(json.find(R"("allowed": {"cpus": "0-15", "nodes": "0-3", "source": "all-online"}, "warnings": []})") !=
        std::string::npos);
}
