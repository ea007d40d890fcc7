#include "location_select.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

class Evaluator {
public:
  Evaluator(const Location& loc, const Topology& topo, const Allowed& allowed, SelectMode mode)
    : m_loc(loc), m_topo(topo), m_allowed(allowed), m_mode(mode) {
    for (size_t i = 0; i < topo.sockets.size(); ++i) m_socket_index[topo.sockets[i].id] = i;
    for (size_t i = 0; i < topo.numa.size(); ++i) m_node_index[topo.numa[i].id] = i;
    for (const auto& c : topo.cpus)
      if (c.known && !c.online) m_offline_known.set(c.cpu);
  }

  LocationSelection run() {
    LocationSelection out;
    for (const Term& t : m_loc.terms) {
      CpuSet cpus, offline;
      evaluate(t, cpus, offline);
      out.cpus |= cpus & m_allowed.cpus;
      out.not_allowed |= cpus - m_allowed.cpus;
      out.offline |= offline;
    }
    out.offline -= out.cpus;
    out.cpuless_nodes = m_cpuless;
    out.near = std::move(m_near);
    return out;
  }

private:
  // The offline CPUs (with a known place) that belong to unit `index` of `level`.
  CpuSet offline_of(Level level, size_t index) const {
    CpuSet out;
    if (m_offline_known.empty() || level == Level::Cpu) return out;
    const Unit& u = m_topo.units(level)[index];
    m_offline_known.for_each([&](unsigned cpu) {
      const CpuInfo& c = m_topo.cpus[cpu];
      bool in = false;
      switch (level) {
        case Level::Socket: in = c.socket == u.id; break;
        case Level::Node: in = c.node == u.id; break;
        case Level::Die: in = c.die == static_cast<long>(index); break;
        case Level::Llc: in = c.llc == static_cast<long>(index); break;
        case Level::Core: in = c.core == static_cast<long>(index); break;
        case Level::Cpu: break;
      }
      if (in) out.set(cpu);
    });
    return out;
  }

  // A node named by number that has no CPU at all (not one offline either):
  // the resolver says so where the selection ends up empty, rather than
  // blaming the allowed set (a memory-only node is for --mem).
  void note_cpuless(unsigned id, std::optional<size_t> index) {
    if (index && (!m_topo.numa[*index].cpus.empty() || !offline_of(Level::Node, *index).empty())) return;
    m_cpuless.set(id);
  }

  void check_named_cpu(unsigned cpu) const {
    if (m_mode == SelectMode::Lenient) return;
    if (!m_allowed.cpus.test(cpu))
      throw Error(ErrorKind::Resolution,
                  fmt::format("CPU {} is not allowed (allowed: {}, from {})", cpu,
                              list_or_none(m_allowed.cpus), printable(m_allowed.source)));
  }

  // One unit selected by a step: its label for messages ("socket:1.core:2"),
  // its selected online CPUs and the offline CPUs of its place.
  struct Part {
    std::string label;
    CpuSet cpus;
    CpuSet offline;
  };

  void evaluate(const Term& t, CpuSet& cpus, CpuSet& offline) {
    const Step& first = t.steps[0];
    std::vector<Part> parts = first.type == StepType::Near   ? near_step(first)
                              : first.type == StepType::Self ? self_step()
                              : first.type == StepType::Kind ? kind_step(first, {Part{"", m_topo.online, {}}})
                                                             : first_step(first);
    if (t.steps.size() == 1 && first.type == StepType::Level && first.level == Level::Cpu && first.ids.all)
      offline = m_offline_known;
    for (size_t i = 1; i < t.steps.size(); ++i)
      parts = t.steps[i].type == StepType::Kind ? kind_step(t.steps[i], parts) : later_step(t.steps[i], parts);
    for (const Part& p : parts) {
      cpus |= p.cpus;
      offline |= p.offline;
    }
  }

  // near:DEVICE: the smallest unit holding the device's local CPUs.
  std::vector<Part> near_step(const Step& s) {
    auto it = std::find_if(m_topo.devices.begin(), m_topo.devices.end(),
                           [&](const Device& d) { return d.name == s.device; });
    if (it == m_topo.devices.end())
      throw Error(ErrorKind::Runtime,
                  fmt::format("affix placed near device '{}' without reading it first", printable(s.device)),
                  fmt::format("a defect of affix: please report the command line; 'affix explain near:{}' shows "
                              "where the device is",
                              printable(s.device)));
    DevicePlace place = device_place(m_topo, *it);
    bool seen = std::any_of(m_near.begin(), m_near.end(),
                            [&](const NearDevice& n) { return n.device.name == it->name; });
    if (!seen) m_near.push_back(NearDevice{*it, place, place.unplaced ? unplaced_warning(*it) : std::string()});
    return {Part{"near:" + printable(s.device), place.cpus, {}}};
  }

