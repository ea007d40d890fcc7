// The machine's boxes: package, node, die, LLC, core and CPU nested as the
// CPUs' units hold each other (the larger of package and node outside, as
// `topo` prints them), devices attached to the smallest box holding their
// CPUs, memory-only nodes beside (a GPU's inside its GPU), offline CPUs in
// a box of their own; then identical runs collapsed.
#include "machine_tree.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "devices.hpp"
#include "text.hpp"

namespace affix {

namespace {

enum class Lvl { Socket, Node, Die, Llc, Core };

long key_of(const CpuInfo& c, Lvl l) {
  switch (l) {
    case Lvl::Socket: return c.socket;
    case Lvl::Node: return c.node;
    case Lvl::Die: return c.die;
    case Lvl::Llc: return c.llc;
    case Lvl::Core: return c.core;
  }
  return -1;
}

uint64_t mix(uint64_t h, uint64_t v) { return (h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2))) * 0x100000001b3ull; }

const char* kind_word(BoxKind kind, bool plural) {
  switch (kind) {
    case BoxKind::Machine: return plural ? "machines" : "machine";
    case BoxKind::Package: return plural ? "packages" : "package";
    case BoxKind::Node: return plural ? "nodes" : "node";
    case BoxKind::Die: return plural ? "dies" : "die";
    case BoxKind::Llc: return plural ? "LLCs" : "LLC";
    case BoxKind::Core: return plural ? "cores" : "core";
    case BoxKind::Cpu: return plural ? "CPUs" : "CPU";
    case BoxKind::Device: return plural ? "devices" : "device";
    case BoxKind::Memory: return plural ? "memory nodes" : "memory node";
    case BoxKind::Group: return plural ? "groups" : "group";
    case BoxKind::Collapsed: return plural ? "runs" : "run";
  }
  return "?";
}

class Builder {
public:
  Builder(const Topology& topo, const Overlay& overlay) : m_topo(topo), m_overlay(overlay) {}

  Picture build() {
    Picture pic;
    Box& root = pic.root;
    root.kind = BoxKind::Machine;
    root.id = "machine";
    unsigned long long total = 0;
    bool any_memory = false;
    for (const NodeInfo& n : m_topo.nodes)
      if (n.memory_total_kb) {
        total += *n.memory_total_kb;
        any_memory = true;
      }
    root.lines.push_back(fmt::format("Machine ({}, {}{})", plural(m_topo.online.count(), "CPU", "CPUs"),
                                     plural(m_topo.nodes.size(), "node", "nodes"),
                                     any_memory ? ", " + format_kb(total) : std::string()));
    root.title = fmt::format("machine: {} possible CPUs ({}), online {}", m_topo.possible.count(),
                             format_cpulist(m_topo.possible), list_or_none(m_topo.online));
    root.cpus = m_topo.online;
    std::vector<unsigned> order;
    for (const Unit& u : m_topo.threads) order.push_back(static_cast<unsigned>(u.id));
    levels();
    build_level(order, 0, root.children);
    memory_only_nodes(root);
    devices(root);
    offline(root);
    shape(root);
    collapse(root, pic.collapsed);
    pic.caption = m_overlay.caption;
    for (const auto& [cpu, m] : m_overlay.cpu_marks) pic.marks |= m;
    for (const auto& [node, m] : m_overlay.node_marks) pic.marks |= m;
    if (!m_overlay.irq_counts.empty()) pic.marks |= mark_bit(Mark::Irq);
    return pic;
  }

private:
  const Topology& m_topo;
  const Overlay& m_overlay;
  std::vector<Lvl> m_levels;
  std::set<std::string> m_ids;
  std::set<unsigned> m_nodes_drawn;

  void levels() {
    bool node_outer = m_topo.numa.size() < m_topo.sockets.size();
    m_levels = node_outer ? std::vector<Lvl>{Lvl::Node, Lvl::Socket} : std::vector<Lvl>{Lvl::Socket, Lvl::Node};
    if (m_topo.dies.size() > m_topo.sockets.size()) m_levels.push_back(Lvl::Die);
    if (!m_topo.llcs.empty()) m_levels.push_back(Lvl::Llc);
    m_levels.push_back(Lvl::Core);
  }

