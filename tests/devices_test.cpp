// near:DEVICE and topo's devices (affix(1), LOCATIONS, near:DEVICE) on
// synthetic roots: a device behind a bridge on a non-root bus, one with
// numa_node -1, local_cpus and local_cpulist that disagree, virtual
// devices, and every error's exact text.
#include <catch2/catch.hpp>

#include "devices.hpp"
#include "error.hpp"
#include "fixtures.hpp"
#include "location.hpp"
#include "near.hpp"
#include "resolver.hpp"
#include "temp_root.hpp"
#include "topo_builder.hpp"
#include "topo_output.hpp"
#include "topology.hpp"

using namespace affix;
using namespace affix::test;

namespace {

// 2 sockets = 2 nodes (0: CPUs 0-3, 1: CPUs 4-7), 2 threads per core
// (siblings consecutive), one L3 per socket.
void two_node_machine(const TempRoot& root) {
  root.write("sys/devices/system/cpu/online", "0-7\n");
  root.write("sys/devices/system/cpu/possible", "0-7\n");
  root.write("sys/devices/system/cpu/present", "0-7\n");
  for (unsigned c = 0; c < 8; ++c) {
    std::string dir = "sys/devices/system/cpu/cpu" + std::to_string(c);
    std::string pkg = c < 4 ? "0-3" : "4-7";
    unsigned first = c - c % 2;
    root.write(dir + "/topology/physical_package_id", c < 4 ? "0\n" : "1\n");
    root.write(dir + "/topology/core_id", std::to_string(c / 2 % 2) + "\n");
    root.write(dir + "/topology/die_id", "0\n");
    root.write(dir + "/topology/thread_siblings_list", std::to_string(first) + "-" + std::to_string(first + 1) + "\n");
    root.write(dir + "/topology/core_siblings_list", pkg + "\n");
    root.write(dir + "/cache/index3/level", "3\n");
    root.write(dir + "/cache/index3/type", "Unified\n");
    root.write(dir + "/cache/index3/shared_cpu_list", pkg + "\n");
  }
  for (unsigned n = 0; n < 2; ++n) {
    std::string dir = "sys/devices/system/node/node" + std::to_string(n);
    root.write(dir + "/cpulist", n == 0 ? "0-3\n" : "4-7\n");
    root.write(dir + "/meminfo", "Node " + std::to_string(n) + " MemTotal: 1000 kB\n");
    root.write(dir + "/distance", n == 0 ? "10 20\n" : "20 10\n");
  }
}

// A PCI function's directory with its locality files ("" leaves one out).
void pci_function(const TempRoot& root, const std::string& dir, const std::string& numa_node,
                  const std::string& local_cpus, const std::string& local_cpulist = "",
                  const std::string& cls = "0x020000") {
  if (!numa_node.empty()) root.write(dir + "/numa_node", numa_node + "\n");
  if (!local_cpus.empty()) root.write(dir + "/local_cpus", local_cpus + "\n");
  if (!local_cpulist.empty()) root.write(dir + "/local_cpulist", local_cpulist + "\n");
  root.write(dir + "/class", cls + "\n");
  std::string name = dir.substr(dir.rfind('/') + 1);
  root.symlink("../../../" + dir.substr(4), "sys/bus/pci/devices/" + name);
}

// eth0 behind the bridge 0000:00:01.0 on bus 02 (local_cpus 0-2, its
// cpulist saying 0 alone), eth1 with numa_node -1 and every CPU local, the
// disk nvme0n1 (and its partition) on node 1 with no local_cpus, a GPU on
// bus 03 local to CPUs 4-5, lo and a VLAN on eth0 (virtual).
void devices_machine(const TempRoot& root) {
  two_node_machine(root);
  pci_function(root, "sys/devices/pci0000:00/0000:00:01.0", "0", "0f", "0-3", "0x060400");
  pci_function(root, "sys/devices/pci0000:00/0000:00:01.0/0000:02:00.0", "0", "07", "0");
  root.symlink("../../devices/pci0000:00/0000:00:01.0/0000:02:00.0/net/eth0", "sys/class/net/eth0");
  pci_function(root, "sys/devices/pci0000:00/0000:00:02.0", "-1", "ff");
  root.symlink("../../devices/pci0000:00/0000:00:02.0/net/eth1", "sys/class/net/eth1");
  pci_function(root, "sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0", "1", "", "", "0x010802");
  root.symlink("../../devices/pci0000:80/0000:80:03.0/0000:81:00.0/nvme/nvme0/nvme0n1", "sys/class/block/nvme0n1");
  root.symlink("../../devices/pci0000:80/0000:80:03.0/0000:81:00.0/nvme/nvme0/nvme0n1/nvme0n1p1",
               "sys/class/block/nvme0n1p1");
  root.write("sys/devices/pci0000:80/0000:80:03.0/0000:81:00.0/nvme/nvme0/nvme0n1/nvme0n1p1/partition", "1\n");
  pci_function(root, "sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0", "1", "00000030", "", "0x030000");
  root.write("sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/vendor", "0x1002\n");  // AMD's: a GPU
  root.symlink("../../devices/pci0000:00/0000:00:03.0/0000:03:00.0/drm/card0", "sys/class/drm/card0");
  root.symlink("../../devices/pci0000:00/0000:00:03.0/0000:03:00.0/drm/renderD128", "sys/class/drm/renderD128");
  root.mkdir("sys/devices/virtual/net/lo");
  root.symlink("../../devices/virtual/net/lo", "sys/class/net/lo");
  root.symlink("../../../devices/pci0000:00/0000:00:01.0/0000:02:00.0/net/eth0",
               "sys/devices/virtual/net/vlan5/lower_eth0");
  root.symlink("../../devices/virtual/net/vlan5", "sys/class/net/vlan5");
}

struct Machine {
  TempRoot root;
  SysRoot sys{root.path()};
  Machine() { devices_machine(root); }

