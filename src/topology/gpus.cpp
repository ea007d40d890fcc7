#include "gpus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include <unistd.h>

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

namespace {

// Every function of class 0x03xxxx, in PCI address order, each with
// whether a runtime numbers it (NVIDIA's vendor or driver, AMD's vendor).
std::vector<GpuFunction> class03_functions(const SysRoot& root) {
  std::vector<GpuFunction> out;
  for (const std::string& name : root.list(k_pci_dir)) {
    Parsed<PciAddress> a = parse_pci_address(name);
    if (!a) continue;
    std::string dir = fmt::format("{}/{}", k_pci_dir, name);
    std::optional<std::string> cls = root.read(dir + "/class", 64);
    if (!cls) continue;
    std::string_view c = trim_space(*cls);
    if (c.substr(0, 2) == "0x") c.remove_prefix(2);
    if (c.size() != 6 || !all_hex_digits(c) || hex_digits_value(c.substr(0, 2)) != 0x03) continue;
    GpuFunction f{*a.value, name, 0, false};
    try {
      if (std::optional<std::string> v = root.read(dir + "/vendor", 64)) f.vendor_id = hex_field(*v, 4).value_or(0);
    } catch (const Error&) {
      // unreadable: vendor 0 (read_gpus warns of it)
    }
    bool nvidia_driver = root.exists(fmt::format("{}/{}", k_nvidia_dir, name));
    f.compute = f.vendor_id == k_vendor_nvidia || f.vendor_id == k_vendor_amd || (f.vendor_id == 0 && nvidia_driver);
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(),
            [](const GpuFunction& a, const GpuFunction& b) { return a.pci.key() < b.pci.key(); });
  return out;
}

std::vector<GpuFunction> functions_of(const SysRoot& root, bool compute) {
  std::vector<GpuFunction> out;
  for (GpuFunction& f : class03_functions(root))
    if (f.compute == compute) out.push_back(std::move(f));
  return out;
}

// NVIDIA's "Device Minor: 2" (its /dev/nvidia2); nullopt where not said.
std::optional<unsigned> nvidia_minor(const SysRoot& root, const std::string& entry) {
  std::optional<std::string> text;
  try {
    text = root.read(fmt::format("{}/{}/information", k_nvidia_dir, entry), k_small_file);
  } catch (const Error&) {
    return std::nullopt;  // nvidia_uuid warns of it
  }
  if (!text) return std::nullopt;
  std::optional<std::string_view> v = keyed_line(*text, "Device Minor:");
  if (!v) return std::nullopt;
  std::optional<unsigned long long> n = parse_decimal(*v, k_max_id);
  if (!n) return std::nullopt;
  return static_cast<unsigned>(*n);
}

// The render node amdgpu gives the function ("renderD128"), as ROCm's
// libhsakmt opens it; empty where none.
std::string render_node(const SysRoot& root, const std::string& dir) {
  for (const std::string& name : root.list(dir + "/drm"))
    if (name.size() > 7 && name.rfind("renderD", 0) == 0 && parse_decimal(std::string_view(name).substr(7), k_max_id))
      return name;
  return {};
}

// Whether this process may open `file` (under root): access(2) applies
// the device cgroup's rules (inode_permission), as open(2) does; nullopt
// where the file is not there (a captured machine, or a driver that makes
// its device files when a program first asks for them).
std::optional<bool> may_open(const SysRoot& root, const std::string& file) {
  if (file.empty() || !root.exists(file)) return std::nullopt;
  return ::access(root.path(file).c_str(), R_OK | W_OK) == 0;
}

}  // namespace

std::vector<GpuFunction> gpu_functions(const SysRoot& root) { return functions_of(root, true); }

std::vector<GpuFunction> display_functions(const SysRoot& root) { return functions_of(root, false); }

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
    try {
      if (std::optional<std::string> v = root.read(dir + "/device", 64)) g.device_id = hex_field(*v, 4).value_or(0);
    } catch (const Error&) {
      // left 0: only the CUDA order's warning reads it
    }
    if (g.vendor_id == k_vendor_amd) {
      g.vendor = GpuVendor::Amd;
      g.vendor_index = amd++;
      g.uuid = amd_uuid(root, dir, g.device);
      std::string render = render_node(root, dir);
      if (!render.empty()) g.device_file = "dev/dri/" + render;
    } else {  // NVIDIA's vendor, or NVIDIA's driver lists it (gpu_functions)
      g.vendor = GpuVendor::Nvidia;
      g.vendor_index = nvidia++;
      g.uuid = nvidia_uuid(root, entry, g.device);
      g.memory_node = memory_node(root, entry, g.device);
      if (std::optional<unsigned> minor = nvidia_minor(root, entry)) g.device_file = fmt::format("dev/nvidia{}", *minor);
    }
    g.may_open = may_open(root, g.device_file);
    g.card = drm_card(root, dir);
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<Display> read_displays(const SysRoot& root) {
  std::vector<Display> out;
  std::vector<GpuFunction> functions = display_functions(root);
  for (size_t i = 0; i < functions.size(); ++i) {
    Display d;
    d.device = read_pci_function(root, functions[i].entry, fmt::format("display{}", i), "display");
    d.vendor_id = functions[i].vendor_id;
    d.card = drm_card(root, fmt::format("{}/{}", k_pci_dir, functions[i].entry));
    out.push_back(std::move(d));
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
