// A job's GPUs are the pool (affix(1), GPUS, "A job's GPUs"): the list a
// launcher, a scheduler or a user left in CUDA_VISIBLE_DEVICES or
// ROCR_VISIBLE_DEVICES (indices, GPU UUIDs and their prefixes, MIG
// instances), and the GPUs a device cgroup lets this process open. --gpu
// gives only these, names the one it gives so that the runtime opens that
// one, and refuses a list it cannot read. On the POWER9 capture and
// synthetic trees.
#include <catch2/catch.hpp>

#include "corpus.hpp"
#include "gpu_fixtures.hpp"
#include "gpu_pool.hpp"
#include "gpus.hpp"

using namespace affix;
using namespace affix::test;

namespace {

constexpr const char* k_hint =
    "affix reads the list as the GPU runtime does, to give only those GPUs: give indices or GPU UUIDs ('affix topo "
    "--json' lists the GPUs and their UUIDs), or unset it to give every GPU";

const char* uuid2 = "GPU-2a2b3c4d-0000-1111-2222-333344445555";

}  // namespace

TEST_CASE("gpu pool: CUDA_VISIBLE_DEVICES=2 on the POWER9 capture gives gpu2, not another job's gpu0") {
  std::string p9 = corpus_root("nvidiagpunumanodes");
  Placement p = place(p9, gpu_request("closest", false), {{"CUDA_VISIBLE_DEVICES", "2"}});
  CHECK(summary(p) == "gpu2 0-15 bind:0 CUDA_VISIBLE_DEVICES=2 CUDA_DEVICE_ORDER=PCI_BUS_ID");
  CHECK(p.gpu->pool == 1);
  CHECK(p.gpu->pool_source == "CUDA_VISIBLE_DEVICES=2");
  // The capture says nothing of the GPUs' models: CUDA's default order is
  // fastest first, which affix cannot check.
  CHECK(p.warnings ==
        std::vector<std::string>{
            "CUDA_VISIBLE_DEVICES='2' counts GPUs in CUDA's order, and CUDA_DEVICE_ORDER is unset: affix takes each "
            "index in PCI address order, which CUDA's default (fastest first) follows for GPUs of one model, and "
            "their models are unknown here (set CUDA_DEVICE_ORDER=PCI_BUS_ID where the list was made)"});
  p = place(p9, gpu_request("closest", false), {{"CUDA_VISIBLE_DEVICES", "2"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}});
  CHECK(summary(p) == "gpu2 0-15 bind:0 CUDA_VISIBLE_DEVICES=2 CUDA_DEVICE_ORDER=PCI_BUS_ID");
  CHECK(p.warnings.empty());
  // Two ranks over a pool of two take one each, in the list's order.
  Env env = ompi(0, 2);
  env["CUDA_VISIBLE_DEVICES"] = "4,1";
  env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
  CHECK(summary(place(p9, gpu_request("closest", false), env)) ==
        "gpu4 88-103 bind:8 CUDA_VISIBLE_DEVICES=4 CUDA_DEVICE_ORDER=PCI_BUS_ID");
  env = ompi(1, 2);
  env["CUDA_VISIBLE_DEVICES"] = "4,1";
  env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
  p = place(p9, gpu_request("closest", false), env);
  CHECK(summary(p) == "gpu1 0-15 bind:0 CUDA_VISIBLE_DEVICES=1 CUDA_DEVICE_ORDER=PCI_BUS_ID");
  CHECK(p.gpu->pool == 2);
  CHECK(p.gpu->shared_with.empty());
}

TEST_CASE("gpu pool: an index, a UUID prefix and a MIG instance, each exported as the GPU's own name") {
  TempRoot root;
  nvidia_machine(root);
  Env env = {{"CUDA_VISIBLE_DEVICES", "2"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
  Placement p = place(root, gpu_request("closest", false), env);
  CHECK(summary(p) == std::string("gpu2 8-15 bind:1 CUDA_VISIBLE_DEVICES=") + uuid2 + " CUDA_DEVICE_ORDER=PCI_BUS_ID");
  CHECK(p.gpu->replaced == EnvVars{{"CUDA_VISIBLE_DEVICES", "2"}});
  // Enough of a UUID to tell it from the others, in any case.
  env["CUDA_VISIBLE_DEVICES"] = "gpu-3A2B";
  CHECK(summary(place(root, gpu_request("closest", false), env)).substr(0, 16) == "gpu3 8-15 bind:1");
  // A MIG instance of gpu1: its GPU's CPUs, and the instance itself exported.
  env["CUDA_VISIBLE_DEVICES"] = "MIG-GPU-1a2b3c4d-0000-1111-2222-333344445555/1/0";
  p = place(root, gpu_request("closest", false), env);
  CHECK(summary(p) ==
        "gpu1 0-7 bind:0 CUDA_VISIBLE_DEVICES=MIG-GPU-1a2b3c4d-0000-1111-2222-333344445555/1/0 "
        "CUDA_DEVICE_ORDER=PCI_BUS_ID");
  CHECK(p.gpu->id == "MIG-GPU-1a2b3c4d-0000-1111-2222-333344445555/1/0");
  // GPUs of one model (the same PCI device id): CUDA's default order is PCI order, no warning.
  for (const char* bdf : {"0000:1b:00.0", "0000:3b:00.0", "0000:88:00.0", "0000:b1:00.0"})
    root.write(std::string("sys/devices/pci") + std::string(bdf).substr(0, 7) + "/" + bdf + "/device", "0x2330\n");
  p = place(root, gpu_request("closest", false), {{"CUDA_VISIBLE_DEVICES", "3,0"}});
  CHECK(summary(p).substr(0, 16) == "gpu3 8-15 bind:1");
  CHECK(p.warnings.empty());
  // Of two models, it warns.
  root.write("sys/devices/pci0000:1b/0000:1b:00.0/device", "0x20b0\n");
  p = place(root, gpu_request("closest", false), {{"CUDA_VISIBLE_DEVICES", "3,0"}});
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].find("and these are of several models (set CUDA_DEVICE_ORDER=PCI_BUS_ID") != std::string::npos);
}

