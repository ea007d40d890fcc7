#include "devices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "error.hpp"
#include "gpus.hpp"
#include "pci.hpp"
#include "text.hpp"

namespace affix {

namespace {

// The classes near: looks a name up in, in this order (affix(1), LOCATIONS).
struct ClassDir {
  const char* kind;
  const char* dir;
};
constexpr ClassDir k_class_dirs[] = {
    {"net", "sys/class/net"},   {"block", "sys/class/block"}, {"infiniband", "sys/class/infiniband"},
    {"drm", "sys/class/drm"},   {"dax", "sys/class/dax"},     {"dax", "sys/bus/dax/devices"},
};
constexpr size_t k_hint_names = 24;  // names a hint lists before "..."

// Names in `dir`, at most k_hint_names of them, for a hint.
std::string name_list(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string out;
  for (size_t i = 0; i < names.size() && i < k_hint_names; ++i) out += (i ? " " : "") + printable(names[i]);
  if (names.size() > k_hint_names) out += fmt::format(" ... ({} in all)", names.size());
  return out;
}

// The function's numa_node and local_cpus (a file that cannot be read or
// makes no sense is left out, with a warning naming it).
void read_locality(const SysRoot& root, const std::string& dir, Device& d) {
  try {
    d.numa_node = root.read_int(dir + "/numa_node").value_or(-1);
  } catch (const Error& e) {
    d.warnings.push_back(fmt::format("{} (left out)", e.what()));
  }
  std::optional<std::string> mask = root.read(dir + "/local_cpus");
  if (!mask) return;
  Parsed<CpuSet> set = parse_cpumask(trim_space(*mask));
  if (!set) {
    d.warnings.push_back(fmt::format("{}: {} (left out)", printable(root.path(dir + "/local_cpus")),
                                     set.error.message));
    return;
  }
  if (!set.value->empty()) d.local_cpus = std::move(*set.value);
}

}  // namespace

Device read_pci_function(const SysRoot& root, const std::string& entry, std::string name, std::string kind) {
  Device d;
  d.name = std::move(name);
  d.kind = std::move(kind);
  std::string rel = fmt::format("{}/{}", k_pci_dir, entry);
  std::optional<std::string> link = root.read_link(rel);
  std::string dir = link ? link_target_path(k_pci_dir, *link) : rel;
  d.pci = *parse_pci_address(entry).value;
  read_locality(root, dir, d);
  return d;
}

namespace {

// The lower device of a virtual one, where sysfs names one: a VLAN's or a
// bridge's lower_NAME links, a device-mapper disk's slaves/.
std::vector<std::string> lower_devices(const SysRoot& root, const std::string& rel) {
  std::vector<std::string> out;
  for (const std::string& entry : root.list(rel))
    if (entry.rfind("lower_", 0) == 0 && entry.size() > 6) out.push_back(entry.substr(6));
  for (const std::string& entry : root.list(rel + "/slaves")) out.push_back(entry);
  return out;
}

std::vector<std::string> class_names(const SysRoot& root) {
  std::vector<std::string> out;
  for (const ClassDir& c : k_class_dirs)
    for (std::string& name : root.list(c.dir)) out.push_back(std::move(name));
  return out;
}

// N of "gpuN" where `prefix` is "gpu" (of "displayN" where "display").
std::optional<unsigned> numbered(std::string_view name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::optional<unsigned long long> n = parse_decimal(name.substr(prefix.size()), k_max_id);
  if (!n) return std::nullopt;
  return static_cast<unsigned>(*n);
}

// "gpu0 (0000:3b:00.0), gpu1 (...)"
std::string functions_text(const std::vector<GpuFunction>& all, const char* prefix) {
  std::string out;
  for (size_t i = 0; i < all.size(); ++i) out += fmt::format("{}{}{} ({})", out.empty() ? "" : ", ", prefix, i, all[i].pci.text());
  return out;
}

}  // namespace

DevicePlace device_place(const Topology& topo, const Device& device) {
  DevicePlace out;
  const CpuSet& machine = topo.online;
  bool several = topo.nodes.size() > 1;
  CpuSet local;
  if (device.local_cpus) local = *device.local_cpus & machine;
  if (local.empty() && device.numa_node >= 0)
    if (const NodeInfo* n = topo.node(static_cast<unsigned>(device.numa_node))) local = n->cpus & machine;
  if (local.empty()) {
    out.cpus = machine;
    out.unplaced = several;
    return out;
  }
  out.unplaced = several && device.numa_node < 0 && (machine - local).empty();
  out.cpus = machine;
  for (Level level : {Level::Core, Level::Llc, Level::Die, Level::Node, Level::Socket})
    for (const Unit& u : topo.units(level))
      if ((local - u.cpus).empty() && u.cpus.count() < out.cpus.count()) out.cpus = u.cpus;
  return out;
}

std::string unplaced_warning(const Device& device) {
  std::string name = printable(device.name);
  return fmt::format("the kernel does not say where {} is (numa_node {}): near:{} is every CPU", name,
                     device.numa_node, name);
}

Device read_device(const SysRoot& root, std::string_view name) {
  if (name.empty() || name.size() > k_max_device_name || name.find('/') != std::string_view::npos ||
      name.find('\0') != std::string_view::npos || name == "." || name == "..")
    throw Error(ErrorKind::Spec, fmt::format("invalid device name '{}'", printable(name)),
                "a device is named as in /sys/class (eth0, nvme0n1, card0), gpuN, or a PCI address DDDD:BB:DD.F");
  std::string n(name);
  if (n.find(':') != std::string::npos) {
    Parsed<PciAddress> a = parse_pci_address(n);
    if (!a)
      throw Error(ErrorKind::Spec, fmt::format("invalid PCI address '{}': {}", printable(n), a.error.message),
                  "a PCI address is DDDD:BB:DD.F or BB:DD.F, as lspci -D prints it");
    std::string text = a.value->text();
    if (!root.exists(fmt::format("{}/{}", k_pci_dir, text)))
      throw Error(ErrorKind::Resolution, fmt::format("no PCI function {} on this machine", text),
                  fmt::format("PCI functions here: {}", name_list(root.list(k_pci_dir))));
    return read_pci_function(root, text, text, "pci");
  }
  if (std::optional<unsigned> k = numbered(n, "gpu")) {
    std::vector<GpuFunction> all = gpu_functions(root);
    if (*k < all.size()) return read_pci_function(root, all[*k].entry, n, "gpu");
    std::vector<GpuFunction> displays = display_functions(root);
    std::string hint = all.empty() ? std::string("it has no NVIDIA or AMD GPU")
                                   : fmt::format("GPUs here, in PCI address order: {}", functions_text(all, "gpu"));
    if (!displays.empty())
      hint += fmt::format("; displays (no GPU runtime numbers them): {}", functions_text(displays, "display"));
    throw Error(ErrorKind::Resolution, fmt::format("no GPU {} on this machine", n), hint);
  }
  if (std::optional<unsigned> k = numbered(n, "display")) {
    std::vector<GpuFunction> all = display_functions(root);
    if (*k < all.size()) return read_pci_function(root, all[*k].entry, n, "display");
    throw Error(ErrorKind::Resolution, fmt::format("no display {} on this machine", n),
                all.empty() ? std::string("it has no display function of class 03 but its GPUs")
                            : fmt::format("displays here, in PCI address order: {}", functions_text(all, "display")));
  }
  for (const ClassDir& c : k_class_dirs) {
    std::string rel = fmt::format("{}/{}", c.dir, n);
    std::optional<std::string> path = class_entry_path(root, c.dir, rel);
    if (!path && !root.exists(rel)) continue;
    std::optional<std::pair<PciAddress, std::string>> fn;
    if (path) fn = last_pci_function(*path);
    if (!fn) {
      std::vector<std::string> lower = lower_devices(root, rel);
      std::string shown = printable(n);
      throw Error(ErrorKind::Resolution,
                  fmt::format("{} has no PCI function (a virtual device: {})", shown,
                              path ? printable(root.path(*path)) : printable(root.path(rel))),
                  lower.empty() ? std::string("near: takes a device on PCI (a network card, disk, RDMA device, "
                                              "GPU); 'affix topo --json' lists them")
                                : fmt::format("its lower device is {}: near:{}", name_list(lower),
                                              printable(lower.front())));
    }
    Device d;
    d.name = n;
    d.kind = c.kind;
    d.pci = fn->first;
    read_locality(root, fn->second, d);
    return d;
  }
  std::vector<std::string> names = class_names(root);
  throw Error(ErrorKind::Resolution,
              fmt::format("no device '{}' (not in /sys/class/net, block, infiniband, drm or dax)", printable(n)),
              names.empty() ? std::string("this machine has no such devices; gpuN and PCI addresses DDDD:BB:DD.F "
                                          "name the others")
                            : fmt::format("devices here: {}", name_list(names)));
}

std::vector<Device> list_devices(const SysRoot& root) {
  std::vector<Device> out;
  std::vector<std::string> seen;
  for (const ClassDir& c : k_class_dirs) {
    std::vector<Device> here;
    for (const std::string& name : root.list(c.dir)) {
      std::string rel = fmt::format("{}/{}", c.dir, name);
      std::string kind = c.kind;
      if (kind == "block" && root.exists(rel + "/partition")) continue;
      if (kind == "drm" && !(name.rfind("card", 0) == 0 && name.size() > 4 &&
                             parse_decimal(std::string_view(name).substr(4), k_max_id)))
        continue;
      if (std::find(seen.begin(), seen.end(), kind + "/" + name) != seen.end()) continue;
      std::optional<std::string> path = class_entry_path(root, c.dir, rel);
      if (!path) continue;
      std::optional<std::pair<PciAddress, std::string>> fn = last_pci_function(*path);
      if (!fn) continue;
      seen.push_back(kind + "/" + name);
      Device d;
      d.name = name;
      d.kind = kind;
      d.pci = fn->first;
      read_locality(root, fn->second, d);
      out.push_back(std::move(d));
    }
  }
  std::vector<GpuFunction> all = gpu_functions(root);
  for (size_t i = 0; i < all.size(); ++i) out.push_back(read_pci_function(root, all[i].entry, fmt::format("gpu{}", i), "gpu"));
  std::vector<GpuFunction> displays = display_functions(root);
  for (size_t i = 0; i < displays.size(); ++i)
    out.push_back(read_pci_function(root, displays[i].entry, fmt::format("display{}", i), "display"));
  // Each class in the order above, by name inside it (dax's two directories merged).
  std::stable_sort(out.begin(), out.end(), [](const Device& a, const Device& b) {
    auto rank = [](const std::string& kind) {
      for (size_t i = 0; i < std::size(k_class_dirs); ++i)
        if (kind == k_class_dirs[i].kind) return i;
      return std::size(k_class_dirs);
    };
    if (a.kind == "gpu" || b.kind == "gpu" || a.kind == "display" || b.kind == "display")
      return std::tuple(rank(a.kind), a.kind == "display") < std::tuple(rank(b.kind), b.kind == "display");
    return std::tuple(rank(a.kind), a.name) < std::tuple(rank(b.kind), b.name);
  });
  return out;
}

}  // namespace affix
