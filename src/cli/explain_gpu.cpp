#include "explain_gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "gpu_env.hpp"
#include "gpus.hpp"
#include "text.hpp"
#include "topo_output.hpp"

namespace affix {

void explain_line(std::string& out, const char* label, const std::string& value) {
  constexpr int k_label_width = 10;
  out += fmt::format("{:<{}}{}\n", label, k_label_width, value);
}

namespace {

std::string node_text(long node) {
  return node < 0 ? std::string("no node (numa_node -1)") : fmt::format("node {}", node);
}

std::string rank_text(const LocalRank& r) {
  if (r.source.empty()) return "0 of 1 (no launcher's rank in the environment)";
  return fmt::format("{} of {} (from {})", r.rank, r.size, r.source);
}

std::string memory_text(const Placement& p) {
  if (!p.mem_policy) return "-";
  if (*p.mem_policy == MemPolicy::Local) return "local";
  return fmt::format("{}:{}", mem_policy_name(*p.mem_policy), format_cpulist(p.mem_nodes));
}

// The variable that names the GPU (the first run exports) as NAME=VALUE.
std::string naming_variable(const GpuPlacement& g) {
  if (g.env.empty()) return "-";
  return g.env.front().first + "=" + g.env.front().second;
}

}  // namespace

std::string explain_gpu_text(const GpuPlacement& g) {
  std::string out;
  std::string gpu = fmt::format("gpu{} ({}): PCI {}, {}, CPUs {}", g.gpu.index, gpu_vendor_name(g.gpu.vendor),
                                g.gpu.device.pci.text(), node_text(g.gpu.device.numa_node), format_cpulist(g.gpu_cpus));
  if (!g.gpu.card.empty()) gpu += ", " + printable(g.gpu.card);
  if (g.gpu.memory_node) gpu += fmt::format(", its memory on node {}", *g.gpu.memory_node);
  explain_line(out, "gpu", gpu);
  explain_line(out, "rank", rank_text(g.rank));
  if (!g.pool_source.empty())
    explain_line(out, "pool", fmt::format("{} GPU{} of the job's list: {}", g.pool, g.pool == 1 ? "" : "s", g.pool_source));
  const char* label = "exports";
  for (size_t i = 0; i < g.env.size(); ++i) {
    const auto& [name, value] = g.env[i];
    std::vector<std::string> notes;
    if (i == 0) notes.push_back(gpu_id_text(g.gpu, g.id));
    for (const auto& [old_name, old_value] : g.replaced)
      if (old_name == name) notes.push_back(fmt::format("replaces '{}'", printable(old_value)));
    std::string text = fmt::format("{}={}", name, value);
    for (size_t k = 0; k < notes.size(); ++k) text += (k ? "; " : " (") + notes[k];
    if (!notes.empty()) text += ")";
    explain_line(out, label, text);
    label = "";
  }
  label = "left out";
  for (const std::string& l : g.left_out) {
    explain_line(out, label, l + ": none of its CPUs allowed");
    label = "";
  }
  for (const std::string& h : g.hidden) {
    explain_line(out, label, h);
    label = "";
  }
  return out;
}

void explain_gpu_json(JsonWriter& j, const GpuPlacement& g) {
  j.key("gpu");
  j.begin_object();
  j.field("name", g.gpu.device.name);
  j.field("pci", g.gpu.device.pci.text());
  j.field("vendor", gpu_vendor_name(g.gpu.vendor));
  j.key("node");
  if (g.gpu.device.numa_node >= 0) j.value(g.gpu.device.numa_node);
  else j.null();
  j.field("memory_node", g.gpu.memory_node);
  j.key("card");
  if (g.gpu.card.empty()) j.null();
  else j.value(g.gpu.card);
  j.key("uuid");
  if (g.gpu.uuid.empty()) j.null();
  else j.value(g.gpu.uuid);
  j.field("cpus", format_cpulist(g.gpu_cpus));
  j.field("rank", g.rank.rank);
  j.field("ranks", g.rank.size);
  j.key("rank_source");
  if (g.rank.source.empty()) j.null();
  else j.value(g.rank.source);
  j.field("shared_with", format_cpulist(g.shared_with));
  j.key("env");
  j.begin_object();
  for (const auto& [name, value] : g.env) j.field(name, value);
  j.end_object();
  j.key("replaced");
  j.begin_object();
  for (const auto& [name, value] : g.replaced) j.field(name, value);
  j.end_object();
  j.key("left_out");
  j.begin_array();
  for (const std::string& l : g.left_out) j.value(l);
  for (const std::string& h : g.hidden) j.value(h);
  j.end_array();
  j.key("pool_source");
  if (g.pool_source.empty()) j.null();
  else j.value(g.pool_source);
  j.end_object();
}

std::string explain_ranks_text(const std::vector<Placement>& ranks, const Allowed& allowed) {
  bool gpus = !ranks.empty() && ranks.front().gpu;
  std::vector<std::vector<std::string>> rows;
  if (gpus) rows.push_back({"RANK", "GPU", "PCI", "VENDOR", "CPUS", "NODES", "MEMORY", "VARIABLE"});
  else rows.push_back({"RANK", "CPUS", "NODES", "MEMORY"});
  std::map<unsigned, CpuSet> by_gpu;  // ranks per GPU
  std::vector<std::string> warnings;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const Placement& p = ranks[r];
    std::string cpus = fmt::format("{} ({})", format_cpulist(p.cpus), p.cpus.count());
    if (p.gpu) {
      const Gpu& g = p.gpu->gpu;
      by_gpu[g.index].set(static_cast<unsigned>(r));
      rows.push_back({std::to_string(r), g.device.name, g.device.pci.text(), gpu_vendor_name(g.vendor), cpus,
                      format_cpulist(p.nodes), memory_text(p), naming_variable(*p.gpu)});
    } else {
      rows.push_back({std::to_string(r), cpus, format_cpulist(p.nodes), memory_text(p)});
    }
    for (const std::string& w : p.warnings) {
      if (p.gpu && std::find(p.gpu->warnings.begin(), p.gpu->warnings.end(), w) != p.gpu->warnings.end() &&
          w.rfind("local rank ", 0) == 0)
        continue;  // a GPU shared: told once per GPU below
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
    }
  }
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::string out;
  explain_line(out, "ranks", fmt::format("{} local ranks (--ranks)", ranks.size()));
  explain_line(out, "allowed", fmt::format("CPUs {}, nodes {} (from {})", format_cpulist(allowed.cpus),
                                   format_cpulist(allowed.mems), printable(allowed.source)));
  if (gpus && !ranks.front().gpu->pool_source.empty())
    explain_line(out, "pool", fmt::format("{} GPU{} of the job's list: {}", ranks.front().gpu->pool,
                                          ranks.front().gpu->pool == 1 ? "" : "s", ranks.front().gpu->pool_source));
  if (gpus && !ranks.front().gpu->left_out.empty())
    for (const std::string& l : ranks.front().gpu->left_out) explain_line(out, "left out", l + ": none of its CPUs allowed");
  if (gpus)
    for (const std::string& h : ranks.front().gpu->hidden) explain_line(out, "left out", h);
  // A variable that counts GPUs names the right one only where the runtime
  // sees every GPU of its vendor that sysfs shows: say which are named so.
  bool nvidia_index = false, amd_index = false;
  for (const Placement& p : ranks)
    if (p.gpu && p.gpu->gpu.uuid.empty()) {
      nvidia_index = nvidia_index || p.gpu->gpu.vendor == GpuVendor::Nvidia;
      amd_index = amd_index || p.gpu->gpu.vendor == GpuVendor::Amd;
    }
  if (nvidia_index)
    explain_line(out, "by index", "CUDA_VISIBLE_DEVICES counts the NVIDIA GPUs this process may open, in PCI address "
                          "order (the driver gives no UUID here)");
  if (amd_index)
    explain_line(out, "by index", "ROCR_VISIBLE_DEVICES counts the AMD GPUs this process may open, in PCI address order "
                          "(no unique_id here)");
  out += "\n";
  for (const auto& row : rows) {
    std::string text;
    for (size_t c = 0; c < row.size(); ++c)
      text += c + 1 < row.size() ? fmt::format("{:<{}}  ", row[c], width[c]) : row[c];
    out += text + "\n";
  }
  for (const auto& [index, shared] : by_gpu)
    if (shared.count() > 1)
      for (const Placement& p : ranks)
        if (p.gpu && p.gpu->gpu.index == index) {
          warnings.push_back(fmt::format("{} is shared by local ranks {} ({} ranks, {} GPU{})", gpu_label(p.gpu->gpu),
                                         format_cpulist(shared), ranks.size(), p.gpu->pool,
                                         p.gpu->pool == 1 ? "" : "s"));
          break;
        }
  if (!warnings.empty()) out += "\n";
  for (const std::string& w : warnings) explain_line(out, "warning", w);
  return out;
}

std::string explain_ranks_json(const std::vector<Placement>& ranks, const Allowed& allowed) {
  JsonWriter j;
  j.begin_object();
  j.key("ranks");
  j.begin_array();
  std::vector<std::string> warnings;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const Placement& p = ranks[r];
    j.begin_object();
    j.field("rank", static_cast<unsigned>(r));
    j.field("cpus", format_cpulist(p.cpus));
    j.field("count", p.cpus.count());
    j.field("nodes", format_cpulist(p.nodes));
    j.key("mem");
    if (p.mem_policy) {
      j.begin_object();
      j.field("policy", mem_policy_name(*p.mem_policy));
      j.field("nodes", format_cpulist(p.mem_nodes));
      j.end_object();
    } else {
      j.null();
    }
    if (p.gpu) {
      explain_gpu_json(j, *p.gpu);
    } else {
      j.key("gpu");
      j.null();
    }
    j.end_object();
    for (const std::string& w : p.warnings)
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
  }
  j.end_array();
  write_allowed_json(j, allowed);
  j.key("warnings");
  j.begin_array();
  for (const std::string& w : warnings) j.value(w);
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

}  // namespace affix
