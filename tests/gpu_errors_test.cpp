// --gpu's refusals and warnings (affix(1), GPUS, "Which GPU"): a GPU that
// is not there, not NVIDIA's or AMD's, not near the rank, outside the
// cpuset; a launcher's variables that make no sense; a GPU the kernel
// places nowhere. Each with its exact words.
#include <catch2/catch.hpp>

#include "gpu_fixtures.hpp"

using namespace affix;
using namespace affix::test;

TEST_CASE("gpu: a GPU that cannot be given is an error that says why") {
  TempRoot root;
  nvidia_machine(root);
  CHECK(error_of(root, gpu_request("9"), ompi(0, 1)) ==
        "no GPU gpu9 on this machine | GPUs here, in PCI address order: gpu0 (0000:1b:00.0), gpu1 (0000:3b:00.0), "
        "gpu2 (0000:88:00.0), gpu3 (0000:b1:00.0)");
  CHECK(error_of(root, gpu_request("2"), ompi(0, 2)) ==
        "no GPU of --gpu 2 is near CPUs 0-7 (local rank 0 of 2) | the GPUs' CPUs: gpu2: CPUs 8-15; select CPUs "
        "near one (near:gpuN), or name another (--gpu N)");
  CHECK(error_of(root, gpu_request("closest", false, "cpu:3"), {}) == "no error");
  // The cpuset leaves node 1's CPUs out.
  const char* job = "0-7";
  CHECK(error_of(root, gpu_request("2"), ompi(0, 1), job) ==
        "--gpu 2: gpu2 (0000:88:00.0) is near CPUs 8-15, none of them allowed (allowed: 0-7, from "
        "cgroup1:/sys/fs/cgroup/cpuset/job/cpuset.effective_cpus) | the cpuset affix runs in leaves out the GPU's "
        "CPUs: give a GPU near the allowed ones ('affix topo' lists the GPUs and their CPUs)");
  Placement p = place(root, gpu_request("closest"), ompi(1, 2), job);
  CHECK(summary(p).substr(0, 15) == "gpu1 4-7 bind:0");
  CHECK(p.gpu->left_out ==
        std::vector<std::string>{"gpu2 (0000:88:00.0) is near CPUs 8-15", "gpu3 (0000:b1:00.0) is near CPUs 8-15"});
  CHECK(p.gpu->pool == 2);
  CHECK(error_of(root, gpu_request("closest"), ompi(0, 1), "8-15") == "no error");
  // --slice rank without a launcher is still an error; --gpu's own messages name --gpu.
  CHECK(error_of(root, gpu_request("closest"), {}).rfind("--slice rank: no launcher rank found (", 0) == 0);
  CHECK(error_of(root, gpu_request("closest", false), {{"LOCAL_RANK", "x"}, {"LOCAL_WORLD_SIZE", "2"}}) ==
        "--gpu: LOCAL_RANK='x' is not a number | ");
  CHECK(error_of(root, gpu_request("closest", false), {{"MV2_COMM_WORLD_LOCAL_RANK", "2"}, {"MV2_COMM_WORLD_LOCAL_SIZE", "2"}}) ==
        "--gpu: local rank 2 is not below local size 2 (MV2_COMM_WORLD_LOCAL_RANK/MV2_COMM_WORLD_LOCAL_SIZE) | ");
}

TEST_CASE("gpu: display functions of other vendors are no GPUs: never given, never counted") {
  TempRoot root;
  gpu_machine(root, 1, 2, 1);
  GpuSpec bmc = gpu_on("0000:02:00.0", "0x1a03", 0, 2);
  bmc.cls = "0x030000";
  write_gpu(root, bmc);
  const char* none_hint = "it has no PCI function of class 03 (display or 3D controller) of NVIDIA or AMD; 'affix "
                          "topo' lists its displays";
  CHECK(error_of(root, gpu_request("closest", false), {}) ==
        std::string("--gpu closest: no NVIDIA or AMD GPU on this machine | ") + none_hint);
  CHECK(error_of(root, gpu_request("0", false), {}) == std::string("no GPU gpu0 on this machine | ") + none_hint);
  // With an NVIDIA GPU beside the BMC, that GPU is gpu0 (nvidia-smi's 0), and --gpu 0 gives it.
  GpuSpec nv = gpu_on("0000:3b:00.0", "0x10de", 0, 2);
  write_gpu(root, nv);
  CHECK(summary(place(root, gpu_request("closest", false), {})) ==
        "gpu0 0-1 bind:0 CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_ORDER=PCI_BUS_ID");
  CHECK(summary(place(root, gpu_request("0", false), {})) ==
        "gpu0 0-1 bind:0 CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_ORDER=PCI_BUS_ID");
  CHECK(error_of(root, gpu_request("1", false), {}) ==
        "no GPU gpu1 on this machine | GPUs here, in PCI address order: gpu0 (0000:3b:00.0)");
  TempRoot none;
  gpu_machine(none, 1, 2, 1);
  CHECK(error_of(none, gpu_request("closest", false), {}) ==
        std::string("--gpu closest: no NVIDIA or AMD GPU on this machine | ") + none_hint);
}

TEST_CASE("gpu: a GPU the kernel places nowhere is near every CPU, with a warning") {
  TempRoot root;
  gpu_machine(root, 2, 2, 1);
  GpuSpec g = gpu_on("0000:3b:00.0", "0x10de", 0, 2);
  g.numa_node = "-1";
  g.local_cpus = range_mask(0, 3);
  write_gpu(root, g);
  Placement p = place(root, gpu_request("closest"), ompi(1, 2));
  CHECK(summary(p) == "gpu0 2-3 bind:1 CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_ORDER=PCI_BUS_ID");
  CHECK(p.warnings == std::vector<std::string>{
                          "the kernel does not say where gpu0 (0000:3b:00.0) is (numa_node -1): --gpu takes every CPU "
                          "as near it",
                          "local rank 1 of 2 shares gpu0 (0000:3b:00.0) with rank 0 (2 ranks, 1 GPU)"});
}

TEST_CASE("gpu: a job-wide rank without a local one is taken as rank 0 of 1, with a warning") {
  TempRoot root;
  nvidia_machine(root);
  for (const char* global : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "PMIX_RANK", "PALS_RANKID", "RANK"}) {
    Placement p = place(root, gpu_request("closest", false), {{global, "5"}});
    CHECK(p.gpu->gpu.index == 0);
    CHECK(p.warnings == std::vector<std::string>{
                            std::string(global) +
                            "=5 says this is one of several ranks, but no local rank variable is set: it is taken as "
                            "rank 0 of 1, given gpu0 (0000:1b:00.0) like every other such rank (give --slice K/N, or "
                            "set LOCAL_RANK and LOCAL_WORLD_SIZE)"});
  }
  // Cray PALS' local rank is read.
  Placement p = place(root, gpu_request("closest", false),
                      {{"PALS_RANKID", "9"}, {"PALS_LOCAL_RANKID", "1"}, {"PALS_LOCAL_SIZE", "4"}});
  CHECK(p.gpu->gpu.index == 1);
  CHECK(p.gpu->rank.source == "PALS_LOCAL_RANKID/PALS_LOCAL_SIZE");
  CHECK(p.warnings.empty());
}