TEST_CASE("gpu pool: ROCR_VISIBLE_DEVICES, then HIP's list among the GPUs ROCr shows") {
  TempRoot root;
  amd_machine(root);
  // gpu5 by index (it has no unique_id), gpu2 by its unique_id in capitals.
  Env env = ompi(0, 2);
  env["ROCR_VISIBLE_DEVICES"] = "5,GPU-00000000000000A2";
  Placement p = place(root, gpu_request("closest", false), env);
  CHECK(summary(p) == "gpu5 8-11 bind:2 ROCR_VISIBLE_DEVICES=5 CUDA_VISIBLE_DEVICES=0");
  CHECK(p.gpu->pool_source == "ROCR_VISIBLE_DEVICES=5,GPU-00000000000000A2");
  env = ompi(1, 2);
  env["ROCR_VISIBLE_DEVICES"] = "5,GPU-00000000000000A2";
  CHECK(summary(place(root, gpu_request("closest", false), env)) ==
        "gpu2 4-7 bind:1 ROCR_VISIBLE_DEVICES=GPU-00000000000000a2 CUDA_VISIBLE_DEVICES=0");
  // HIP_VISIBLE_DEVICES=1 is the second GPU ROCr shows: gpu3.
  env = {{"ROCR_VISIBLE_DEVICES", "5,3"}, {"HIP_VISIBLE_DEVICES", "1"}};
  p = place(root, gpu_request("closest", false), env);
  CHECK(summary(p) == "gpu3 4-7 bind:1 ROCR_VISIBLE_DEVICES=3 CUDA_VISIBLE_DEVICES=0 HIP_VISIBLE_DEVICES=0");
  CHECK(p.gpu->env == EnvVars{{"ROCR_VISIBLE_DEVICES", "3"}, {"CUDA_VISIBLE_DEVICES", "0"}, {"HIP_VISIBLE_DEVICES", "0"}});
  CHECK(p.gpu->pool_source == "ROCR_VISIBLE_DEVICES=5,3 HIP_VISIBLE_DEVICES=1");
}

