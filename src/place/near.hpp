#pragma once
// The devices a location names (near:DEVICE, affix(1), LOCATIONS), read
// before it is resolved: the resolver is pure and takes them from
// Topology::devices. Only those devices' files are read (a launch reads no
// PCI tree).

#include "resolver.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// Reads each device WHERE and --exclude name with near: (once each) into
// topo.devices, named as the spec writes it; throws read_device's errors
// (devices.hpp) for the first that cannot be had.
void read_location_devices(const SysRoot& root, const RequestLocations& locations, Topology& topo);

}  // namespace affix