  // self: affix's own inherited affinity (all that is allowed where unknown).
  std::vector<Part> self_step() const {
    CpuSet cpus = (m_allowed.inherited ? *m_allowed.inherited : m_allowed.cpus) & m_topo.online;
    return {Part{"self", cpus, {}}};
  }

  // kind:IDS: the CPUs of each kind named, within each part before (kind
  // numbers are the machine's, whatever step they stand in). A machine the
  // kernel says nothing about has one kind: every online CPU.
  std::vector<Part> kind_step(const Step& s, const std::vector<Part>& before) const {
    std::vector<CpuSet> one{m_topo.online};
    const std::vector<CpuSet>& kinds = m_topo.kinds.empty() ? one : m_topo.kinds;
    std::vector<size_t> ids;
    if (s.least || s.ids.all) {
      for (size_t k = s.least ? kinds.size() - 1 : 0; k < kinds.size(); ++k) ids.push_back(k);
    }
    for (const IdRange& r : s.ids.ranges)
      for_each_id(r, [&](unsigned id) {
        if (id < kinds.size()) return ids.push_back(id);
        throw Error(ErrorKind::Resolution,
                    kinds.size() == 1
                        ? fmt::format("no kind {} on this machine (its CPUs are all of one kind: kind:0)", id)
                        : fmt::format("no kind {} on this machine (kinds: {})", id, index_range(kinds.size())));
      });
    std::vector<Part> parts;
    for (const Part& parent : before)
      for (size_t k : ids)
        parts.push_back(Part{fmt::format("{}{}kind:{}", parent.label, parent.label.empty() ? "" : ".", k),
                             parent.cpus & kinds[k], {}});
    return parts;
  }

  std::vector<Part> first_step(const Step& s) {
    std::vector<Part> parts;
    const char* word = level_name(s.level);
    if (s.level == Level::Cpu) {
      if (s.ids.all) {  // every online CPU; the term reports the offline ones
        m_topo.online.for_each([&](unsigned cpu) {
          parts.push_back(Part{fmt::format("cpu:{}", cpu), CpuSet::range(cpu, cpu), {}});
        });
        return parts;
      }
      for (const IdRange& r : s.ids.ranges)
        for_each_id(r, [&](unsigned cpu) {
          if (!m_topo.possible.test(cpu))
            throw Error(ErrorKind::Resolution,
                        fmt::format("no cpu {} on this machine (cpus: {})", cpu,
                                    list_or_none(m_topo.possible)));
          if (!m_topo.online.test(cpu)) {
            if (m_mode == SelectMode::Lenient) return;
            throw Error(ErrorKind::Resolution, fmt::format("CPU {} is offline", cpu));
          }
          check_named_cpu(cpu);
          parts.push_back(Part{fmt::format("cpu:{}", cpu), CpuSet::range(cpu, cpu), {}});
        });
      return parts;
    }
    const auto& units = m_topo.units(s.level);
    auto take = [&](size_t index) {
      parts.push_back(Part{fmt::format("{}:{}", word, units[index].id), units[index].cpus,
                           offline_of(s.level, index)});
    };
    if (s.ids.all) {
      for (size_t i = 0; i < units.size(); ++i) take(i);
      return parts;
    }
    bool by_number = s.level == Level::Socket || s.level == Level::Node;
    for (const IdRange& r : s.ids.ranges)
      for_each_id(r, [&](unsigned id) {
        if (by_number) {
          const auto& index = s.level == Level::Socket ? m_socket_index : m_node_index;
          auto it = index.find(id);
          if (it != index.end()) {
            if (s.level == Level::Node) note_cpuless(id, it->second);
            return take(it->second);
          }
          if (s.level == Level::Node && node_exists(id)) {  // a node without CPUs
            note_cpuless(id, std::nullopt);
            parts.push_back(Part{fmt::format("node:{}", id), {}, {}});
            return;
          }
          throw Error(ErrorKind::Resolution,
                      fmt::format("no {} {} on this machine ({}: {})", word, id,
                                  level_plural(s.level), known_ids(s.level)));
        }
        if (id >= units.size())
          throw Error(ErrorKind::Resolution,
                      fmt::format("no {} {} on this machine ({}: {})", word, id,
                                  level_plural(s.level), index_range(units.size())));
        take(id);
      });
    return parts;
  }

  // For every CPU, the index of its unit at `level` (-1: none).
  const std::vector<int>& unit_index(Level level) {
    auto& idx = m_unit_index[static_cast<size_t>(level)];
    if (idx.empty()) {
      idx.assign(std::max(m_topo.possible.end(), m_topo.online.end()) + 1, -1);
      const auto& units = m_topo.units(level);
      for (size_t i = 0; i < units.size(); ++i)
        units[i].cpus.for_each([&](unsigned cpu) {
          if (cpu < idx.size() && idx[cpu] < 0) idx[cpu] = static_cast<int>(i);
        });
    }
    return idx;
  }