TEST_CASE("gpu pool: a list affix cannot map is an error, never a wider pool") {
  TempRoot root;
  nvidia_machine(root);
  auto err = [&](const std::string& var, const std::string& value) {
    return error_of(root, gpu_request("closest", false), {{var, value}});
  };
  CHECK(err("CUDA_VISIBLE_DEVICES", "0,7") ==
        std::string("CUDA_VISIBLE_DEVICES='0,7': '7' is an index, and this process may open 4 NVIDIA GPUs (gpu0, "
                    "gpu1, gpu2, gpu3) | ") + k_hint);
  CHECK(err("CUDA_VISIBLE_DEVICES", "GPU-9") ==
        std::string("CUDA_VISIBLE_DEVICES='GPU-9': 'GPU-9' names no NVIDIA GPU this process may open (gpu0, gpu1, "
                    "gpu2, gpu3) | ") + k_hint);
  CHECK(err("CUDA_VISIBLE_DEVICES", "MIG-4f1e2d3c-0000-1111-2222-333344445555") ==
        std::string("CUDA_VISIBLE_DEVICES='MIG-4f1e2d3c-0000-1111-2222-333344445555': "
                    "'MIG-4f1e2d3c-0000-1111-2222-333344445555' is a MIG instance's own UUID, which sysfs ties to no "
                    "GPU (name it as MIG-GPU-UUID/GI/CI, or name its GPU) | ") + k_hint);
  CHECK(err("CUDA_VISIBLE_DEVICES", "1,GPU-1a2b") ==
        std::string("CUDA_VISIBLE_DEVICES='1,GPU-1a2b': 'GPU-1a2b' names gpu1 (0000:3b:00.0) again | ") + k_hint);
  CHECK(err("CUDA_VISIBLE_DEVICES", "0000:3b:00.0") ==
        std::string("CUDA_VISIBLE_DEVICES='0000:3b:00.0': '0000:3b:00.0' is no index, GPU UUID (GPU-...) or MIG "
                    "instance (MIG-...) | ") + k_hint);
  CHECK(err("CUDA_VISIBLE_DEVICES", "") ==
        "CUDA_VISIBLE_DEVICES='' gives this process no NVIDIA GPU | --gpu gives a GPU of the job's: unset the "
        "variable, or run where the job was given GPUs");
  CHECK(err("CUDA_VISIBLE_DEVICES", "-1").rfind("CUDA_VISIBLE_DEVICES='-1' gives this process no NVIDIA GPU |", 0) == 0);
  // The POWER9 capture's driver gives no UUIDs: a UUID names nothing affix can find.
  CHECK(error_of(corpus_root("nvidiagpunumanodes"), gpu_request("closest", false),
                 {{"CUDA_VISIBLE_DEVICES", "GPU-8932f937"}})
            .rfind("CUDA_VISIBLE_DEVICES='GPU-8932f937': 'GPU-8932f937' is a UUID, and the driver gives none for the "
                   "NVIDIA GPUs here (gpu0, gpu1, gpu2, gpu3, gpu4, gpu5) | ",
                   0) == 0);
  // --gpu N must be one of the job's.
  CHECK(error_of(root, gpu_request("0", false), {{"CUDA_VISIBLE_DEVICES", "2"}}) ==
        "--gpu 0: gpu0 (0000:1b:00.0) is not among the GPUs CUDA_VISIBLE_DEVICES=2 gives (gpu2) | a job's GPUs are "
        "its own: name one of them, or give --gpu closest");
  CHECK(summary(place(root, gpu_request("2", false), {{"CUDA_VISIBLE_DEVICES", "2,3"}})).substr(0, 16) ==
        "gpu2 8-15 bind:1");
  // ROCR's list on an AMD machine.
  TempRoot amd;
  amd_machine(amd);
  CHECK(error_of(amd, gpu_request("closest", false), {{"ROCR_VISIBLE_DEVICES", "8"}}) ==
        std::string("ROCR_VISIBLE_DEVICES='8': '8' is an index, and this process may open 8 AMD GPUs (gpu0, gpu1, "
                    "gpu2, gpu3, gpu4, gpu5, gpu6, gpu7) | ") + k_hint);
}

TEST_CASE("gpu pool: under a device cgroup, only the GPUs this process may open, and indices count those") {
  // sysfs shows four NVIDIA GPUs; the cgroup lets the process open gpu2 and gpu3.
  std::vector<Gpu> gpus(4);
  for (unsigned i = 0; i < 4; ++i) {
    gpus[i].index = i;
    gpus[i].vendor_index = i;
    gpus[i].vendor = GpuVendor::Nvidia;
    gpus[i].device.name = "gpu" + std::to_string(i);
    gpus[i].device.pci = *parse_pci_address("0000:0" + std::to_string(i) + ":00.0").value;
    gpus[i].device_file = "dev/nvidia" + std::to_string(i);
    gpus[i].may_open = i >= 2;
  }
  auto env = [](Env e) { return env_of(e); };
  GpuPool pool = gpu_pool(gpus, env({}));
  REQUIRE(pool.gpus.size() == 2);
  CHECK(pool.gpus[0].gpu == &gpus[2]);
  CHECK(pool.gpus[0].id == "0");  // CUDA counts only what it may open
  CHECK(pool.gpus[1].id == "1");
  CHECK(pool.hidden == std::vector<std::string>{"gpu0 (0000:00:00.0): this process may not open dev/nvidia0",
                                                "gpu1 (0000:01:00.0): this process may not open dev/nvidia1"});
  // Slurm's CUDA_VISIBLE_DEVICES=1 under the cgroup: the second GPU it lets open.
  pool = gpu_pool(gpus, env({{"CUDA_VISIBLE_DEVICES", "1"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}));
  REQUIRE(pool.gpus.size() == 1);
  CHECK(pool.gpus[0].gpu == &gpus[3]);
  CHECK(pool.gpus[0].id == "1");
  gpus[3].uuid = "GPU-3a2b3c4d-0000-1111-2222-333344445555";
  pool = gpu_pool(gpus, env({{"CUDA_VISIBLE_DEVICES", "1"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}}));
  CHECK(pool.gpus[0].id == "GPU-3a2b3c4d-0000-1111-2222-333344445555");
  CHECK_THROWS_WITH(gpu_pool(gpus, env({{"CUDA_VISIBLE_DEVICES", "2"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}})),
                    "CUDA_VISIBLE_DEVICES='2': '2' is an index, and this process may open 2 NVIDIA GPUs (gpu2, gpu3)");
}
