// `affix topo` for people: a summary, then the tree socket -> node -> die ->
// llc in topology order, one line per unit with its CPUs, the leaves with
// their cores. A unit whose only child has the same CPUs shares its line;
// where a machine has many, runs of identical units fold into one line, so
// that a 256-CPU machine fits on a screen. Then memory and distances.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "devices.hpp"
#include "text.hpp"
#include "topo_output.hpp"

namespace affix {

namespace {

constexpr size_t k_fold_above = 40;   // tree lines before identical units fold
constexpr size_t k_matrix_up_to = 16; // nodes for which the distance matrix is printed

struct Row {
  size_t depth = 0;
  std::string label;
  CpuSet cpus;
  std::vector<int> cores;  // leaf rows: core indexes, in order
  size_t children = 0;
  std::string memory;      // node rows: "31.0 GiB (26.8 GiB free)"
  std::string total;       // node rows: "31.0 GiB" (free memory does not stop folding)
};

std::string describe_cores(const Topology& topo, const std::vector<int>& cores) {
  // Runs of cores with the same number of threads: "cores 0-5 x2, 6-13".
  std::string out;
  size_t i = 0;
  while (i < cores.size()) {
    unsigned threads = topo.cores[static_cast<size_t>(cores[i])].cpus.count();
    size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1 &&
           topo.cores[static_cast<size_t>(cores[j + 1])].cpus.count() == threads)
      ++j;
    out += out.empty() ? "cores " : ", ";
    out += i == j ? fmt::format("{}", cores[i]) : fmt::format("{}-{}", cores[i], cores[j]);
    if (threads > 1) out += fmt::format(" x{}", threads);
    i = j + 1;
  }
  return out;
}

std::string node_memory(const Topology& topo, long node, bool with_free) {
  const NodeInfo* info = node >= 0 ? topo.node(static_cast<unsigned>(node)) : nullptr;
  if (!info || !info->memory_total_kb) return {};
  std::string out = format_kb(*info->memory_total_kb);
  if (with_free && info->memory_free_kb) out += fmt::format(" ({} free)", format_kb(*info->memory_free_kb));
  return out;
}

// The tree's rows, in topology order.
std::vector<Row> build_rows(const Topology& topo) {
  // Levels shown: socket and node (the larger outside), die where a socket
  // has several, llc where there are any.
  bool node_outer = topo.numa.size() < topo.sockets.size();
  bool dies = topo.dies.size() > topo.sockets.size();
  bool llcs = !topo.llcs.empty();
  std::vector<std::pair<const char*, int>> levels;  // name, which field
  levels.push_back(node_outer ? std::pair{"node", 1} : std::pair{"socket", 0});
  levels.push_back(node_outer ? std::pair{"socket", 0} : std::pair{"node", 1});
  if (dies) levels.push_back({"die", 2});
  if (llcs) levels.push_back({"llc", 3});
  auto field = [&](const CpuInfo& c, int which) -> long {
    switch (which) {
      case 0: return c.socket;
      case 1: return c.node;
      case 2: return c.die;
      default: return c.llc;
    }
  };
  std::vector<Row> rows;
  std::vector<long> current(levels.size(), -2);
  std::vector<size_t> open(levels.size(), 0);
  for (const Unit& t : topo.threads) {
    const CpuInfo& c = topo.cpus[static_cast<size_t>(t.id)];
    size_t changed = levels.size();
    for (size_t k = 0; k < levels.size(); ++k)
      if (field(c, levels[k].second) != current[k]) {
        changed = k;
        break;
      }
    for (size_t k = changed; k < levels.size(); ++k) {
      current[k] = field(c, levels[k].second);
      Row row;
      row.depth = k;
      row.label = current[k] >= 0 ? fmt::format("{} {}", levels[k].first, current[k])
                                  : fmt::format("(no {})", levels[k].first);
      if (levels[k].second == 1) {
        row.memory = node_memory(topo, current[k], true);
        row.total = node_memory(topo, current[k], false);
      }
      if (k > 0) rows[open[k - 1]].children++;
      open[k] = rows.size();
      rows.push_back(std::move(row));
    }
    for (size_t k = 0; k < levels.size(); ++k) rows[open[k]].cpus.set(c.cpu);
    Row& leaf = rows[open.back()];
    if (c.core >= 0 && (leaf.cores.empty() || leaf.cores.back() != c.core)) leaf.cores.push_back(c.core);
  }
  // A row whose only child has the same CPUs shares the child's line.
  std::vector<Row> merged;
  for (size_t i = 0; i < rows.size(); ++i) {
    Row row = rows[i];
    while (row.children == 1 && i + 1 < rows.size() && rows[i + 1].cpus == row.cpus) {
      Row& child = rows[++i];
      row.label += " / " + child.label;
      if (!child.memory.empty()) {
        row.memory = child.memory;
        row.total = child.total;
      }
      row.children = child.children;
      row.cores = child.cores;
    }
    merged.push_back(std::move(row));
  }
  // Depths after merging: a row's depth is the number of open ancestors.
  std::vector<size_t> stack;  // original depths of the open rows
  for (auto& row : merged) {
    size_t original = row.depth;
    while (!stack.empty() && stack.back() >= original) stack.pop_back();
    row.depth = stack.size();
    stack.push_back(original + static_cast<size_t>(std::count(row.label.begin(), row.label.end(), '/')));
  }
  return merged;
}

std::string row_text(const Topology& topo, const Row& row, const std::string& label) {
  std::string head = std::string(2 * row.depth, ' ') + label;
  std::string out = fmt::format("{:<28} cpus {}", head, format_cpulist(row.cpus));
  if (!row.cores.empty()) out += "  " + describe_cores(topo, row.cores);
  if (!row.memory.empty()) out += "  mem " + row.memory;
  return out + "\n";
}

std::string signature(const Topology& topo, const Row& row) {
  std::string label;
  for (char ch : row.label) {
    bool digit = ch >= '0' && ch <= '9';
    if (!digit) label += ch;
    else if (label.empty() || label.back() != '#') label += '#';
  }
  std::string threads;
  for (int core : row.cores) threads += fmt::format("{},", topo.cores[static_cast<size_t>(core)].cpus.count());
  return fmt::format("{}|{}|{}|{}|{}", row.depth, label, row.cpus.count(), row.total, threads);
}

std::string tree_text(const Topology& topo, std::vector<Row> rows) {
  std::string out;
  if (rows.size() <= k_fold_above) {
    for (auto& row : rows) out += row_text(topo, row, row.label);
    return out;
  }
  // Fold runs of top-level blocks that look alike (same shape, other numbers).
  std::vector<std::pair<size_t, size_t>> blocks;  // [begin, end) per top-level row
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].depth == 0) blocks.push_back({i, i + 1});
    else blocks.back().second = i + 1;
  auto block_sig = [&](const std::pair<size_t, size_t>& b) {
    std::string s;
    for (size_t i = b.first; i < b.second; ++i) s += signature(topo, rows[i]) + ";";
    return s;
  };
  for (size_t b = 0; b < blocks.size();) {
    for (size_t i = blocks[b].first; i < blocks[b].second; ++i) out += row_text(topo, rows[i], rows[i].label);
    std::string sig = block_sig(blocks[b]);
    size_t e = b + 1;
    while (e < blocks.size() && block_sig(blocks[e]) == sig) ++e;
    if (e > b + 2) {
      Row folded;
      std::string first = rows[blocks[b + 1].first].label, last = rows[blocks[e - 1].first].label;
      for (size_t k = b + 1; k < e; ++k) folded.cpus |= rows[blocks[k].first].cpus;
      out += row_text(topo, folded, fmt::format("{} .. {}", first, last));
      out.pop_back();
      out += fmt::format("  ({} more like {})\n", e - b - 1, rows[blocks[b].first].label);
    }
    b = e > b + 2 ? e : b + 1;
  }
  return out;
}

