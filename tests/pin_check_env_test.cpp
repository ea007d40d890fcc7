// pin --check --gpu's look at a process's environment (affix(1), GPUS,
// "Checking a rank"): the variables run --gpu sets, as /proc/PID/environ
// shows them, each that disagrees named with what it should be.
#include <catch2/catch.hpp>

#include "gpu_fixtures.hpp"
#include "gpus.hpp"
#include "pin_check_env.hpp"
#include "pin_gpu_expect.hpp"
#include "temp_root.hpp"

using namespace affix;
using namespace affix::test;

namespace {

EnvExpect nvidia_gpu1() {
  EnvExpect e;
  e.gpu = "gpu1 (0000:3b:00.0)";
  e.required = {{"CUDA_VISIBLE_DEVICES", "GPU-1a2b"}, {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
  return e;
}

void environ_of(const TempRoot& root, int pid, const std::string& vars) {
  std::string text = vars;
  for (char& c : text)
    if (c == '\n') c = '\0';
  root.write("proc/" + std::to_string(pid) + "/environ", text);
}

}  // namespace

TEST_CASE("pin_check_env: the GPU's variables as run --gpu set them") {
  TempRoot root;
  environ_of(root, 42, "PATH=/bin\nCUDA_VISIBLE_DEVICES=GPU-1a2b\nCUDA_DEVICE_ORDER=PCI_BUS_ID\n");
  EnvExpect e = nvidia_gpu1();
  EnvCheck c = check_env(SysRoot(root.path()), 42, e);
  CHECK(c.ok);
  CHECK(c.readable);
  CHECK(env_check_lines(c, e) ==
        "  42: its environment names gpu1 (0000:3b:00.0): CUDA_VISIBLE_DEVICES=GPU-1a2b CUDA_DEVICE_ORDER=PCI_BUS_ID\n");
}

TEST_CASE("pin_check_env: another GPU's, a variable unset, and one the runtime would read wrong") {
  TempRoot root;
  environ_of(root, 43, "CUDA_VISIBLE_DEVICES=0\nOTHER=1\n");
  EnvExpect e = nvidia_gpu1();
  EnvCheck c = check_env(SysRoot(root.path()), 43, e);
  CHECK_FALSE(c.ok);
  CHECK(env_check_lines(c, e) ==
        "  43: CUDA_VISIBLE_DEVICES=0, not GPU-1a2b (gpu1 (0000:3b:00.0))\n"
        "  43: CUDA_DEVICE_ORDER unset, not PCI_BUS_ID (gpu1 (0000:3b:00.0))\n");
  // AMD: HIP_VISIBLE_DEVICES must be 0 where it is set at all.
  EnvExpect amd;
  amd.gpu = "gpu2 (0000:5e:00.0)";
  amd.required = {{"ROCR_VISIBLE_DEVICES", "GPU-2d9e4e3a1b2c3d4e"}, {"CUDA_VISIBLE_DEVICES", "0"}};
  amd.if_set = {{"HIP_VISIBLE_DEVICES", "0"}, {"GPU_DEVICE_ORDINAL", "0"}};
  environ_of(root, 44, "ROCR_VISIBLE_DEVICES=GPU-2d9e4e3a1b2c3d4e\nCUDA_VISIBLE_DEVICES=0\nHIP_VISIBLE_DEVICES=2\n");
  c = check_env(SysRoot(root.path()), 44, amd);
  CHECK(env_check_lines(c, amd) == "  44: HIP_VISIBLE_DEVICES=2, not 0 (gpu2 (0000:5e:00.0))\n");
  environ_of(root, 45, "ROCR_VISIBLE_DEVICES=GPU-2d9e4e3a1b2c3d4e\nCUDA_VISIBLE_DEVICES=0\n");
  CHECK(check_env(SysRoot(root.path()), 45, amd).ok);
  // A value with a control character is shown escaped.
  environ_of(root, 46, "CUDA_VISIBLE_DEVICES=\x1b[31m\nCUDA_DEVICE_ORDER=PCI_BUS_ID\n");
  c = check_env(SysRoot(root.path()), 46, e);
  CHECK(env_check_lines(c, e) == "  46: CUDA_VISIBLE_DEVICES=\\e[31m, not GPU-1a2b (gpu1 (0000:3b:00.0))\n");
}

TEST_CASE("pin_check_env: an environment that cannot be read is not agreement") {
  TempRoot root;
  EnvExpect e = nvidia_gpu1();
  EnvCheck c = check_env(SysRoot(root.path()), 47, e);
  CHECK_FALSE(c.readable);
  CHECK_FALSE(c.ok);
  CHECK(env_check_lines(c, e) == "  47: environment unknown (its environ cannot be read)\n");
}

TEST_CASE("pin_check_env: the GPU's variable is compared as GPUs: an index, a UUID or a prefix of the same GPU agree") {
  TempRoot root;
  nvidia_machine(root);
  Placement p = place(root, gpu_request("closest"), ompi(2, 4));
  REQUIRE(p.gpu);
  REQUIRE(p.gpu->id == "GPU-2a2b3c4d-0000-1111-2222-333344445555");
  std::vector<Gpu> gpus = read_gpus(SysRoot(root.path()));
  EnvExpect e = gpu_env_expect(*p.gpu, gpus);
  SysRoot sys(root.path());
  // Index 2 (PCI order, as CUDA_DEVICE_ORDER says) is the UUID's GPU.
  environ_of(root, 50, "CUDA_VISIBLE_DEVICES=2\nCUDA_DEVICE_ORDER=PCI_BUS_ID\n");
  EnvCheck c = check_env(sys, 50, e);
  CHECK(c.ok);
  CHECK(env_check_lines(c, e) ==
        "  50: its environment names gpu2 (0000:88:00.0): CUDA_VISIBLE_DEVICES=2 CUDA_DEVICE_ORDER=PCI_BUS_ID\n");
  environ_of(root, 51, "CUDA_VISIBLE_DEVICES=GPU-2a2b\nCUDA_DEVICE_ORDER=PCI_BUS_ID\n");
  CHECK(check_env(sys, 51, e).ok);
  // Another GPU, two GPUs, or none are named as what they are.
  environ_of(root, 52, "CUDA_VISIBLE_DEVICES=1\nCUDA_DEVICE_ORDER=PCI_BUS_ID\n");
  c = check_env(sys, 52, e);
  CHECK_FALSE(c.ok);
  CHECK(env_check_lines(c, e) == "  52: CUDA_VISIBLE_DEVICES=1 names gpu1 (0000:3b:00.0), not gpu2 (0000:88:00.0)\n");
  environ_of(root, 53, "CUDA_VISIBLE_DEVICES=2,3\nCUDA_DEVICE_ORDER=PCI_BUS_ID\n");
  CHECK(env_check_lines(check_env(sys, 53, e), e) ==
        "  53: CUDA_VISIBLE_DEVICES=2,3 names gpu2 (0000:88:00.0), gpu3 (0000:b1:00.0), not gpu2 (0000:88:00.0)\n");
  environ_of(root, 54, "CUDA_VISIBLE_DEVICES=9\nCUDA_DEVICE_ORDER=PCI_BUS_ID\n");
  CHECK(env_check_lines(check_env(sys, 54, e), e) ==
        "  54: CUDA_VISIBLE_DEVICES=9 names no GPU (CUDA_VISIBLE_DEVICES='9': '9' is an index, and this process may "
        "open 4 NVIDIA GPUs (gpu0, gpu1, gpu2, gpu3)), not gpu2 (0000:88:00.0)\n");
}
