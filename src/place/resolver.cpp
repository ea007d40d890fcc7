#include "resolver.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "error.hpp"
#include "gpu_place.hpp"
#include "location.hpp"
#include "location_select.hpp"
#include "memnodes.hpp"
#include "selection.hpp"
#include "slice_rank.hpp"
#include "text.hpp"

namespace affix {

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

namespace {

void add_dropped(Placement& p, const CpuSet& cpus, const char* reason) {
  if (!cpus.empty()) p.dropped.push_back(Dropped{cpus, reason});
}

// "the selection spans sockets 0-1 while its 4 CPUs would fit in socket 0".
void warn_spread(Placement& p, const std::vector<Unit>& units, const CpuSet& spanned,
                 const char* plural, const char* word, const Allowed& allowed) {
  if (spanned.count() < 2) return;
  unsigned count = p.cpus.count();
  // Name a unit the selection already touches where one is big enough, so
  // the hint stays near what was asked for; else the first that fits.
  const Unit* fits = nullptr;
  for (const Unit& u : units) {
    if ((u.cpus & allowed.cpus).count() < count) continue;
    if (spanned.test(static_cast<unsigned>(u.id))) {
      fits = &u;
      break;
    }
    if (!fits) fits = &u;
  }
  if (fits)
    p.warnings.push_back(fmt::format("the selection spans {} {} while its {} CPUs would fit in {} {}",
                                     plural, format_cpulist(spanned), count, word, fits->id));
}

void add_warnings(Placement& p, const PlacementRequest& req, const Topology& topo,
                  const Allowed& allowed) {
  // Only where affix chose the shape (--count, --slice): a span the user
  // named (`all --no-smt`, `node:0+node:2`) is what they asked for.
  if ((req.count || req.slice) && req.order != Order::Scatter) {
    warn_spread(p, topo.sockets, p.sockets, "sockets", "socket", allowed);
    warn_spread(p, topo.numa, p.nodes, "nodes", "node", allowed);
  }
  // Weighted interleave is for nodes without CPUs (CXL, HBM) beside the
  // CPUs' own: only the nodes with CPUs are compared.
  CpuSet compared = p.mem_nodes;
  if (p.mem_policy == MemPolicy::Weighted)
    for (const NodeInfo& n : topo.nodes)
      if (n.cpus.empty()) compared.reset(n.node);
  if (p.mem_policy && *p.mem_policy != MemPolicy::Local && !(compared == p.nodes))
    p.warnings.push_back(fmt::format("memory nodes {} differ from the CPUs' nodes {}",
                                     list_or_none(p.mem_nodes), list_or_none(p.nodes)));
  CpuSet gpu;
  for (const NodeInfo& n : topo.nodes)
    if (n.kind == MemKind::Gpu && p.mem_nodes.test(n.node)) gpu.set(n.node);
  if (!gpu.empty() && !(gpu == p.mem_nodes))  // a mix: a share of every allocation goes there
    p.warnings.push_back(fmt::format("node{} {} {} GPU memory: the pages the policy puts there are across the bus "
                                     "from the CPUs",
                                     gpu.count() == 1 ? "" : "s", format_cpulist(gpu), gpu.count() == 1 ? "is" : "are"));
  CpuSet isolated = p.cpus & topo.isolated;
  if (!isolated.empty())
    p.warnings.push_back(fmt::format(
        "the selection includes isolated CPUs {} (the scheduler does not balance load onto them)",
        format_cpulist(isolated)));
}

// "node 2 has no CPUs", where that is why a selection is empty. The hint
// does not depend on the memory size (a launch that reads no memory does not
// know it); only nodes known to have no memory get none.
Error cpuless_nodes_error(const CpuSet& nodes, const Topology& topo) {
  bool memory = false;
  nodes.for_each([&](unsigned id) {
    const NodeInfo* n = topo.node(id);
    if (!n || !n->memory_total_kb || *n->memory_total_kb > 0) memory = true;
  });
  std::string list = format_cpulist(nodes);
  if (nodes.count() == 1)
    return Error(ErrorKind::Resolution, fmt::format("node {} has no CPUs", list),
                 memory ? fmt::format("a node without CPUs only holds memory: '--mem bind:{}' puts "
                                      "memory there, with CPUs from another node", list)
                        : std::string());
  return Error(ErrorKind::Resolution, fmt::format("nodes {} have no CPUs", list),
               memory ? fmt::format("nodes without CPUs only hold memory: '--mem bind:{}' puts "
                                    "memory there, with CPUs from other nodes", list)
                      : std::string());
}

// `mem` is the request's --mem, or bind to the CPUs' nodes for --gpu without it.
void resolve_memory(Placement& p, const MemRequest& mem, const PlacementRequest& request,
                    const Topology& topo, const Allowed& allowed) {
  p.mem_policy = mem.policy;
  if (mem.policy == MemPolicy::Local) {
    if (mem.nodes)
      throw Error(ErrorKind::Usage, fmt::format("--mem local:{}: local takes no nodes", mem.nodes->text));
    return;
  }
  if (mem.nodes) {
    MemSelection selected = resolve_mem_selector(*mem.nodes, topo, allowed);
    p.mem_nodes = selected.nodes;
    if (!mem.nodes->only_lists()) p.mem_terms = std::move(selected.terms);
  } else {
    p.mem_nodes = mem.policy == MemPolicy::Weighted ? weighted_default_nodes(topo, p.nodes, allowed)
                                                    : default_mem_nodes(topo, p.nodes, allowed);
  }
  if (mem.policy == MemPolicy::Weighted) {
    p.weights = plan_weights(request.weights, p.mem_nodes, topo);
    for (const std::string& w : p.weights->warnings) p.warnings.push_back(w);
  }
}

// The node-local rank of --slice and --gpu: K of --slice K/N; explain
// --ranks' rank; the launcher's (--slice rank needs one; --gpu without a
// launcher is rank 0 of 1).
LocalRank rank_of(const PlacementRequest& request, const EnvLookup& env) {
  if (request.slice && !request.slice->from_rank)
    return LocalRank{request.slice->k, request.slice->n,
                     fmt::format("--slice {}/{}", request.slice->k, request.slice->n)};
  if (request.rank) {
    check_rank(*request.rank, "--ranks");
    return *request.rank;
  }
  if (request.slice) return require_launcher_rank(env);
  if (auto r = launcher_rank(env, "--gpu")) {
    check_rank(*r, "--gpu");
    return *r;
  }
  return LocalRank{};
}

}  // namespace

RequestLocations parse_locations(const PlacementRequest& request) {
  RequestLocations out{parse_location(request.where), std::nullopt};
  if (request.exclude) out.exclude = parse_location(*request.exclude);
  return out;
}

Placement resolve(const PlacementRequest& request, const Topology& topo, const Allowed& allowed,
                  const EnvLookup& env) {
  // Parse everything first: a syntax error anywhere wins over resolution.
  return resolve(request, parse_locations(request), topo, allowed, env);
}

Placement resolve(const PlacementRequest& request, const RequestLocations& locations,
                  const Topology& topo, const Allowed& allowed, const EnvLookup& env) {
  const Location& where = locations.where;
  const std::optional<Location>& exclude = locations.exclude;
  if (request.count && *request.count == 0)
    throw Error(ErrorKind::Resolution, "--count 0: the count must be at least 1");

  Placement p;
  LocationSelection sel = select_location(where, topo, allowed, SelectMode::Strict);
  add_dropped(p, sel.offline, "offline");
  add_dropped(p, sel.not_allowed, "not-allowed");
  CpuSet cpus = sel.cpus;
  p.near = sel.near;
  for (const NearDevice& n : p.near) {
    for (const std::string& w : n.device.warnings) p.warnings.push_back(w);  // a file left out
    if (!n.warning.empty()) p.warnings.push_back(n.warning);
  }
  if (cpus.empty() && !sel.cpuless_nodes.empty() && sel.offline.empty() && sel.not_allowed.empty())
    throw cpuless_nodes_error(sel.cpuless_nodes, topo);
  if (cpus.empty())
    throw Error(ErrorKind::Resolution,
                fmt::format("'{}' selects no CPU that is online and allowed (allowed: {}, from {})",
                            request.where, list_or_none(allowed.cpus), printable(allowed.source)));

  if (exclude) {
    CpuSet removed = cpus & select_location(*exclude, topo, allowed, SelectMode::Lenient).cpus;
    cpus -= removed;
    add_dropped(p, removed, "excluded");
    if (cpus.empty())
      throw Error(ErrorKind::Resolution,
                  fmt::format("--exclude '{}' removes every CPU of '{}' ({})", *request.exclude,
                              request.where, format_cpulist(removed)));
  }

  if (request.no_smt) {
    CpuSet kept = keep_one_per_core(topo, cpus);
    add_dropped(p, cpus - kept, "smt");
    cpus = kept;
  }

  LocalRank rank;
  if (request.slice || request.gpu) rank = rank_of(request, env);
  std::vector<CpuSet> parts;  // every rank's slice, for --gpu
  if (request.slice) {
    CpuSet kept = slice_cores(topo, cpus, rank.rank, rank.size);
    if (request.gpu) parts = slice_parts(topo, cpus, rank.size);
    add_dropped(p, cpus - kept, "slice");
    cpus = kept;
  }
  if (request.gpu) {
    GpuStep step = place_gpu(*request.gpu, topo, allowed, rank, cpus, parts, env);
    add_dropped(p, cpus - step.cpus, "gpu");
    cpus = step.cpus;
    p.gpu = std::move(step.placement);
    for (std::string& w : step.warnings) p.warnings.push_back(std::move(w));
  }

  p.sequence = order_cpus(topo, cpus, request.order);
  if (request.count) {
    unsigned n = *request.count;
    if (n > p.sequence.size())
      throw Error(ErrorKind::Resolution,
                  fmt::format("--count {}: the selection has only {} CPU{} ({})", n,
                              p.sequence.size(), p.sequence.size() == 1 ? "" : "s",
                              format_cpulist(cpus)));
    p.sequence.resize(n);
    CpuSet kept;
    for (unsigned cpu : p.sequence) kept.set(cpu);
    add_dropped(p, cpus - kept, "count");
    cpus = kept;
  }
  p.cpus = cpus;

  p.cpus.for_each([&](unsigned cpu) {
    if (cpu >= topo.cpus.size()) return;
    const CpuInfo& c = topo.cpus[cpu];
    if (c.socket >= 0) p.sockets.set(static_cast<unsigned>(c.socket));
    if (c.node >= 0) p.nodes.set(static_cast<unsigned>(c.node));
  });

  if (request.mem) resolve_memory(p, *request.mem, request, topo, allowed);
  else if (request.gpu) resolve_memory(p, MemRequest{}, request, topo, allowed);  // --gpu: memory of the GPU's node
  add_warnings(p, request, topo, allowed);
  if (allowed.inherited) {
    CpuSet self = *allowed.inherited & allowed.cpus;
    CpuSet outside = p.cpus - self;
    if (!outside.empty()) {
      p.widening = fmt::format("CPUs {} are outside the CPUs affix was started on ({}); 'self' keeps to those",
                               format_cpulist(outside), list_or_none(self));
      p.warnings.push_back(p.widening);
    }
  }
  return p;
}

}  // namespace affix