// The devices near: takes, by node ("devices   node 0   eth0 nvme0n1"); those
// the kernel places on no node (numa_node -1) last, on a line of their own
// with the CPUs near: gives them.
std::string devices_text(const Topology& topo) {
  if (topo.devices.empty()) return {};
  std::map<long, std::string> by_node;
  for (const Device& d : topo.devices) {
    long node = d.numa_node >= 0 && topo.node(static_cast<unsigned>(d.numa_node)) ? d.numa_node : -1;
    std::string& names = by_node[node];
    names += (names.empty() ? "" : " ") + printable(d.name);
    if (node < 0) names += fmt::format(" (cpus {})", format_cpulist(device_place(topo, d).cpus));
  }
  std::string out = "\n";
  const char* label = "devices";
  auto add = [&](const std::string& where, const std::string& names) {
    out += fmt::format("{:<11}{:<9}{}\n", label, where, names);
    label = "";
  };
  for (auto& [node, names] : by_node)
    if (node >= 0) add(fmt::format("node {}", node), names);
  if (auto it = by_node.find(-1); it != by_node.end()) add("no node", it->second);
  return out;
}

std::string distance_text(const Topology& topo) {
  std::string out;
  bool any = false;
  for (auto& n : topo.nodes) any = any || !n.distances.empty();
  if (!any || topo.nodes.size() < 2) return out;
  if (topo.nodes.size() <= k_matrix_up_to) {
    out += "\ndistances";
    for (auto& n : topo.nodes) out += fmt::format(" {:>4}", n.node);
    out += "\n";
    for (auto& n : topo.nodes) {
      out += fmt::format("  node {:<3}", n.node);
      for (unsigned d : n.distances) out += fmt::format(" {:>4}", d);
      out += "\n";
    }
    return out;
  }
  // Many nodes: how often each distance occurs (the matrix is in --json).
  std::map<unsigned, unsigned> counts;
  for (auto& n : topo.nodes)
    for (unsigned d : n.distances) counts[d]++;
  out += "\ndistances";
  for (auto& [d, c] : counts) out += fmt::format("  {} (x{})", d, c);
  out += "  (matrix: affix topo --json)\n";
  return out;
}

}  // namespace

