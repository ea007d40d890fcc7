#include "migration_level.hpp"

#include <algorithm>
#include <iterator>
#include <set>
#include <tuple>

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
  // The same rule as crossing() for every pair, without visiting every pair:
  // two CPUs of one known core are Smt; otherwise a pair's crossing depends
  // only on (llc, node, socket), so the pairs are taken between the distinct
  // triples (a few: one per L3 at most), and two CPUs with the same triple
  // (or one the topology does not know) are Core.
  struct Place {
    long llc, node, socket;
    bool operator<(const Place& o) const {
      return std::tie(llc, node, socket) < std::tie(o.llc, o.node, o.socket);
    }
  };
  std::set<long> cores;
  std::set<Place> places;
  bool core_pair = false;
  bool smt_pair = false;
  cpus.for_each([&](unsigned cpu) {
    const CpuInfo* c = info(cpu);
    if (!c) {
      core_pair = true;  // unknown: as crossing() counts it
      return;
    }
    if (c->core >= 0 && !cores.insert(c->core).second) smt_pair = true;
    if (!places.insert(Place{c->llc, c->node, c->socket}).second) core_pair = true;
  });
  if (smt_pair) return Crossing::Smt;
  if (core_pair) return Crossing::Core;
  Crossing best = Crossing::Socket;
  for (auto i = places.begin(); i != places.end() && best > Crossing::Core; ++i) {
    for (auto j = std::next(i); j != places.end(); ++j) {
      Crossing c = differ(i->socket, j->socket) ? Crossing::Socket
                   : differ(i->node, j->node)   ? Crossing::Node
                   : differ(i->llc, j->llc)     ? Crossing::Llc
                                                : Crossing::Core;
      best = std::min(best, c);
    }
  }
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
