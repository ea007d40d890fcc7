// The GPUs of a machine (affix(1), GPUS, "The GPUs"): found in sysfs alone,
// in PCI address order, NVIDIA's and AMD's told apart from other display
// functions, with what the drivers say of them (UUID, unique_id, the node of
// their memory), on synthetic trees and on the captures that have GPUs.
#include <catch2/catch.hpp>

#include "corpus.hpp"
#include "devices.hpp"
#include "error.hpp"
#include "gpu_builders.hpp"
#include "gpus.hpp"
#include "temp_root.hpp"
#include "topo_output.hpp"
#include "topology.hpp"

using namespace affix;
using namespace affix::test;

namespace {

// "gpu0 nvidia #0 GPU-... mem 255 card1; ..."
std::string describe(const std::vector<Gpu>& gpus) {
  std::string out;
  for (const Gpu& g : gpus) {
    out += g.device.name + " " + g.device.pci.text() + " " + gpu_vendor_name(g.vendor) + " #" +
           std::to_string(g.vendor_index) + " node " + std::to_string(g.device.numa_node);
    if (!g.uuid.empty()) out += " " + g.uuid;
    if (g.memory_node) out += " mem " + std::to_string(*g.memory_node);
    if (!g.card.empty()) out += " " + g.card;
    out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("gpus: NVIDIA, AMD and a BMC's VGA, in PCI address order, with what their drivers say; the BMC's is a display") {
  TempRoot root;
  gpu_machine(root, 2, 2, 1);
  GpuSpec bmc = gpu_on("0000:02:00.0", "0x1a03", 0, 2);
  bmc.cls = "0x030000";
  write_gpu(root, bmc);
  GpuSpec nv0 = gpu_on("0000:3b:00.0", "0x10de", 0, 2);
  nv0.nvidia_uuid = "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6";
  nv0.card = "card1";
  write_gpu(root, nv0);
  GpuSpec amd0 = gpu_on("0000:5e:00.0", "0x1002", 0, 2);
  amd0.cls = "0x038000";
  amd0.unique_id = "2d9e4e3a1b2c3d4e";
  write_gpu(root, amd0);
  GpuSpec nv1 = gpu_on("0000:af:00.0", "0x10de", 1, 2);
  nv1.nvidia_driver = true;  // the driver lists it, without an information file
  write_gpu(root, nv1);
  GpuSpec amd1 = gpu_on("0001:00:00.0", "0x1002", 1, 2);  // no unique_id (before GFX9)
  write_gpu(root, amd1);
  SysRoot sys(root.path());
  std::vector<Gpu> gpus = read_gpus(sys);
  // The ASPEED VGA (vendor 0x1a03) is no gpuN: gpu0 is the first NVIDIA
  // GPU, as nvidia-smi counts it.
  CHECK(describe(gpus) ==
        "gpu0 0000:3b:00.0 nvidia #0 node 0 GPU-8932f937-d72c-4106-c12f-20bd9faed9f6 card1\n"
        "gpu1 0000:5e:00.0 amd #0 node 0 GPU-2d9e4e3a1b2c3d4e\n"
        "gpu2 0000:af:00.0 nvidia #1 node 1\n"
        "gpu3 0001:00:00.0 amd #1 node 1\n");
  CHECK(gpus[0].vendor_id == 0x10de);
  for (const Gpu& g : gpus) CHECK(g.device.warnings.empty());
  // near:gpuN numbers the same functions; the BMC's is display0.
  CHECK(read_device(sys, "gpu2").pci.text() == "0000:af:00.0");
  CHECK(read_device(sys, "gpu0").pci.text() == "0000:3b:00.0");
  Device d = read_device(sys, "display0");
  CHECK(d.pci.text() == "0000:02:00.0");
  CHECK(d.kind == "display");
  std::vector<Display> displays = read_displays(sys);
  REQUIRE(displays.size() == 1);
  CHECK(displays[0].device.name == "display0");
  CHECK(displays[0].vendor_id == 0x1a03);
  // topo lists it as a display, after the GPUs.
  std::vector<Device> all = list_devices(sys);
  REQUIRE(all.size() == 5);
  CHECK(all[3].name == "gpu3");
  CHECK(all[4].name == "display0");
  CHECK(all[4].kind == "display");
  CHECK_THROWS_WITH(read_device(sys, "gpu4"), "no GPU gpu4 on this machine");
  try {
    read_device(sys, "gpu4");
  } catch (const Error& e) {
    CHECK(e.hint() ==
          "GPUs here, in PCI address order: gpu0 (0000:3b:00.0), gpu1 (0000:5e:00.0), gpu2 (0000:af:00.0), "
          "gpu3 (0001:00:00.0); displays (no GPU runtime numbers them): display0 (0000:02:00.0)");
  }
}

TEST_CASE("gpus: an ASPEED BMC before two NVIDIA GPUs: --gpu 0 and near:gpu0 are nvidia-smi's GPU 0") {
  TempRoot root;
  gpu_machine(root, 2, 2, 1);
  GpuSpec bmc = gpu_on("0000:02:00.0", "0x1a03", 0, 2);
  bmc.cls = "0x030000";
  bmc.card = "card0";
  write_gpu(root, bmc);
  write_gpu(root, gpu_on("0000:3b:00.0", "0x10de", 0, 2));
  write_gpu(root, gpu_on("0000:af:00.0", "0x10de", 1, 2));
  SysRoot sys(root.path());
  CHECK(describe(read_gpus(sys)) == "gpu0 0000:3b:00.0 nvidia #0 node 0\ngpu1 0000:af:00.0 nvidia #1 node 1\n");
  CHECK(read_device(sys, "gpu1").pci.text() == "0000:af:00.0");
  Topology topo = read_topology(sys);
  topo.gpus = read_gpus(sys);
  topo.displays = read_displays(sys);
  std::string text = topo_text(topo, Allowed{topo.online, topo.node_set(), std::nullopt, "all-online", "all-nodes"});
  CHECK(text.find("gpus       gpu0   0000:3b:00.0  nvidia  node 0   cpus 0-1\n"
                  "           gpu1   0000:af:00.0  nvidia  node 1   cpus 2-3\n"
                  "displays   display0  0000:02:00.0  0x1a03  node 0   cpus 0-1  card0\n") != std::string::npos);
}

TEST_CASE("gpus: a GPU's device file, and whether this process may open it") {
  TempRoot root;
  gpu_machine(root, 1, 2, 1);
  GpuSpec nv = gpu_on("0000:3b:00.0", "0x10de", 0, 2);
  nv.nvidia_uuid = "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6";
  write_gpu(root, nv);
  root.write("proc/driver/nvidia/gpus/0000:3b:00.0/information",
             "Model: \t\t NVIDIA H100\nGPU UUID: \t GPU-8932f937-d72c-4106-c12f-20bd9faed9f6\nDevice Minor: \t 2\n");
  root.write("dev/nvidia2", "");
  GpuSpec amd = gpu_on("0000:5e:00.0", "0x1002", 0, 2);
  write_gpu(root, amd);
  root.write("sys/devices/pci0000:5e/0000:5e:00.0/drm/renderD129/dev", "226:129\n");
  std::vector<Gpu> gpus = read_gpus(SysRoot(root.path()));
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].device_file == "dev/nvidia2");
  CHECK(gpus[0].may_open == true);
  CHECK(gpus[1].device_file == "dev/dri/renderD129");
  CHECK_FALSE(gpus[1].may_open.has_value());  // not there: unknown, not refused
}

TEST_CASE("gpus: a vendor file missing, the driver listing it: NVIDIA's (the POWER9 capture's case)") {
  TempRoot root;
  gpu_machine(root, 1, 2, 1);
  GpuSpec g = gpu_on("0004:05:00.0", "", 0, 2);
  g.nvidia_driver = true;
  g.memory_node = "255";
  write_gpu(root, g);
  root.remove("sys/devices/pci0004:05/0004:05:00.0/vendor");
  std::vector<Gpu> gpus = read_gpus(SysRoot(root.path()));
  CHECK(describe(gpus) == "gpu0 0004:05:00.0 nvidia #0 node 0 mem 255\n");
  CHECK(gpus[0].vendor_id == 0);
}

TEST_CASE("gpus: files that make no sense are left out, each with a warning naming it") {
  TempRoot root;
  gpu_machine(root, 1, 2, 1);
  GpuSpec nv = gpu_on("0000:3b:00.0", "0x10de", 0, 2);
  nv.nvidia_uuid = "GPU-\x1b[2J";
  nv.memory_node = "two";
  write_gpu(root, nv);
  GpuSpec amd = gpu_on("0000:5e:00.0", "0x1002", 0, 2);
  amd.unique_id = "xyz";
  write_gpu(root, amd);
  GpuSpec empty = gpu_on("0000:af:00.0", "0x1002", 0, 2);
  empty.unique_id = " ";  // amdgpu writes nothing for a GPU without one
  write_gpu(root, empty);
  std::vector<Gpu> gpus = read_gpus(SysRoot(root.path()));
  REQUIRE(gpus.size() == 3);
  CHECK(gpus[0].uuid.empty());
  CHECK_FALSE(gpus[0].memory_node);
  REQUIRE(gpus[0].device.warnings.size() == 2);
  CHECK(gpus[0].device.warnings[0] == root.path() + "/proc/driver/nvidia/gpus/0000:3b:00.0/information: "
                                                    "'GPU UUID: GPU-\\e[2J' is no GPU UUID (left out)");
  CHECK(gpus[0].device.warnings[1] == root.path() + "/proc/driver/nvidia/gpus/0000:3b:00.0/numa_status: "
                                                    "'Node: two' is no node number (left out)");
  CHECK(gpus[1].uuid.empty());
  REQUIRE(gpus[1].device.warnings.size() == 1);
  CHECK(gpus[1].device.warnings[0] ==
        root.path() + "/sys/bus/pci/devices/0000:5e:00.0/unique_id: 'xyz' is no unique_id of 16 hex digits (left out)");
  CHECK(gpus[2].uuid.empty());
  CHECK(gpus[2].device.warnings.empty());
}

TEST_CASE("gpus: the POWER9 capture's six NVIDIA GPUs, their memory on the CPU-less nodes 250-255") {
  SysRoot sys(corpus_root("nvidiagpunumanodes"));
  std::vector<Gpu> gpus = read_gpus(sys);
  CHECK(describe(gpus) ==
        "gpu0 0004:05:00.0 nvidia #0 node -1 mem 255\n"
        "gpu1 0004:06:00.0 nvidia #1 node -1 mem 254\n"
        "gpu2 0006:00:00.0 nvidia #2 node -1 mem 253\n"
        "gpu3 0007:00:00.0 nvidia #3 node -1 mem 252\n"
        "gpu4 0035:04:00.0 nvidia #4 node -1 mem 251\n"
        "gpu5 0035:05:00.0 nvidia #5 node -1 mem 250\n");
  Topology topo = read_topology(sys);
  topo.devices = list_devices(sys);
  topo.gpus = gpus;
  // Their CPUs are their local_cpus' socket (node 0: CPUs 0-15, node 8: 88-103).
  CHECK(format_cpulist(device_place(topo, gpus[0].device).cpus) == "0-15");
  CHECK(format_cpulist(device_place(topo, gpus[5].device).cpus) == "88-103");
  std::string text = topo_text(topo, Allowed{topo.online, topo.node_set(), std::nullopt, "all-online", "all-nodes"});
  CHECK(text.find("gpus       gpu0   0004:05:00.0  nvidia  no node  cpus 0-15  memory on node 255\n"
                  "           gpu1   0004:06:00.0  nvidia  no node  cpus 0-15  memory on node 254\n") != std::string::npos);
  CHECK(text.find("           gpu5   0035:05:00.0  nvidia  no node  cpus 88-103  memory on node 250\n") !=
        std::string::npos);
  CHECK(text.find("no CPUs  mem 15.0 GiB (15.0 GiB free)  GPU memory of gpu5 (0035:05:00.0)\n") != std::string::npos);
}

TEST_CASE("gpus: the captures' display functions of other vendors (Cirrus, Matrox) are displays, no GPU") {
  SysRoot pa(corpus_root("2pa-pcidomain32bits"));
  CHECK(read_gpus(pa).empty());
  std::vector<Display> cirrus = read_displays(pa);
  REQUIRE(cirrus.size() == 1);
  CHECK(cirrus[0].device.name == "display0");
  CHECK(cirrus[0].device.pci.text() == "0000:00:02.0");
  CHECK(cirrus[0].vendor_id == 0x1013);
  CHECK(cirrus[0].card == "card0");
  SysRoot fake(corpus_root("fakepcilocalities"));
  CHECK(read_gpus(fake).empty());
  std::vector<Display> matrox = read_displays(fake);
  REQUIRE(matrox.size() == 1);
  CHECK(matrox[0].device.pci.text() == "0000:09:03.0");
  CHECK(matrox[0].vendor_id == 0x102b);
}