std::string topo_text(const Topology& topo, const Allowed& allowed) {
  std::string out;
  unsigned cpus = topo.possible.count();
  out += fmt::format("machine    {} CPU{} ({} online), {} socket{}, {} node{}, {} core{}, SMT {}", cpus,
                     cpus == 1 ? "" : "s", topo.online.count(), topo.sockets.size(),
                     topo.sockets.size() == 1 ? "" : "s", topo.nodes.size(), topo.nodes.size() == 1 ? "" : "s",
                     topo.cores.size(), topo.cores.size() == 1 ? "" : "s", topo.smt);
  if (!topo.llcs.empty()) out += fmt::format(", {} llc", topo.llcs.size());
  out += "\n";
  out += fmt::format("allowed    cpus {}, nodes {} (from {})\n", format_cpulist(allowed.cpus),
                     format_cpulist(allowed.mems), printable(allowed.source));
  out += fmt::format("isolated   {}\n", topo.isolated.empty() ? "none" : format_cpulist(topo.isolated));
  CpuSet offline = topo.possible - topo.online;
  if (!offline.empty()) out += fmt::format("offline    {}\n", format_cpulist(offline));
  if (topo.hybrid) {
    std::string kinds;
    for (size_t k = 0; k < topo.kinds.size(); ++k)
      kinds += fmt::format("{}{} {}", k ? ", " : "", kind_word(topo, static_cast<int>(k)),
                           format_cpulist(topo.kinds[k]));
    out += fmt::format("kinds      {}\n", kinds);
  }
  out += topo_memory_header(topo);
  out += "\n" + tree_text(topo, build_rows(topo));
  // Nodes the tree does not show: no online CPU (memory-only, or offline).
  for (auto& n : topo.nodes) {
    if (n.cpus.intersects(topo.online)) continue;
    std::string mem = node_memory(topo, n.node, true);
    out += fmt::format("{:<28} no CPUs{}{}\n", fmt::format("node {}", n.node), mem.empty() ? "" : "  mem " + mem,
                       gpu_memory_note(topo, n.node));
  }
  out += topo_memory_table(topo);
  out += devices_text(topo);
  out += gpus_text(topo);
  out += distance_text(topo);
  return out;
}

}  // namespace affix