  Placement resolve_where(const std::string& where, std::optional<MemRequest> mem = std::nullopt) const {
    PlacementRequest r;
    r.where = where;
    r.mem = mem;
    Topology topo = read_topology(sys);
    RequestLocations locations = parse_locations(r);
    read_location_devices(sys, locations, topo);
    return resolve(r, locations, topo, allow_all(topo), env_of({}));
  }
  std::string cpus(const std::string& where) const { return format_cpulist(resolve_where(where).cpus); }
  // "KIND: WHAT | HINT" of the error near:... gives.
  std::string error(const std::string& where) const {
    try {
      resolve_where(where);
    } catch (const Error& e) {
      const char* kind = e.kind() == ErrorKind::Spec ? "spec" : e.kind() == ErrorKind::Resolution ? "resolution" : "other";
      return std::string(kind) + ": " + e.what() + " | " + e.hint();
    }
    return "no error";
  }
};

}  // namespace

TEST_CASE("near: a device behind a bridge is its last PCI function's, local_cpus read as the mask") {
  Machine m;
  Device d = read_device(m.sys, "eth0");
  CHECK(d.kind == "net");
  CHECK(d.pci.text() == "0000:02:00.0");
  CHECK(d.numa_node == 0);
  // local_cpus 07 (CPUs 0-2), not local_cpulist's 0: the smallest unit
  // holding 0-2 is socket 0 / node 0 / llc 0.
  CHECK(m.cpus("near:eth0") == "0-3");
  Placement p = m.resolve_where("near:eth0");
  REQUIRE(p.near.size() == 1);
  CHECK(p.near[0].device.name == "eth0");
  CHECK(p.warnings.empty());
  // A later step narrows it; a union adds to it.
  CHECK(m.cpus("near:eth0.core:1") == "2-3");
  CHECK(m.cpus("near:eth0+cpu:7") == "0-3,7");
}

TEST_CASE("near: gpuN, disks, PCI addresses; local CPUs in one core give the core, none the node's") {
  Machine m;
  CHECK(m.cpus("near:gpu0") == "4-5");
  CHECK(read_device(m.sys, "gpu0").pci.text() == "0000:03:00.0");
  CHECK(m.cpus("near:nvme0n1") == "4-7");
  CHECK(m.cpus("near:nvme0n1p1") == "4-7");
  CHECK(m.cpus("near:card0") == "4-5");
  CHECK(m.cpus("near:0000:81:00.0") == "4-7");
  CHECK(m.cpus("near:81:00.0") == "4-7");
  CHECK(m.cpus("near:81:00.0.core:0") == "4-5");
  CHECK(m.cpus("near:0000:02:00.0+near:81:00.0") == "0-7");
  Placement p = m.resolve_where("near:nvme0n1", MemRequest{MemPolicy::Bind, std::nullopt});
  CHECK(format_cpulist(p.nodes) == "1");
  CHECK(format_cpulist(p.mem_nodes) == "1");
}

TEST_CASE("near: numa_node -1 with every CPU local on two nodes is the whole machine, with a warning") {
  Machine m;
  Placement p = m.resolve_where("near:eth1");
  CHECK(format_cpulist(p.cpus) == "0-7");
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0] == "the kernel does not say where eth1 is (numa_node -1): near:eth1 is every CPU");
  REQUIRE(p.near.size() == 1);
  CHECK(p.near[0].warning == p.warnings[0]);
}

