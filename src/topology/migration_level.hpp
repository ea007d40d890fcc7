#pragma once
// The topology levels a thread's move crosses, for `affix watch`: a move from
// one CPU to another is counted once, at the largest boundary between them
// (socket, else node, else llc, else core, else smt), and a set of CPUs is
// named by the smallest unit that holds it ("node:1", "llc:3").

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "cpuset.hpp"
#include "topology.hpp"

namespace affix {

enum class Crossing { Smt, Core, Llc, Node, Socket };
constexpr size_t k_crossings = 5;
const char* crossing_name(Crossing c);  // "smt", "core", "llc", "node", "socket"

// Migrations counted by the level they crossed; total() is their sum.
struct Migrations {
  std::array<uint64_t, k_crossings> by_level{};  // indexed by Crossing
  uint64_t& operator[](Crossing c) { return by_level[static_cast<size_t>(c)]; }
  uint64_t operator[](Crossing c) const { return by_level[static_cast<size_t>(c)]; }
  uint64_t total() const;
  Migrations& operator+=(const Migrations& o);
  bool operator==(const Migrations& o) const = default;
};

class LevelMap {
public:
  explicit LevelMap(const Topology& topo);

  // The largest boundary between two CPUs; nullopt where they are the same
  // CPU. A level where either CPU's unit is unknown is not taken as crossed;
  // two CPUs that differ in nothing known count as `core` (another CPU, not
  // known to share a core).
  std::optional<Crossing> crossing(unsigned from, unsigned to) const;
  // The largest boundary between any two CPUs of the set; nullopt for fewer
  // than two CPUs.
  std::optional<Crossing> widest(const CpuSet& cpus) const;
  // The smallest boundary between two CPUs of the set (the closest pair);
  // nullopt for fewer than two CPUs.
  std::optional<Crossing> narrowest(const CpuSet& cpus) const;
  // The smallest unit holding every CPU of the set, as the location language
  // names it ("llc:3", "node:1", "socket:0"; of units of the same size the
  // wider name); "" where no socket holds them all (or the set is empty).
  std::string holder(const CpuSet& cpus) const;
  // The set for people: the unit's name where the set is that unit
  // ("socket:0"), else the CPU list and the unit holding it ("4-5 in
  // node:1"), else the CPU list.
  std::string describe(const CpuSet& cpus) const;

private:
  const CpuInfo* info(unsigned cpu) const;
  Topology m_topo;
};

}  // namespace affix
