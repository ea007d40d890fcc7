// --gpu through the resolver (affix(1), GPUS) on synthetic sysfs trees and
// the POWER9 capture: NVIDIA and AMD GPUs, 1 to 8 over 1 to 4 nodes, 1 to 16
// ranks, each rank's GPU, its exact CPUs, its memory and the variables run
// exports for it.
#include <catch2/catch.hpp>

#include "corpus.hpp"
#include "gpu_fixtures.hpp"
#include "mem_select.hpp"

using namespace affix;
using namespace affix::test;

TEST_CASE("gpu: 4 ranks on 4 NVIDIA GPUs over 2 nodes, each its own, its slice and its node's memory") {
  TempRoot root;
  nvidia_machine(root);
  const char* want[] = {
      "gpu0 0-3 bind:0 CUDA_VISIBLE_DEVICES=GPU-0a2b3c4d-0000-1111-2222-333344445555 CUDA_DEVICE_ORDER=PCI_BUS_ID",
      "gpu1 4-7 bind:0 CUDA_VISIBLE_DEVICES=GPU-1a2b3c4d-0000-1111-2222-333344445555 CUDA_DEVICE_ORDER=PCI_BUS_ID",
      "gpu2 8-11 bind:1 CUDA_VISIBLE_DEVICES=GPU-2a2b3c4d-0000-1111-2222-333344445555 CUDA_DEVICE_ORDER=PCI_BUS_ID",
      "gpu3 12-15 bind:1 CUDA_VISIBLE_DEVICES=GPU-3a2b3c4d-0000-1111-2222-333344445555 CUDA_DEVICE_ORDER=PCI_BUS_ID"};
  for (unsigned r = 0; r < 4; ++r) {
    Placement p = place(root, gpu_request("closest"), ompi(r, 4));
    CHECK(summary(p) == want[r]);
    REQUIRE(p.gpu);
    CHECK(p.gpu->rank.rank == r);
    CHECK(p.gpu->rank.size == 4);
    CHECK(p.gpu->rank.source == "OMPI_COMM_WORLD_LOCAL_RANK/OMPI_COMM_WORLD_LOCAL_SIZE");
    CHECK(p.gpu->shared_with.empty());
    CHECK(p.gpu->replaced.empty());
    CHECK(p.warnings.empty());
  }
}

TEST_CASE("gpu: 2 ranks on 4 GPUs take one each, on their own node; 8 share them evenly, with a warning") {
  TempRoot root;
  nvidia_machine(root);
  CHECK(summary(place(root, gpu_request("closest"), ompi(0, 2))).substr(0, 15) == "gpu0 0-7 bind:0");
  CHECK(summary(place(root, gpu_request("closest"), ompi(1, 2))).substr(0, 16) == "gpu2 8-15 bind:1");
  const char* gpus8[] = {"gpu0 0-1", "gpu1 2-3", "gpu0 4-5", "gpu1 6-7", "gpu2 8-9", "gpu3 10-11", "gpu2 12-13", "gpu3 14-15"};
  for (unsigned r = 0; r < 8; ++r) {
    Placement p = place(root, gpu_request("closest"), ompi(r, 8));
    std::string s = summary(p);
    CHECK(s.substr(0, s.find(" bind")) == gpus8[r]);
  }
  Placement p = place(root, gpu_request("closest"), ompi(6, 8));
  CHECK(format_cpulist(p.gpu->shared_with) == "4");
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0] == "local rank 6 of 8 shares gpu2 (0000:88:00.0) with rank 4 (8 ranks, 4 GPUs)");
  CHECK(p.gpu->warnings == p.warnings);
}