TEST_CASE("near: errors name the device, with hints") {
  Machine m;
  CHECK(m.error("near:eth9") ==
        "resolution: no device 'eth9' (not in /sys/class/net, block, infiniband, drm or dax) | "
        "devices here: card0 eth0 eth1 lo nvme0n1 nvme0n1p1 renderD128 vlan5");
  CHECK(m.error("near:lo") == "resolution: lo has no PCI function (a virtual device: " + m.root.path() +
                                  "/sys/devices/virtual/net/lo) | near: takes a device on PCI (a network card, "
                                  "disk, RDMA device, GPU); 'affix topo --json' lists them");
  CHECK(m.error("near:vlan5") == "resolution: vlan5 has no PCI function (a virtual device: " + m.root.path() +
                                     "/sys/devices/virtual/net/vlan5) | its lower device is eth0: near:eth0");
  CHECK(m.error("near:0000:99:00.0") ==
        "resolution: no PCI function 0000:99:00.0 on this machine | PCI functions here: 0000:00:01.0 "
        "0000:00:02.0 0000:02:00.0 0000:03:00.0 0000:81:00.0");
  CHECK(m.error("near:gpu1") ==
        "resolution: no GPU gpu1 on this machine | GPUs here, in PCI address order: gpu0 (0000:03:00.0)");
}

TEST_CASE("near: syntax errors point at the character") {
  auto spec = [](const std::string& s) {
    try {
      parse_location(s);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Spec);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto caret = [](const std::string& s, const std::string& reason, size_t pos) {
    return "invalid location '" + s + "': " + reason + "\n  " + s + "\n  " + std::string(pos, ' ') + "^";
  };
  CHECK(spec("near:0000:81:00.8") == caret("near:0000:81:00.8", "PCI function 8 above 7", 16));
  CHECK(spec("near:0000:81:20.0") == caret("near:0000:81:20.0", "PCI device 20 above 1f", 13));
  CHECK(spec("near:000:81:00.0") == caret("near:000:81:00.0", "PCI domain '000' is not 4 to 8 hex digits", 5));
  CHECK(spec("near:0000:8:00.0") == caret("near:0000:8:00.0", "PCI bus '8' is not 2 hex digits", 10));
  CHECK(spec("near:81:00") == caret("near:81:00", "missing '.F' (the PCI function) after the device", 10));
  CHECK(spec("socket:0.near:eth0") == caret("socket:0.near:eth0", "'near:' can only be the first step", 9));
  CHECK(spec("near:") == caret("near:", "missing device after 'near:'", 5));
  CHECK(spec("near") == caret("near", "expected ':' after 'near'", 4));
  CHECK(spec("near:a/b") == caret("near:a/b", "a device name has no '/'", 6));
  CHECK(spec(std::string("near:a\0b", 8)) ==
        caret("near:a?b", "a device name has no NUL byte", 6));
  std::string long_name = "near:" + std::string(256, 'x');
  CHECK(spec(long_name) == caret(long_name, "device name of 256 characters (at most 255)", 5));
  Location ok = parse_location("near:eth0.core:0-1+near:0000:81:00.0+node:1");
  REQUIRE(ok.terms.size() == 3);
  CHECK(ok.terms[0].steps[0].type == StepType::Near);
  CHECK(ok.terms[0].steps[0].device == "eth0");
  CHECK(ok.terms[0].steps.size() == 2);
  CHECK(ok.terms[1].steps[0].device == "0000:81:00.0");
}

TEST_CASE("topo: the devices near: takes by name, by class then name, without virtual ones or partitions") {
  Machine m;
  Topology topo = read_topology(m.sys);
  topo.devices = list_devices(m.sys);
  std::string names;
  for (const Device& d : topo.devices) names += d.kind + ":" + d.name + "@" + d.pci.text() + " ";
  CHECK(names ==
        "net:eth0@0000:02:00.0 net:eth1@0000:00:02.0 block:nvme0n1@0000:81:00.0 drm:card0@0000:03:00.0 "
        "gpu:gpu0@0000:03:00.0 ");
  Allowed allowed = allow_all(topo);
  std::string text = topo_text(topo, allowed);
  CHECK(text.find("\ndevices    node 0   eth0\n"
                  "           node 1   nvme0n1 card0 gpu0\n"
                  "           no node  eth1 (cpus 0-7)\n") != std::string::npos);
  std::string json = topo_json(topo, allowed);
  CHECK(json.find(R"("devices": [{"name": "eth0", "class": "net", "pci": "0000:02:00.0", "node": 0, "cpus": "0-3"}, )"
                  R"({"name": "eth1", "class": "net", "pci": "0000:00:02.0", "node": null, "cpus": "0-7"}, )") !=
        std::string::npos);
}
