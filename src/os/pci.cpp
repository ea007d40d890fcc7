#include "pci.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "text.hpp"

namespace affix {

namespace {

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

}  // namespace

unsigned hex_digits_value(std::string_view s) { return hex_value(s); }
bool all_hex_digits(std::string_view s) { return all_hex(s); }

// `path` (relative to the root) made plain: a link's target resolved
// against the directory holding the link, an absolute target taken inside
// the root.
std::string link_target_path(std::string_view dir, const std::string& link) {
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

// The class directory entry `rel` (sys/class/net/eth0): the path its link
// points to (hwloc: on old kernels the entry is a directory and its
// `device` link points to the device).
std::optional<std::string> class_entry_path(const SysRoot& root, const std::string& dir,
                                            const std::string& rel) {
  if (std::optional<std::string> link = root.read_link(rel)) return link_target_path(dir, *link);
  if (std::optional<std::string> link = root.read_link(rel + "/device")) return link_target_path(rel, *link);
  return std::nullopt;
}

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

}  // namespace affix
