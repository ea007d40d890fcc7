#include "devices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "error.hpp"
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
constexpr const char* k_pci_dir = "sys/bus/pci/devices";
constexpr size_t k_hint_names = 24;  // names a hint lists before "..."

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

unsigned hex_value(std::string_view s) {
  unsigned v = 0;
  for (char c : s) v = v * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  return v;
}

bool all_hex(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_hex); }

Parsed<PciAddress> pci_fail(std::string message, size_t position) {
  Parsed<PciAddress> out;
  out.error = ParseError{std::move(message), position};
  return out;
}

// `path` (relative to the root) made plain: a link's target resolved
// against the directory holding the link, an absolute target taken inside
// the root.
std::string joined(std::string_view dir, const std::string& link) {
  namespace fs = std::filesystem;
  fs::path p = !link.empty() && link[0] == '/' ? fs::path(link.substr(1)) : fs::path(dir) / link;
  return p.lexically_normal().string();
}

// The directory of the last PCI function on `path` (hwloc's reading: after
// the first component that starts with "pci", the run of PCI addresses that
// follows; the ones before the last are bridges); nullopt where the path
// goes through devices/virtual/ or has none.
std::optional<std::pair<PciAddress, std::string>> last_pci_function(const std::string& path) {
  if (path.find("/virtual/") != std::string::npos) return std::nullopt;
  std::optional<std::pair<PciAddress, std::string>> found;
  size_t pos = 0;
  bool in_pci = false;
  while (pos < path.size()) {
    size_t end = path.find('/', pos);
    if (end == std::string::npos) end = path.size();
    std::string_view part(path.data() + pos, end - pos);
    if (!in_pci) {
      in_pci = part.substr(0, 3) == "pci";
    } else {
      Parsed<PciAddress> a = parse_pci_address(part);
      if (!a) break;
      found = std::pair{*a.value, path.substr(0, end)};
    }
    pos = end + 1;
  }
  return found;
}

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

struct Gpu {
  PciAddress pci;
  std::string name;  // the directory's name under sys/bus/pci/devices
};

// PCI functions of class 0x03xxxx (display and 3D controllers), in PCI
// address order: gpu0, gpu1, ...
std::vector<Gpu> gpus(const SysRoot& root) {
  std::vector<Gpu> out;
  for (const std::string& name : root.list(k_pci_dir)) {
    Parsed<PciAddress> a = parse_pci_address(name);
    if (!a) continue;
    std::optional<std::string> cls = root.read(fmt::format("{}/{}/class", k_pci_dir, name), 64);
    if (!cls) continue;
    std::string_view c = trim_space(*cls);
    if (c.substr(0, 2) == "0x") c.remove_prefix(2);
    if (c.size() != 6 || !all_hex(c) || hex_value(c.substr(0, 2)) != 0x03) continue;
    out.push_back(Gpu{*a.value, name});
  }
  std::sort(out.begin(), out.end(), [](const Gpu& a, const Gpu& b) { return a.pci.key() < b.pci.key(); });
  return out;
}

// The device under sys/bus/pci/devices/NAME (a PCI function itself).
Device pci_device(const SysRoot& root, const std::string& entry, std::string name, std::string kind) {
  Device d;
  d.name = std::move(name);
  d.kind = std::move(kind);
  std::string rel = fmt::format("{}/{}", k_pci_dir, entry);
  std::optional<std::string> link = root.read_link(rel);
  std::string dir = link ? joined(k_pci_dir, *link) : rel;
  d.pci = *parse_pci_address(entry).value;
  read_locality(root, dir, d);
  return d;
}

// The class directory entry `rel` (sys/class/net/eth0): the path its link
// points to (hwloc: on old kernels the entry is a directory and its
// `device` link points to the device).
std::optional<std::string> class_entry_path(const SysRoot& root, const std::string& dir,
                                            const std::string& rel) {
  if (std::optional<std::string> link = root.read_link(rel)) return joined(dir, *link);
  if (std::optional<std::string> link = root.read_link(rel + "/device")) return joined(rel, *link);
  return std::nullopt;
}

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

