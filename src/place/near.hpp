#pragma once
// The devices a location names (near:DEVICE, affix(1), LOCATIONS) and the
// GPUs of --gpu, read before it is resolved: the resolver is pure and takes
// them from Topology::devices and Topology::gpus. Only those devices' files
// are read (a launch reads no PCI tree; --gpu the GPU functions' files).

#include "resolver.hpp"
#include "sysroot.hpp"
#include "topology.hpp"

namespace affix {

// Reads each device WHERE and --exclude name with near: (once each) into
// topo.devices, named as the spec writes it; throws read_device's errors
// (devices.hpp) for the first that cannot be had.
void read_location_devices(const SysRoot& root, const RequestLocations& locations, Topology& topo);

// WHERE resolved against every online CPU and node of the machine, for what
// is in no cgroup (pin --irq: an interrupt), the devices its near: steps name
// read first (near:eth1 for eth1's own IRQs). Throws the resolver's errors
// (a spec that does not parse first) and read_device's.
Placement resolve_on_machine(const SysRoot& root, const PlacementRequest& request, Topology& topo,
                             const EnvLookup& env);

// With --gpu, the machine's GPUs (read_gpus, gpus.hpp) into topo.gpus;
// without it nothing is read.
void read_request_gpus(const SysRoot& root, const PlacementRequest& request, Topology& topo);

}  // namespace affix