  // A unit split across two parents (a node over two packages inside
  // packages) keeps its id on its first box; the others say whose part they are.
  void set_id(Box& b, const std::string& id) {
    if (m_ids.insert(id).second) b.id = id;
    else b.data.push_back({"part-of", id});
  }

  void apply_node_marks(Box& b, unsigned node) {
    if (auto it = m_overlay.node_marks.find(node); it != m_overlay.node_marks.end()) b.marks |= it->second;
    if (auto it = m_overlay.node_notes.find(node); it != m_overlay.node_notes.end())
      for (const auto& n : it->second) b.title += "; " + n;
  }

  std::string node_memory_line(const NodeInfo& n) {
    if (!n.memory_total_kb) return "memory unknown";
    std::string s = format_kb(*n.memory_total_kb);
    if (n.memory_free_kb) s += fmt::format(", {} free", format_kb(*n.memory_free_kb));
    return s;
  }

  void node_box(Box& b, unsigned number) {
    const NodeInfo* n = m_topo.node(number);
    b.lines = {fmt::format("Node {}", number)};
    b.title = fmt::format("node {}", number);
    if (n) {
      b.lines.push_back(node_memory_line(*n));
      std::string tier;
      if (n->tier) tier = fmt::format("tier {}", *n->tier);
      if (n->kind != MemKind::Unknown) tier += (tier.empty() ? "" : " ") + std::string(mem_kind_name(n->kind));
      if (!tier.empty()) b.lines.push_back(tier);
      b.title += fmt::format(": CPUs {}, memory {}", list_or_none(n->cpus), node_memory_line(*n));
      if (!tier.empty()) b.title += ", " + tier;
    }
    m_nodes_drawn.insert(number);
    apply_node_marks(b, number);
  }

  Box unit_box(Lvl l, long key, const CpuSet& cpus) {
    Box b;
    b.cpus = cpus;
    b.key = key;
    switch (l) {
      case Lvl::Socket:
        b.kind = BoxKind::Package;
        set_id(b, fmt::format("package-{}", key));
        b.lines = {fmt::format("Package {}", key)};
        b.title = fmt::format("package {}: CPUs {}", key, format_cpulist(cpus));
        break;
      case Lvl::Node:
        b.kind = BoxKind::Node;
        set_id(b, fmt::format("node-{}", key));
        node_box(b, static_cast<unsigned>(key));
        break;
      case Lvl::Die:
        b.kind = BoxKind::Die;
        set_id(b, fmt::format("die-{}", key));
        b.lines = {fmt::format("Die {}", key)};
        b.title = fmt::format("die {}: CPUs {}", key, format_cpulist(cpus));
        break;
      case Lvl::Llc:
        b.kind = BoxKind::Llc;
        set_id(b, fmt::format("llc-{}", key));
        b.lines = {fmt::format("LLC {}", key)};
        b.title = fmt::format("last-level cache {}: CPUs {}", key, format_cpulist(cpus));
        break;
      case Lvl::Core: {
        b.kind = BoxKind::Core;
        b.row = true;
        set_id(b, fmt::format("core-{}", key));
        b.lines = {fmt::format("Core {}", key)};
        b.title = fmt::format("core {}: CPUs {}", key, format_cpulist(cpus));
        break;
      }
    }
    return b;
  }

