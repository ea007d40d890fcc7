#include "near.hpp"

#include <algorithm>

#include "devices.hpp"
#include "gpus.hpp"

namespace affix {

namespace {

void read_named(const SysRoot& root, const Location& location, Topology& topo) {
  for (const Term& term : location.terms) {
    const Step& first = term.steps[0];
    if (first.type != StepType::Near) continue;
    if (std::any_of(topo.devices.begin(), topo.devices.end(),
                    [&](const Device& d) { return d.name == first.device; }))
      continue;
    Device d = read_device(root, first.device);
    d.name = first.device;
    topo.devices.push_back(std::move(d));
  }
}

}  // namespace

void read_location_devices(const SysRoot& root, const RequestLocations& locations, Topology& topo) {
  read_named(root, locations.where, topo);
  if (locations.exclude) read_named(root, *locations.exclude, topo);
}

Placement resolve_on_machine(const SysRoot& root, const PlacementRequest& request, Topology& topo,
                             const EnvLookup& env) {
  RequestLocations locations = parse_locations(request);
  read_location_devices(root, locations, topo);
  Allowed machine{topo.online, topo.node_set(), std::nullopt, "all-online", "all-nodes"};
  return resolve(request, locations, topo, machine, env);
}

void read_request_gpus(const SysRoot& root, const PlacementRequest& request, Topology& topo) {
  if (request.gpu) topo.gpus = read_gpus(root);
}

}  // namespace affix
