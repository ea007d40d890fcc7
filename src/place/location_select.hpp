#pragma once
// Evaluates a parsed location on a topology: which CPUs it names, and which
// of them do not count (offline, not allowed). The rules of affix(1),
// LOCATIONS and its "Selection rules":
//
// - First step: socket, node and cpu take kernel numbers; die, llc and core
//   a machine-wide index (the position in Topology's unit vectors).
// - Later steps: each unit the step before selected is narrowed on its own
//   (as hwloc does: `socket:all.core:0` is the first core of every socket):
//   an index among the units of the level that share CPUs with that unit,
//   in the order of units, keeping only the CPUs it selected. Indexes count
//   online CPUs before the allowed set is applied, so they never depend on
//   the cgroup.
// - A unit that does not exist is an error. A CPU named by number in a
//   first step (cpu: with numbers, or a bare list) that is offline or not
//   allowed is an error (Mode::Strict); a cpu index in a later step is an
//   index like any other (`core:all.cpu:0`) and is intersected. Larger units and `all` are intersected with the allowed
//   online CPUs; what they lose is reported.
// - `self` (first step only): Allowed::inherited (all that is allowed where
//   unknown), online CPUs; those of it that are not allowed are reported.
// - `kind:` (any step): the CPUs of Topology::kinds[K] within each part
//   before; kind numbers are the machine's in every step. Without kinds the
//   machine has one: every online CPU. A kind that does not exist is an error.
// - `near:DEVICE` (first step only): the CPUs of the smallest unit that
//   holds the device's local CPUs (device_place, devices.hpp), the device
//   taken from Topology::devices (read_location_devices, near.hpp).
// - Mode::Lenient (for --exclude): naming an offline or not-allowed CPU is
//   fine (it just removes nothing); units that do not exist are still errors.

#include <string>

#include "cpuset.hpp"
#include "devices.hpp"
#include "location.hpp"
#include "topology.hpp"

namespace affix {

enum class SelectMode { Strict, Lenient };

struct LocationSelection {
  CpuSet cpus;         // online, allowed
  CpuSet offline;      // offline CPUs (with known place) of the units named
  CpuSet not_allowed;  // online CPUs of the units named that are not allowed
  CpuSet cpuless_nodes;  // nodes named by number that have no CPU, online or offline
  std::vector<NearDevice> near;  // the devices near: steps named, in the order of the spec (once each)
};

// Throws Error(Resolution) as described above (never for an empty result:
// the caller decides).
LocationSelection select_location(const Location& location, const Topology& topo,
                                  const Allowed& allowed, SelectMode mode);

}  // namespace affix