  Box cpu_box(unsigned cpu, bool online) {
    Box b;
    b.kind = BoxKind::Cpu;
    b.id = fmt::format("cpu-{}", cpu);
    b.key = cpu;
    m_ids.insert(b.id);
    b.cpus.set(cpu);
    b.lines = {fmt::format("CPU {}", cpu)};
    b.title = fmt::format("CPU {}", cpu);
    if (cpu < m_topo.cpus.size()) {
      const CpuInfo& c = m_topo.cpus[cpu];
      std::string where;
      if (c.core >= 0) where += fmt::format("core {}", c.core);
      if (c.llc >= 0) where += fmt::format("{}LLC {}", where.empty() ? "" : ", ", c.llc);
      if (c.node >= 0) where += fmt::format("{}node {}", where.empty() ? "" : ", ", c.node);
      if (c.socket >= 0) where += fmt::format("{}package {}", where.empty() ? "" : ", ", c.socket);
      if (!where.empty()) b.title += " (" + where + ")";
      if (m_topo.hybrid && c.kind >= 0)
        b.title += c.kind == 0 ? ", performance kind"
                   : static_cast<size_t>(c.kind) + 1 == m_topo.kinds.size() ? ", efficiency kind"
                                                                              : fmt::format(", kind {}", c.kind);
      if (m_topo.hybrid && c.kind >= 0) b.shape = static_cast<uint64_t>(c.kind) + 1;
    }
    b.title += online ? (m_topo.isolated.test(cpu) ? "; online, isolated" : "; online") : "; offline";
    if (auto it = m_overlay.cpu_marks.find(cpu); it != m_overlay.cpu_marks.end()) b.marks = it->second;
    if (auto it = m_overlay.cpu_notes.find(cpu); it != m_overlay.cpu_notes.end())
      for (const auto& n : it->second) b.title += "; " + n;
    if (auto it = m_overlay.irq_counts.find(cpu); it != m_overlay.irq_counts.end()) {
      if (it->second) b.marks |= mark_bit(Mark::Irq);
      b.data.push_back({"count", std::to_string(it->second)});
      b.lines.push_back(fmt::format("irq {}", it->second));
      b.title += fmt::format("; {} interrupts", it->second);
    }
    return b;
  }