std::optional<unsigned> gpu_number(std::string_view name) {
  if (name.size() < 4 || name.substr(0, 3) != "gpu") return std::nullopt;
  std::optional<unsigned long long> n = parse_decimal(name.substr(3), k_max_id);
  if (!n) return std::nullopt;
  return static_cast<unsigned>(*n);
}

}  // namespace

std::string PciAddress::text() const { return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, dev, func); }

Parsed<PciAddress> parse_pci_address(std::string_view text) {
  std::vector<std::string_view> parts;
  std::vector<size_t> starts;
  size_t pos = 0;
  while (true) {
    size_t colon = text.find(':', pos);
    starts.push_back(pos);
    parts.push_back(text.substr(pos, colon == std::string_view::npos ? std::string_view::npos : colon - pos));
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3)
    return pci_fail("expected a PCI address DDDD:BB:DD.F or BB:DD.F", parts.size() > 3 ? starts[3] - 1 : 0);
  PciAddress a;
  size_t i = 0;
  if (parts.size() == 3) {
    if (parts[0].size() < 4 || parts[0].size() > 8 || !all_hex(parts[0]))
      return pci_fail(fmt::format("PCI domain '{}' is not 4 to 8 hex digits", printable(parts[0])), 0);
    a.domain = hex_value(parts[0]);
    i = 1;
  }
  if (parts[i].size() != 2 || !all_hex(parts[i]))
    return pci_fail(fmt::format("PCI bus '{}' is not 2 hex digits", printable(parts[i])), starts[i]);
  a.bus = hex_value(parts[i]);
  std::string_view rest = parts[i + 1];
  size_t at = starts[i + 1];
  size_t dot = rest.find('.');
  std::string_view dev = rest.substr(0, dot);
  if (dev.size() != 2 || !all_hex(dev))
    return pci_fail(fmt::format("PCI device '{}' is not 2 hex digits", printable(dev)), at);
  a.dev = hex_value(dev);
  if (a.dev > 0x1f) return pci_fail(fmt::format("PCI device {} above 1f", dev), at);
  if (dot == std::string_view::npos) return pci_fail("missing '.F' (the PCI function) after the device", at + 2);
  std::string_view func = rest.substr(dot + 1);
  if (func.size() != 1 || !is_hex(func[0]))
    return pci_fail(fmt::format("PCI function '{}' is not 1 hex digit", printable(func)), at + dot + 1);
  a.func = hex_value(func);
  if (a.func > 7) return pci_fail(fmt::format("PCI function {} above 7", func), at + dot + 1);
  Parsed<PciAddress> out;
  out.value = a;
  return out;
}

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
    return pci_device(root, text, text, "pci");
  }
  if (std::optional<unsigned> k = gpu_number(n)) {
    std::vector<Gpu> all = gpus(root);
    if (*k < all.size()) return pci_device(root, all[*k].name, n, "gpu");
    std::vector<std::string> names;
    for (size_t i = 0; i < all.size(); ++i) names.push_back(fmt::format("gpu{} ({})", i, all[i].pci.text()));
    std::string here;
    for (const std::string& g : names) here += (here.empty() ? "" : ", ") + g;
    throw Error(ErrorKind::Resolution, fmt::format("no GPU {} on this machine", n),
                all.empty() ? std::string("it has no PCI function of class 03 (display or 3D controller)")
                            : fmt::format("GPUs here, in PCI address order: {}", here));
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
  std::vector<Gpu> all = gpus(root);
  for (size_t i = 0; i < all.size(); ++i) out.push_back(pci_device(root, all[i].name, fmt::format("gpu{}", i), "gpu"));
  // Each class in the order above, by name inside it (dax's two directories merged).
  std::stable_sort(out.begin(), out.end(), [](const Device& a, const Device& b) {
    auto rank = [](const std::string& kind) {
      for (size_t i = 0; i < std::size(k_class_dirs); ++i)
        if (kind == k_class_dirs[i].kind) return i;
      return std::size(k_class_dirs);
    };
    if (a.kind == "gpu" || b.kind == "gpu") return rank(a.kind) < rank(b.kind);
    return std::tuple(rank(a.kind), a.name) < std::tuple(rank(b.kind), b.name);
  });
  return out;
}

}  // namespace affix