TEST_CASE("gpu: 16 ranks on 8 AMD GPUs over 4 nodes; ROCR_VISIBLE_DEVICES by unique_id, else by index") {
  TempRoot root;
  amd_machine(root);
  for (unsigned r = 0; r < 16; ++r) {
    Placement p = place(root, gpu_request("closest"), ompi(r, 16));
    REQUIRE(p.gpu);
    unsigned node = r / 4, gpu = node * 2 + r % 2;
    CHECK(p.gpu->gpu.index == gpu);
    CHECK(format_cpulist(p.cpus) == std::to_string(r));
    CHECK(format_cpulist(p.mem_nodes) == std::to_string(node));
    std::string rocr = gpu % 2 == 0 ? "GPU-00000000000000a" + std::to_string(gpu) : std::to_string(gpu);
    CHECK(p.gpu->env == EnvVars{{"ROCR_VISIBLE_DEVICES", rocr}, {"CUDA_VISIBLE_DEVICES", "0"}});
    CHECK(format_cpulist(p.gpu->shared_with) == std::to_string(r % 4 < 2 ? r + 2 : r - 2));
  }
  // One rank: the first GPU near the selection; 4 ranks: one a node.
  CHECK(summary(place(root, gpu_request("closest"), ompi(0, 1))) ==
        "gpu0 0-3 bind:0 ROCR_VISIBLE_DEVICES=GPU-00000000000000a0 CUDA_VISIBLE_DEVICES=0");
  CHECK(summary(place(root, gpu_request("closest"), ompi(3, 4))) ==
        "gpu6 12-15 bind:3 ROCR_VISIBLE_DEVICES=GPU-00000000000000a6 CUDA_VISIBLE_DEVICES=0");
}

TEST_CASE("gpu: the values a launcher set before affix are replaced, and said so") {
  TempRoot root;
  amd_machine(root);
  Env env = ompi(1, 16);
  env["CUDA_VISIBLE_DEVICES"] = "0,1,2,3,4,5,6,7";  // HIP reads HIP_VISIBLE_DEVICES first
  env["HIP_VISIBLE_DEVICES"] = "0";                 // the first GPU ROCr shows: gpu1
  env["GPU_DEVICE_ORDINAL"] = "3";
  env["ROCR_VISIBLE_DEVICES"] = "1";  // already this GPU's index: no change to tell
  Placement p = place(root, gpu_request("closest"), env);
  CHECK(p.gpu->env == EnvVars{{"ROCR_VISIBLE_DEVICES", "1"}, {"CUDA_VISIBLE_DEVICES", "0"}, {"HIP_VISIBLE_DEVICES", "0"},
                              {"GPU_DEVICE_ORDINAL", "0"}});
  CHECK(p.gpu->replaced == EnvVars{{"CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"}, {"GPU_DEVICE_ORDINAL", "3"}});
}

TEST_CASE("gpu: without --slice, the launcher's rank takes the r-th GPU near the selection, and its CPUs") {
  TempRoot root;
  nvidia_machine(root);
  // No launcher: rank 0 of 1.
  Placement p = place(root, gpu_request("closest", false), {});
  CHECK(summary(p).substr(0, 15) == "gpu0 0-7 bind:0");
  CHECK(p.gpu->rank.source.empty());
  REQUIRE(p.dropped.size() == 1);
  CHECK(p.dropped[0].reason == "gpu");
  CHECK(format_cpulist(p.dropped[0].cpus) == "8-15");
  Env slurm = {{"SLURM_LOCALID", "3"}, {"SLURM_STEP_TASKS_PER_NODE", "4"}, {"SLURM_NODEID", "0"}};
  p = place(root, gpu_request("closest", false), slurm);
  CHECK(summary(p).substr(0, 16) == "gpu3 8-15 bind:1");
  CHECK(p.gpu->rank.source == "SLURM_LOCALID/SLURM_STEP_TASKS_PER_NODE");
  // A list: the ranks take its GPUs in its order.
  CHECK(summary(place(root, gpu_request("3,1", false), ompi(0, 2))).substr(0, 16) == "gpu3 8-15 bind:1");
  CHECK(summary(place(root, gpu_request("3,1", false), ompi(1, 2))).substr(0, 15) == "gpu1 0-7 bind:0");
  // torchrun's LOCAL_RANK, and rank 5 of 6 on 4 GPUs shares gpu1 with rank 1.
  p = place(root, gpu_request("closest", false), {{"LOCAL_RANK", "5"}, {"LOCAL_WORLD_SIZE", "6"}});
  CHECK(summary(p).substr(0, 15) == "gpu1 0-7 bind:0");
  CHECK(p.warnings == std::vector<std::string>{"local rank 5 of 6 shares gpu1 (0000:3b:00.0) with rank 1 (6 ranks, 4 GPUs)"});
  // WHERE narrows the GPUs to those near it: socket 1's.
  CHECK(summary(place(root, gpu_request("closest", false, "socket:1"), ompi(1, 2))).substr(0, 16) == "gpu3 8-15 bind:1");
}

