// What `affix topo` says of the GPUs (affix(1), OUTPUT): a line per GPU
// with its vendor, node, CPUs and the node of its own memory; the node that
// holds a GPU's memory says whose it is (hwloc calls such a node a GPU
// memory node: hwloc/topology-linux.c, NVIDIA's numa_status); and the
// fields of topo --json's gpu devices.
#include <fmt/format.h>

#include "devices.hpp"
#include "gpus.hpp"
#include "json.hpp"
#include "text.hpp"
#include "topo_output.hpp"

namespace affix {

namespace {

const Gpu* gpu_named(const Topology& topo, const std::string& name) {
  for (const Gpu& g : topo.gpus)
    if (g.device.name == name) return &g;
  return nullptr;
}

}  // namespace

std::string gpus_text(const Topology& topo) {
  if (topo.gpus.empty() && topo.displays.empty()) return {};
  std::string out = "\n";
  const char* label = "gpus";
  for (const Gpu& g : topo.gpus) {
    std::string where = g.device.numa_node >= 0 ? fmt::format("node {}", g.device.numa_node) : "no node";
    std::string line = fmt::format("{:<11}{:<6} {}  {:<6}  {:<8} cpus {}", label, g.device.name, g.device.pci.text(),
                                   gpu_vendor_name(g.vendor), where,
                                   format_cpulist(device_place(topo, g.device).cpus));
    if (!g.card.empty()) line += "  " + printable(g.card);
    if (g.memory_node) line += fmt::format("  memory on node {}", *g.memory_node);
    out += line + "\n";
    label = "";
  }
  label = "displays";
  for (const Display& d : topo.displays) {
    std::string where = d.device.numa_node >= 0 ? fmt::format("node {}", d.device.numa_node) : "no node";
    std::string line = fmt::format("{:<11}{:<9} {}  {:<6}  {:<8} cpus {}", label, d.device.name, d.device.pci.text(),
                                   fmt::format("0x{:04x}", d.vendor_id), where,
                                   format_cpulist(device_place(topo, d.device).cpus));
    if (!d.card.empty()) line += "  " + printable(d.card);
    out += line + "\n";
    label = "";
  }
  return out;
}

std::string gpu_memory_note(const Topology& topo, unsigned node) {
  std::string out;
  for (const Gpu& g : topo.gpus)
    if (g.memory_node && *g.memory_node == static_cast<long>(node))
      out += fmt::format("{}{}", out.empty() ? "  GPU memory of " : ", ", gpu_label(g));
  return out;
}

void gpu_device_json(JsonWriter& j, const Topology& topo, const Device& device) {
  if (device.kind == "display") {
    for (const Display& d : topo.displays)
      if (d.device.name == device.name) {
        j.field("vendor_id", fmt::format("0x{:04x}", d.vendor_id));
        j.key("card");
        if (d.card.empty()) j.null();
        else j.value(d.card);
      }
    return;
  }
  const Gpu* g = device.kind == "gpu" ? gpu_named(topo, device.name) : nullptr;
  if (!g) return;
  j.field("vendor", gpu_vendor_name(g->vendor));
  j.field("memory_node", g->memory_node);
  j.key("card");
  if (g->card.empty()) j.null();
  else j.value(g->card);
  j.key("uuid");
  if (g->uuid.empty()) j.null();
  else j.value(g->uuid);
}

}  // namespace affix
