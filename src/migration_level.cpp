#include "migration_level.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace affix {

namespace {

constexpr const char* k_names[k_crossings] = {"smt", "core", "llc", "node", "socket"};

// Whether two known values differ (an unknown one, -1, never does).
bool differ(long a, long b) { return a >= 0 && b >= 0 && a != b; }

// The distinct known values of one field over the CPUs of a set: 0, 1 or
// "several" (2).
template <typename F> int spread(const Topology& topo, const CpuSet& cpus, F field) {
  long seen = -1;
  int count = 0;
  cpus.for_each([&](unsigned cpu) {
    if (cpu >= topo.cpus.size() || count > 1) return;
    long v = field(topo.cpus[cpu]);
    if (v < 0) return;
    if (count == 0) {
      seen = v;
      count = 1;
    } else if (v != seen) {
      count = 2;
    }
  });
  return count;
}

}  // namespace

const char* crossing_name(Crossing c) { return k_names[static_cast<size_t>(c)]; }

uint64_t Migrations::total() const {
  uint64_t sum = 0;
  for (auto n : by_level) sum += n;
  return sum;
}

Migrations& Migrations::operator+=(const Migrations& o) {
  for (size_t i = 0; i < k_crossings; ++i) by_level[i] += o.by_level[i];
  return *this;
}

LevelMap::LevelMap(const Topology& topo) : m_topo(topo) {}

const CpuInfo* LevelMap::info(unsigned cpu) const {
  if (cpu >= m_topo.cpus.size() || !m_topo.cpus[cpu].known) return nullptr;
  return &m_topo.cpus[cpu];
}

std::optional<Crossing> LevelMap::crossing(unsigned from, unsigned to) const {
  if (from == to) return std::nullopt;
  const CpuInfo* a = info(from);
  const CpuInfo* b = info(to);
  if (!a || !b) return Crossing::Core;
  if (differ(a->socket, b->socket)) return Crossing::Socket;
  if (differ(a->node, b->node)) return Crossing::Node;
  if (differ(a->llc, b->llc)) return Crossing::Llc;
  if (a->core >= 0 && a->core == b->core) return Crossing::Smt;
  return Crossing::Core;
}

std::optional<Crossing> LevelMap::widest(const CpuSet& cpus) const {
  if (cpus.count() < 2) return std::nullopt;
  if (spread(m_topo, cpus, [](const CpuInfo& c) { return c.socket; }) > 1) return Crossing::Socket;
  if (spread(m_topo, cpus, [](const CpuInfo& c) { return c.node; }) > 1) return Crossing::Node;
  if (spread(m_topo, cpus, [](const CpuInfo& c) { return static_cast<long>(c.llc); }) > 1)
    return Crossing::Llc;
  bool one_core = spread(m_topo, cpus, [](const CpuInfo& c) { return static_cast<long>(c.core); }) == 1;
  bool all_known = true;
  cpus.for_each([&](unsigned cpu) { all_known = all_known && info(cpu) && info(cpu)->core >= 0; });
  return one_core && all_known ? Crossing::Smt : Crossing::Core;
}

namespace {

struct Holder {
  const Unit* unit = nullptr;
  const char* level = nullptr;
};

Holder smallest_holder(const Topology& topo, const CpuSet& cpus) {
  Holder best;
  if (cpus.empty()) return best;
  auto consider = [&](const std::vector<Unit>& units, const char* level) {
    for (const auto& u : units) {
      if (!cpus.is_subset_of(u.cpus)) continue;
      if (!best.unit || u.cpus.count() < best.unit->cpus.count()) best = Holder{&u, level};
    }
  };
  consider(topo.sockets, "socket");  // on a tie the wider name stays: socket:0 over node:0
  consider(topo.numa, "node");
  consider(topo.llcs, "llc");
  return best;
}

}  // namespace

std::optional<Crossing> LevelMap::narrowest(const CpuSet& cpus) const {
  if (cpus.count() < 2) return std::nullopt;
  std::set<long> cores, llcs, nodes, sockets;
  Crossing best = Crossing::Socket;
  cpus.for_each([&](unsigned cpu) {
    const CpuInfo* c = info(cpu);
    if (!c) {
      best = std::min(best, Crossing::Core);  // unknown: as crossing() counts it
      return;
    }
    auto seen = [](std::set<long>& set, long id) { return id >= 0 && !set.insert(id).second; };
    bool same_core = seen(cores, c->core), same_llc = seen(llcs, c->llc);
    bool same_node = seen(nodes, c->node), same_socket = seen(sockets, c->socket);
    if (same_core) best = Crossing::Smt;
    else if (same_llc) best = std::min(best, Crossing::Core);
    else if (same_node) best = std::min(best, Crossing::Llc);
    else if (same_socket) best = std::min(best, Crossing::Node);
  });
  return best;
}

std::string LevelMap::holder(const CpuSet& cpus) const {
  Holder h = smallest_holder(m_topo, cpus);
  return h.unit ? fmt::format("{}:{}", h.level, h.unit->id) : std::string();
}

std::string LevelMap::describe(const CpuSet& cpus) const {
  Holder h = smallest_holder(m_topo, cpus);
  if (!h.unit) return format_cpulist(cpus);
  if (h.unit->cpus == cpus) return fmt::format("{}:{}", h.level, h.unit->id);
  return fmt::format("{} in {}:{}", format_cpulist(cpus), h.level, h.unit->id);
}

}  // namespace affix
