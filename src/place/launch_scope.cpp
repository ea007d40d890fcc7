#include "launch_scope.hpp"

#include <optional>

#include "error.hpp"

namespace affix {

namespace {

// One term of a bare CPU list (N, N-M, N-M:S, commas; not `all`), as
// taskset takes it.
bool is_bare_list(const Location& where) {
  return where.terms.size() == 1 && where.terms[0].bare && !where.terms[0].steps[0].ids.all;
}

bool is_plain_cpulist(const PlacementRequest& request, const RequestLocations& locations) {
  if (locations.exclude || request.no_smt || request.count || request.order != Order::Compact ||
      request.slice || request.mem || request.gpu)
    return false;
  return is_bare_list(locations.where);
}

// Every term a single first step on socket/node/cpu (kernel numbers, which
// the order of units cannot change), self, or a bare list (near: names the
// smallest unit holding a device's CPUs: an llc among them).
bool numbers_only(const Location& location) {
  for (const Term& term : location.terms) {
    if (term.steps.size() != 1) return false;
    const Step& step = term.steps[0];
    if (step.type == StepType::Kind || step.type == StepType::Near) return false;
    if (step.type == StepType::Level && step.level != Level::Socket && step.level != Level::Node &&
        step.level != Level::Cpu)
      return false;
  }
  return true;
}

}  // namespace

bool needs_tiers(const PlacementRequest& request) {
  if (!request.mem) return false;
  return request.mem->policy == MemPolicy::Weighted || (request.mem->nodes && request.mem->nodes->needs_tiers());
}

ReadScope scope_for(const PlacementRequest& request, const RequestLocations& locations) {
  if (is_plain_cpulist(request, locations)) return ReadScope{false, false, false, true, false};
  ReadScope scope;
  scope.memory = request.mem || request.gpu;  // --gpu binds memory
  scope.tiers = needs_tiers(request);
  scope.caches = request.count || request.slice || request.gpu || !numbers_only(locations.where) ||
                 (locations.exclude && !numbers_only(*locations.exclude));
  return scope;
}

ReadScope scope_for(const PlacementRequest& request) {
  std::optional<RequestLocations> locations;
  try {
    locations = parse_locations(request);
  } catch (const Error&) {
    return ReadScope{};
  }
  return scope_for(request, *locations);
}

bool names_kind(const RequestLocations& locations) {
  auto has_kind = [](const Location& location) {
    for (const Term& term : location.terms)
      for (const Step& step : term.steps)
        if (step.type == StepType::Kind) return true;
    return false;
  };
  return has_kind(locations.where) || (locations.exclude && has_kind(*locations.exclude));
}

}  // namespace affix
