#pragma once
// PCI addresses and the PCI function a sysfs path leads to: the one parser
// of "DDDD:BB:DD.F" and the one walk of a device's sysfs link, used by
// near:DEVICE and topo's devices (topology/devices.hpp) and by the
// interrupts (irq.hpp). The walk is hwloc's Linux backend's
// (hwloc_linuxfs_find_osdev_parent): the last PCI address on the path the
// device's link points to, past the bridges; none through devices/virtual/.

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "cpuset.hpp"
#include "sysroot.hpp"

namespace affix {

// The PCI functions' directory, relative to a root.
inline constexpr const char* k_pci_dir = "sys/bus/pci/devices";

struct PciAddress {
  unsigned domain = 0, bus = 0, dev = 0, func = 0;
  std::string text() const;  // "0000:02:00.0" (the domain at least 4 hex digits)
  auto key() const { return std::tuple(domain, bus, dev, func); }
};

// "DDDD:BB:DD.F" or "BB:DD.F" (domain 0000), hex digits in either case:
// the domain 4 to 8 digits, the bus 2, the device 2 (at most 1f), the
// function 1 (at most 7). Where it is not one, the reason ("function 8
// above 7") and the offset of the offending character in `text`.
Parsed<PciAddress> parse_pci_address(std::string_view text);

// `link` (a symbolic link's target) as a path relative to the root: resolved
// against `dir`, the directory holding the link; an absolute target taken
// inside the root.
std::string link_target_path(std::string_view dir, const std::string& link);

// The last PCI function on `path` and its directory; nullopt where the path
// goes through devices/virtual/ or holds none.
std::optional<std::pair<PciAddress, std::string>> last_pci_function(const std::string& path);

// The path a class directory's entry `rel` (sys/class/net/eth0, in `dir`)
// points to (on old kernels the entry is a directory whose `device` link
// points to the device); nullopt where it is neither.
std::optional<std::string> class_entry_path(const SysRoot& root, const std::string& dir, const std::string& rel);

// Hex digits (a sysfs class or mask field).
bool all_hex_digits(std::string_view s);
unsigned hex_digits_value(std::string_view s);

}  // namespace affix