TEST_CASE("gpu: --count and --mem after --gpu; --slice K/N is rank K of N") {
  TempRoot root;
  nvidia_machine(root);
  PlacementRequest r = gpu_request("closest");
  r.count = 2;
  CHECK(summary(place(root, r, ompi(1, 2))).substr(0, 17) == "gpu2 8,10 bind:1 ");
  r = gpu_request("closest");
  r.mem = MemRequest{MemPolicy::Interleave, *parse_mem_selector("0-1").value};
  CHECK(summary(place(root, r, ompi(0, 4))).substr(0, 23) == "gpu0 0-3 interleave:0-1");
  r = gpu_request("closest", false);
  r.slice = SliceRequest{false, 3, 4};
  Placement p = place(root, r, {});
  CHECK(summary(p).substr(0, 17) == "gpu3 12-15 bind:1");
  CHECK(p.gpu->rank.source == "--slice 3/4");
}

TEST_CASE("gpu: the POWER9 capture's six GPUs: each rank one, memory on its socket's node, not the GPU's") {
  std::string p9 = corpus_root("nvidiagpunumanodes");
  // Without --slice, 6 ranks take the 6 GPUs and each the CPUs near its own.
  const char* want[] = {"gpu0 0-15 bind:0 CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_ORDER=PCI_BUS_ID",
                        "gpu1 0-15 bind:0 CUDA_VISIBLE_DEVICES=1 CUDA_DEVICE_ORDER=PCI_BUS_ID",
                        "gpu2 0-15 bind:0 CUDA_VISIBLE_DEVICES=2 CUDA_DEVICE_ORDER=PCI_BUS_ID",
                        "gpu3 88-103 bind:8 CUDA_VISIBLE_DEVICES=3 CUDA_DEVICE_ORDER=PCI_BUS_ID",
                        "gpu4 88-103 bind:8 CUDA_VISIBLE_DEVICES=4 CUDA_DEVICE_ORDER=PCI_BUS_ID",
                        "gpu5 88-103 bind:8 CUDA_VISIBLE_DEVICES=5 CUDA_DEVICE_ORDER=PCI_BUS_ID"};
  for (unsigned r = 0; r < 6; ++r) {
    Placement p = place(p9, gpu_request("closest", false), ompi(r, 6));
    CHECK(summary(p) == want[r]);
    CHECK(p.gpu->gpu.memory_node == 255 - static_cast<long>(r));
    CHECK(p.warnings.empty());
  }
  // Two ranks sliced: one a socket, the first GPU of each.
  CHECK(summary(place(p9, gpu_request("closest"), ompi(0, 2))).substr(0, 16) == "gpu0 0-15 bind:0");
  CHECK(summary(place(p9, gpu_request("closest"), ompi(1, 2))).substr(0, 18) == "gpu3 88-103 bind:8");
  // The capture's own cpuset (socket 0): socket 1's GPUs are left out.
  Placement p = place(p9, gpu_request("closest", false), ompi(3, 6), "0-15");
  CHECK(summary(p).substr(0, 16) == "gpu0 0-15 bind:0");
  CHECK(p.gpu->left_out == std::vector<std::string>{"gpu3 (0007:00:00.0) is near CPUs 88-103",
                                                    "gpu4 (0035:04:00.0) is near CPUs 88-103",
                                                    "gpu5 (0035:05:00.0) is near CPUs 88-103"});
  CHECK(p.warnings == std::vector<std::string>{"local rank 3 of 6 shares gpu0 (0004:05:00.0) with rank 0 (6 ranks, 3 GPUs)"});
}