  void build_level(const std::vector<unsigned>& cpus, size_t level, std::vector<Box>& out) {
    if (level == m_levels.size()) {
      for (unsigned c : cpus) out.push_back(cpu_box(c, true));
      return;
    }
    Lvl l = m_levels[level];
    // Groups in the order of their first CPU (topology order).
    std::vector<std::pair<long, std::vector<unsigned>>> groups;
    for (unsigned c : cpus) {
      long k = key_of(m_topo.cpus[c], l);
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == k; });
      if (it == groups.end()) groups.push_back({k, {c}});
      else it->second.push_back(c);
    }
    for (auto& [k, members] : groups) {
      if (k < 0) {  // no unit at this level: its CPUs go one level down, here
        build_level(members, level + 1, out);
        continue;
      }
      CpuSet set;
      for (unsigned c : members) set.set(c);
      Box b = unit_box(l, k, set);
      build_level(members, level + 1, b.children);
      out.push_back(std::move(b));
    }
  }

  Box memory_box(const NodeInfo& n) {
    Box b;
    b.kind = BoxKind::Memory;
    set_id(b, fmt::format("node-{}", n.node));
    node_box(b, n.node);
    b.lines.front() += " (no CPUs)";
    return b;
  }

  // The deepest visible box of the hardware tree holding every CPU of `cpus`.
  Box* holder(Box& b, const CpuSet& cpus) {
    for (Box& c : b.children)
      if ((c.kind == BoxKind::Package || c.kind == BoxKind::Node || c.kind == BoxKind::Die || c.kind == BoxKind::Llc) &&
          !cpus.empty() && (cpus - c.cpus).empty())
        return holder(c, cpus);
    return &b;
  }

  void devices(Box& root) {
    std::vector<std::pair<Box*, Box>> attach;
    for (size_t i = 0; i < m_topo.devices.size(); ++i) {
      const Device& d = m_topo.devices[i];
      DevicePlace place = device_place(m_topo, d);
      Box b;
      b.kind = BoxKind::Device;
      set_id(b, "dev-" + d.name);
      b.lines = {d.name, d.kind + " " + d.pci.text()};
      b.title = fmt::format("{} ({}) {}", d.name, d.kind, d.pci.text());
      if (d.numa_node >= 0) b.title += fmt::format(", node {}", d.numa_node);
      b.title += place.unplaced ? ", the kernel does not say where it is" : ", near CPUs " + list_or_none(place.cpus);
      b.shape = 0x1000 + i;
      for (const Gpu& g : m_topo.gpus)
        if (g.device.name == d.name && g.memory_node) {
          b.title += fmt::format(", its memory on node {}", *g.memory_node);
          if (const NodeInfo* n = m_topo.node(static_cast<unsigned>(*g.memory_node)); n && !m_nodes_drawn.count(n->node))
            b.children.push_back(memory_box(*n));
        }
      Box* at = place.unplaced ? &root : holder(root, place.cpus);
      attach.push_back({at, std::move(b)});
    }
    for (auto& [at, b] : attach) at->children.push_back(std::move(b));
  }

  void memory_only_nodes(Box& root) {
    // GPU memory nodes go inside their GPU (devices()); the others here.
    std::set<long> gpu_nodes;
    for (const Gpu& g : m_topo.gpus)
      if (g.memory_node) gpu_nodes.insert(*g.memory_node);
    for (const NodeInfo& n : m_topo.nodes) {
      if (m_nodes_drawn.count(n.node)) continue;
      if (gpu_nodes.count(n.node) && std::any_of(m_topo.devices.begin(), m_topo.devices.end(), [&](const Device& d) {
            return std::any_of(m_topo.gpus.begin(), m_topo.gpus.end(),
                               [&](const Gpu& g) { return g.device.name == d.name && g.memory_node == static_cast<long>(n.node); });
          }))
        continue;
      root.children.push_back(memory_box(n));
    }
  }

  void offline(Box& root) {
    CpuSet drawn;
    for (const Unit& u : m_topo.threads) drawn.set(static_cast<unsigned>(u.id));
    CpuSet rest = m_topo.possible - drawn;
    if (rest.empty()) return;
    Box b;
    b.kind = BoxKind::Group;
    b.id = "offline";
    b.lines = {fmt::format("Offline ({})", plural(rest.count(), "CPU", "CPUs"))};
    b.title = fmt::format("offline CPUs (or of unknown topology): {}", format_cpulist(rest));
    b.cpus = rest;
    rest.for_each([&](unsigned c) { b.children.push_back(cpu_box(c, false)); });
    root.children.push_back(std::move(b));
  }

  uint64_t shape(Box& b) {
    uint64_t h = mix(mix(b.shape, static_cast<uint64_t>(b.kind) + 1), b.marks);
    h = mix(h, b.lines.size());
    for (Box& c : b.children) h = mix(h, shape(c));
    b.shape = h;
    return h;
  }

  static void hide(Box& b) {
    b.hidden = true;
    for (Box& c : b.children) hide(c);
  }

  void collapse(Box& b, std::vector<std::string>& notes) {
    size_t n = b.children.size();
    if (n > k_collapse_children && b.cpus.count() > k_collapse_cpus) {
      std::vector<bool> keep(n, false);
      std::set<uint64_t> seen;
      auto hw = [](const Box& c) { return c.kind != BoxKind::Device && c.kind != BoxKind::Memory && c.kind != BoxKind::Group; };
      size_t last = 0;
      for (size_t i = 0; i < n; ++i)
        if (hw(b.children[i])) last = i;
      for (size_t i = 0; i < n; ++i) {
        const Box& c = b.children[i];
        keep[i] = !hw(c) || i < 2 || i == last;
        if (keep[i]) seen.insert(c.shape);
      }
      for (size_t i = 0; i < n; ++i)
        if (!keep[i] && seen.insert(b.children[i].shape).second) keep[i] = true;
      std::vector<Box> out;
      for (size_t i = 0; i < n;) {
        if (keep[i]) {
          out.push_back(std::move(b.children[i++]));
          continue;
        }
        size_t j = i;
        while (j < n && !keep[j]) ++j;
        if (j - i == 1) {  // one alone is drawn
          out.push_back(std::move(b.children[i++]));
          continue;
        }
        out.push_back(collapsed_run(b.children, i, j, notes));
        i = j;
      }
      b.children = std::move(out);
    }
    for (Box& c : b.children)
      if (!c.hidden && c.kind != BoxKind::Collapsed) collapse(c, notes);
  }

  Box collapsed_run(std::vector<Box>& kids, size_t from, size_t to, std::vector<std::string>& notes) {
    Box r;
    r.kind = BoxKind::Collapsed;
    BoxKind kind = kids[from].kind;
    std::vector<std::string> ids;
    unsigned marks = 0;
    std::vector<unsigned> counts(k_mark_count, 0);
    for (size_t i = from; i < to; ++i) {
      r.cpus |= kids[i].cpus;
      if (!kids[i].id.empty()) ids.push_back(kids[i].id);
      count_marks(kids[i], counts, marks);
      hide(kids[i]);
      r.children.push_back(std::move(kids[i]));
    }
    size_t count = to - from;
    std::string what = fmt::format("{} x {}", count, kind_word(kind, false));
    r.lines = {what, "CPUs " + list_or_none(r.cpus)};
    std::string marked;
    for (const MarkStyle& s : mark_styles())
      if (unsigned k = counts[static_cast<size_t>(__builtin_ctz(mark_bit(s.mark)))])
        marked += fmt::format("{}{} {}", marked.empty() ? "" : ", ", k, s.cls);
    if (!marked.empty()) r.lines.push_back(marked);
    r.marks = marks;
    std::string range = ids.empty() ? std::string() : ids.front() + " to " + ids.back();
    r.title = fmt::format("{} {} collapsed ({}), each drawn alike; CPUs {}{}", count, kind_word(kind, true), range,
                          list_or_none(r.cpus), marked.empty() ? "" : "; " + marked + " CPUs");
    r.data = {{"count", std::to_string(count)}, {"kind", box_kind_class(kind)}, {"cpus", format_cpulist(r.cpus)}};
    notes.push_back(fmt::format("{} ({}): CPUs {}", what, range, list_or_none(r.cpus)));
    return r;
  }

  static void count_marks(const Box& b, std::vector<unsigned>& counts, unsigned& marks) {
    if (b.kind == BoxKind::Cpu)
      for (unsigned k = 0; k < k_mark_count; ++k)
        if (b.marks & (1u << k)) ++counts[k];
    marks |= b.marks;
    for (const Box& c : b.children) count_marks(c, counts, marks);
  }
};

}  // namespace

