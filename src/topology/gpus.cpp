#include "gpus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "devices.hpp"
#include "error.hpp"
#include "pci.hpp"
#include "text.hpp"

namespace affix {

namespace {

constexpr const char* k_nvidia_dir = "proc/driver/nvidia/gpus";
constexpr size_t k_small_file = 4096;
constexpr size_t k_max_uuid = 64;

// A "0x10de"-style hex field of at most `digits` digits; nullopt where it is not one.
std::optional<unsigned> hex_field(std::string_view text, size_t digits) {
  text = trim_space(text);
  if (text.substr(0, 2) == "0x") text.remove_prefix(2);
  if (text.empty() || text.size() > digits || !all_hex_digits(text)) return std::nullopt;
  return hex_digits_value(text);
}

// The value after "KEY:" on a line of `text` ("GPU UUID:", "Node:").
std::optional<std::string_view> keyed_line(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (line.substr(0, key.size()) == key) return trim_space(line.substr(key.size()));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return std::nullopt;
}

std::optional<std::string> read_small(const SysRoot& root, const std::string& rel, Device& d) {
  try {
    return root.read(rel, k_small_file);
  } catch (const Error& e) {
    d.warnings.push_back(fmt::format("{} (left out)", e.what()));
  }
  return std::nullopt;
}

// NVIDIA's "GPU UUID: GPU-8932f937-d72c-4106-c12f-20bd9faed9f6".
std::string nvidia_uuid(const SysRoot& root, const std::string& entry, Device& d) {
  std::string rel = fmt::format("{}/{}/information", k_nvidia_dir, entry);
  std::optional<std::string> text = read_small(root, rel, d);
  if (!text) return {};
  std::optional<std::string_view> v = keyed_line(*text, "GPU UUID:");
  if (!v) return {};
  bool ok = v->size() > 4 && v->size() <= k_max_uuid && v->substr(0, 4) == "GPU-" &&
            std::all_of(v->begin() + 4, v->end(), [](char c) { return c == '-' || std::isxdigit(static_cast<unsigned char>(c)); });
  if (!ok) {
    d.warnings.push_back(fmt::format("{}: 'GPU UUID: {}' is no GPU UUID (left out)", printable(root.path(rel)),
                                     printable(*v)));
    return {};
  }
  return std::string(*v);
}

// amdgpu's unique_id: 16 hex digits ("%016llx"); none where the file is
// absent (before GFX9) or empty (a GPU without one).
std::string amd_uuid(const SysRoot& root, const std::string& dir, Device& d) {
  std::optional<std::string> text = read_small(root, dir + "/unique_id", d);
  if (!text) return {};
  std::string_view v = trim_space(*text);
  if (v.empty()) return {};
  if (v.size() != 16 || !all_hex_digits(v)) {
    d.warnings.push_back(fmt::format("{}: '{}' is no unique_id of 16 hex digits (left out)",
                                     printable(root.path(dir + "/unique_id")), printable(v)));
    return {};
  }
  return "GPU-" + std::string(v);
}

std::optional<long> memory_node(const SysRoot& root, const std::string& entry, Device& d) {
  std::string rel = fmt::format("{}/{}/numa_status", k_nvidia_dir, entry);
  std::optional<std::string> text = read_small(root, rel, d);
  if (!text) return std::nullopt;
  std::optional<std::string_view> v = keyed_line(*text, "Node:");
  if (!v || *v == "-1") return std::nullopt;
  std::optional<unsigned long long> n = parse_decimal(*v, k_max_id);
  if (!n) {
    d.warnings.push_back(fmt::format("{}: 'Node: {}' is no node number (left out)", printable(root.path(rel)),
                                     printable(*v)));
    return std::nullopt;
  }
  return static_cast<long>(*n);
}

std::string drm_card(const SysRoot& root, const std::string& dir) {
  for (const std::string& name : root.list(dir + "/drm"))
    if (name.size() > 4 && name.rfind("card", 0) == 0 && parse_decimal(std::string_view(name).substr(4), k_max_id))
      return name;
  return {};
}

}  // namespace

std::vector<GpuFunction> gpu_functions(const SysRoot& root) {
  std::vector<GpuFunction> out;
  for (const std::string& name : root.list(k_pci_dir)) {
    Parsed<PciAddress> a = parse_pci_address(name);
    if (!a) continue;
    std::optional<std::string> cls = root.read(fmt::format("{}/{}/class", k_pci_dir, name), 64);
    if (!cls) continue;
    std::string_view c = trim_space(*cls);
    if (c.substr(0, 2) == "0x") c.remove_prefix(2);
    if (c.size() != 6 || !all_hex_digits(c) || hex_digits_value(c.substr(0, 2)) != 0x03) continue;
    out.push_back(GpuFunction{*a.value, name});
  }
  std::sort(out.begin(), out.end(),
            [](const GpuFunction& a, const GpuFunction& b) { return a.pci.key() < b.pci.key(); });
  return out;
}

std::vector<Gpu> read_gpus(const SysRoot& root) {
  std::vector<Gpu> out;
  std::vector<GpuFunction> functions = gpu_functions(root);
  unsigned nvidia = 0, amd = 0;
  for (size_t i = 0; i < functions.size(); ++i) {
    const std::string& entry = functions[i].entry;
    Gpu g;
    g.index = static_cast<unsigned>(i);
    g.device = read_pci_function(root, entry, fmt::format("gpu{}", i), "gpu");
    std::string dir = fmt::format("{}/{}", k_pci_dir, entry);
    if (std::optional<std::string> v = read_small(root, dir + "/vendor", g.device))
      g.vendor_id = hex_field(*v, 4).value_or(0);
    bool nvidia_driver = root.exists(fmt::format("{}/{}", k_nvidia_dir, entry));
    if (g.vendor_id == k_vendor_nvidia || (g.vendor_id == 0 && nvidia_driver)) {
      g.vendor = GpuVendor::Nvidia;
      g.vendor_index = nvidia++;
      g.uuid = nvidia_uuid(root, entry, g.device);
      g.memory_node = memory_node(root, entry, g.device);
    } else if (g.vendor_id == k_vendor_amd) {
      g.vendor = GpuVendor::Amd;
      g.vendor_index = amd++;
      g.uuid = amd_uuid(root, dir, g.device);
    }
    g.card = drm_card(root, dir);
    out.push_back(std::move(g));
  }
  return out;
}

const char* gpu_vendor_name(GpuVendor vendor) {
  switch (vendor) {
    case GpuVendor::Nvidia: return "nvidia";
    case GpuVendor::Amd: return "amd";
    case GpuVendor::Other: return "other";
  }
  return "other";
}

std::string gpu_label(const Gpu& gpu) { return fmt::format("gpu{} ({})", gpu.index, gpu.device.pci.text()); }

}  // namespace affix
