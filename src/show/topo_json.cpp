#include <fmt/format.h>

#include "json.hpp"
#include "topo_output.hpp"

#include "devices.hpp"

namespace affix {

namespace {

void number_or_null(JsonWriter& j, std::string_view name, long v) {
  j.key(name);
  if (v >= 0) j.value(v);
  else j.null();
}

}  // namespace

std::string kind_word(const Topology& topo, int kind) {
  if (kind < 0 || !topo.hybrid) return {};
  if (kind == 0) return "performance";
  if (static_cast<size_t>(kind) + 1 == topo.kinds.size()) return "efficiency";
  return std::to_string(kind);
}

std::string topo_json(const Topology& topo, const Allowed& allowed) {
  JsonWriter j;
  j.begin_object();
  j.key("cpus");
  j.begin_array();
  for (const CpuInfo& c : topo.cpus) {
    if (!topo.possible.test(c.cpu)) continue;
    j.begin_object();
    j.field("cpu", c.cpu);
    j.field("online", c.online);
    j.field("allowed", allowed.cpus.test(c.cpu));
    number_or_null(j, "socket", c.socket);
    number_or_null(j, "die", c.die);
    number_or_null(j, "node", c.node);
    number_or_null(j, "llc", c.llc);
    number_or_null(j, "core", c.core);
    number_or_null(j, "thread", c.thread);
    j.key("siblings");
    if (c.core >= 0) j.value(format_cpulist(c.siblings));
    else j.null();
    j.key("kind");
    if (std::string kind = kind_word(topo, c.kind); !kind.empty()) j.value(kind);
    else j.null();
    number_or_null(j, "kind_index", topo.hybrid ? c.kind : -1);
    number_or_null(j, "die_id", c.die_id);
    number_or_null(j, "core_id", c.core_id);
    j.end_object();
  }
  j.end_array();
  j.key("nodes");
  j.begin_array();
  for (const NodeInfo& n : topo.nodes) {
    j.begin_object();
    j.field("node", n.node);
    j.field("cpus", format_cpulist(n.cpus));
    j.field("memory_total_kb", n.memory_total_kb);
    j.field("memory_free_kb", n.memory_free_kb);
    j.key("distances");
    j.begin_array();
    for (unsigned d : n.distances) j.value(d);
    j.end_array();
    write_node_memory_json(j, topo, n);
    j.end_object();
  }
  j.end_array();
  // The devices near: takes by name (affix(1), OUTPUT), in list_devices'
  // order; node null where the kernel says -1.
  j.key("devices");
  j.begin_array();
  for (const Device& d : topo.devices) {
    j.begin_object();
    j.field("name", d.name);
    j.field("class", d.kind);
    j.field("pci", d.pci.text());
    j.key("node");
    if (d.numa_node >= 0) j.value(d.numa_node);
    else j.null();
    j.field("cpus", format_cpulist(device_place(topo, d).cpus));
    gpu_device_json(j, topo, d);
    j.end_object();
  }
  j.end_array();
  write_tiers_json(j, topo);
  write_allowed_json(j, allowed);
  j.field("online", format_cpulist(topo.online));
  j.field("isolated", format_cpulist(topo.isolated));
  j.field("smt", topo.smt);
  j.field("hybrid", topo.hybrid);
  j.key("counts");
  j.begin_object();
  j.field("sockets", topo.sockets.size());
  j.field("nodes", topo.nodes.size());
  j.field("dies", topo.dies.size());
  j.field("llcs", topo.llcs.size());
  j.field("cores", topo.cores.size());
  j.field("cpus", topo.threads.size());
  j.end_object();
  j.end_object();
  return j.str() + "\n";
}

void write_allowed_json(JsonWriter& j, const Allowed& allowed) {
  j.key("allowed");
  j.begin_object();
  j.field("cpus", format_cpulist(allowed.cpus));
  j.field("nodes", format_cpulist(allowed.mems));
  j.field("source", allowed.source);
  j.end_object();
}

}  // namespace affix