void Overlay::mark_cpu(unsigned cpu, Mark m, const std::string& note) {
  cpu_marks[cpu] |= mark_bit(m);
  if (!note.empty()) cpu_notes[cpu].push_back(note);
}

void Overlay::mark_node(unsigned node, Mark m, const std::string& note) {
  node_marks[node] |= mark_bit(m);
  if (!note.empty()) node_notes[node].push_back(note);
}

Picture machine_picture(const Topology& topo, const Overlay& overlay) { return Builder(topo, overlay).build(); }

Picture machine_picture(const std::vector<CpuPlace>& places) {
  Topology t;
  unsigned top = 0;
  for (const CpuPlace& p : places) top = std::max(top, p.cpu + 1);
  t.cpus.resize(top);
  std::map<long, CpuSet> sockets, nodes, dies, llcs, cores;
  std::vector<CpuPlace> sorted = places;
  std::sort(sorted.begin(), sorted.end(), [](const CpuPlace& a, const CpuPlace& b) { return a.cpu < b.cpu; });
  for (const CpuPlace& p : sorted) {
    CpuInfo& c = t.cpus[p.cpu];
    c.cpu = p.cpu;
    c.online = p.online;
    c.known = true;
    c.socket = p.package;
    c.node = p.node;
    c.die = static_cast<int>(p.die);
    c.llc = static_cast<int>(p.llc);
    c.core = static_cast<int>(p.core);
    t.possible.set(p.cpu);
    if (!p.online) continue;
    t.online.set(p.cpu);
    t.threads.push_back({static_cast<long>(p.cpu), CpuSet::range(p.cpu, p.cpu)});
    if (p.package >= 0) sockets[p.package].set(p.cpu);
    if (p.node >= 0) nodes[p.node].set(p.cpu);
    if (p.die >= 0) dies[p.die].set(p.cpu);
    if (p.llc >= 0) llcs[p.llc].set(p.cpu);
    if (p.core >= 0) cores[p.core].set(p.cpu);
  }
  auto units = [](const std::map<long, CpuSet>& m, std::vector<Unit>& out) {
    for (const auto& [id, cpus] : m) out.push_back({id, cpus});
  };
  units(sockets, t.sockets);
  units(nodes, t.numa);
  units(dies, t.dies);
  units(llcs, t.llcs);
  units(cores, t.cores);
  for (const auto& [id, cpus] : nodes) {
    NodeInfo n;
    n.node = static_cast<unsigned>(id);
    n.cpus = cpus;
    t.nodes.push_back(n);
  }
  return machine_picture(t);
}

}  // namespace affix