  // Each part of the step before is narrowed on its own: an index counts
  // among the units that share CPUs with that part, in the order of units.
  std::vector<Part> later_step(const Step& s, const std::vector<Part>& before) {
    const auto& units = m_topo.units(s.level);
    const auto& idx = unit_index(s.level);
    const char* word = level_name(s.level);
    std::vector<Part> parts;
    for (const Part& parent : before) {
      std::vector<int> candidates;
      parent.cpus.for_each([&](unsigned cpu) {
        if (cpu < idx.size() && idx[cpu] >= 0) candidates.push_back(idx[cpu]);
      });
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
      auto take = [&](size_t i) {
        size_t u = static_cast<size_t>(candidates[i]);
        parts.push_back(Part{fmt::format("{}.{}:{}", parent.label, word, i),
                             units[u].cpus & parent.cpus, offline_of(s.level, u) & parent.offline});
      };
      if (s.ids.all) {
        for (size_t i = 0; i < candidates.size(); ++i) take(i);
        continue;
      }
      for (const IdRange& r : s.ids.ranges)
        for_each_id(r, [&](unsigned id) {
          if (id >= candidates.size()) {
            std::string what = candidates.empty()
                                   ? fmt::format("no {} {} in {} (it has no {})", word, id, parent.label,
                                                 level_plural(s.level))
                                   : fmt::format("no {} {} in {} ({}: {})", word, id, parent.label,
                                                 level_plural(s.level), index_range(candidates.size()));
            // The unit may be there but offline: say so, not only that it is missing.
            CpuSet unplaced = offline_unplaced_near(parent.cpus);
            if (!parent.offline.empty())
              what += fmt::format("; CPU{} {} of {} {} offline", parent.offline.count() == 1 ? "" : "s",
                                  format_cpulist(parent.offline), parent.label,
                                  parent.offline.count() == 1 ? "is" : "are");
            else if (!unplaced.empty())
              what += fmt::format("; CPU{} {} {} offline, and the kernel no longer says where {} belong{}",
                                  unplaced.count() == 1 ? "" : "s", format_cpulist(unplaced),
                                  unplaced.count() == 1 ? "is" : "are",
                                  unplaced.count() == 1 ? "it" : "they", unplaced.count() == 1 ? "s" : "");
            throw Error(ErrorKind::Resolution, what);
          }
          take(id);
        });
    }
    return parts;
  }

  // Offline CPUs whose place the kernel no longer reports, on a node of
  // `cpus` (or on no known node): they may be what a later step misses.
  CpuSet offline_unplaced_near(const CpuSet& cpus) const {
    CpuSet nodes;
    cpus.for_each([&](unsigned cpu) {
      if (cpu < m_topo.cpus.size() && m_topo.cpus[cpu].node >= 0)
        nodes.set(static_cast<unsigned>(m_topo.cpus[cpu].node));
    });
    CpuSet out;
    (m_topo.possible - m_topo.online).for_each([&](unsigned cpu) {
      if (cpu >= m_topo.cpus.size()) return;
      const CpuInfo& c = m_topo.cpus[cpu];
      if (!c.known && (c.node < 0 || nodes.test(static_cast<unsigned>(c.node)))) out.set(cpu);
    });
    return out;
  }

  bool node_exists(unsigned id) const {
    for (const auto& n : m_topo.nodes)
      if (n.node == id) return true;
    return false;
  }

  static std::string index_range(size_t count) {
    if (count == 0) return "none";
    return count == 1 ? "0" : fmt::format("0-{}", count - 1);
  }

  std::string known_ids(Level level) const {
    CpuSet ids;
    if (level == Level::Node) {
      for (const auto& n : m_topo.nodes) ids.set(n.node);
    }
    for (const auto& u : m_topo.units(level))
      if (u.id >= 0) ids.set(static_cast<unsigned>(u.id));
    return list_or_none(ids);
  }

  const Location& m_loc;
  const Topology& m_topo;
  const Allowed& m_allowed;
  SelectMode m_mode;
  std::unordered_map<long, size_t> m_socket_index, m_node_index;
  CpuSet m_offline_known;
  CpuSet m_cpuless;
  std::vector<NearDevice> m_near;
  std::vector<int> m_unit_index[6];
};

}  // namespace

LocationSelection select_location(const Location& location, const Topology& topo,
                                  const Allowed& allowed, SelectMode mode) {
  return Evaluator(location, topo, allowed, mode).run();
}

}  // namespace affix
