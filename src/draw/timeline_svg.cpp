#include "timeline_svg.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "draw_layout.hpp"
#include "svg_painter.hpp"

namespace affix {

namespace {

constexpr int k_row_h = 20;
constexpr int k_bar_h = 48;

// The sign of the widest level a move crossed.
const char* level_sign(Crossing c) {
  switch (c) {
    case Crossing::Smt: return "T";
    case Crossing::Core: return "C";
    case Crossing::Llc: return "L";
    case Crossing::Node: return "N";
    case Crossing::Socket: return "S";
  }
  return "?";
}

std::string moves_text(const Migrations& m) {
  std::string out;
  for (size_t l = k_crossings; l-- > 0;)
    if (m.by_level[l]) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", m.by_level[l], crossing_name(static_cast<Crossing>(l)));
  return out;
}

}  // namespace

const char* node_colour(long node) {
  static const char* palette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"};
  if (node < 0) return "#BBBBBB";
  return palette[static_cast<size_t>(node) % 8];
}

std::string timeline_svg(const Timeline& t, const std::string& heading) {
  size_t n = std::min(t.ends.size(), k_timeline_intervals);
  size_t rows = std::min(t.rows.size(), k_timeline_rows);
  size_t label = 12;
  for (size_t r = 0; r < rows; ++r)
    label = std::max(label, label_cells(fmt::format("{} {} / {}", t.rows[r].pid, t.rows[r].comm, t.rows[r].tid)));
  for (const auto& p : t.pages) label = std::max(label, label_cells(fmt::format("pages {} {}", p.pid, p.comm)));
  label = std::min<size_t>(label, 48);
  const int left = static_cast<int>(label) * k_cell_w + 16;
  const int slot = n ? std::clamp(960 / static_cast<int>(n), 4, 40) : 40;
  const int top = 40;
  std::set<long> nodes_seen;
  std::string body;
  auto cut = [&](const std::string& s) { return s.size() > label ? s.substr(0, label - 1) + "+" : s; };
  // Thread rows.
  for (size_t r = 0; r < rows; ++r) {
    const TimelineRow& row = t.rows[r];
    int y = top + static_cast<int>(r) * k_row_h;
    body += fmt::format("<g id=\"thread-{}\" class=\"thread\" data-pid=\"{}\"><title>thread {} ({}) of process {}</title>"
                        "<text x=\"4\" y=\"{}\">{}</text>\n",
                        row.tid, row.pid, row.tid, xml_text(row.comm), row.pid, y + 14,
                        xml_text(cut(fmt::format("{} {} / {}", row.pid, row.comm, row.tid))));
    for (size_t i = 0; i < n && i < row.cpu.size(); ++i) {
      long cpu = row.cpu[i];
      if (cpu == -2) continue;
      long node = cpu >= 0 && static_cast<size_t>(cpu) < t.node_of_cpu.size() ? t.node_of_cpu[static_cast<size_t>(cpu)] : -1;
      if (cpu >= 0) nodes_seen.insert(node);
      int x = left + static_cast<int>(i) * slot;
      double from = i ? t.ends[i - 1] : 0;
      std::string moved = i < row.moves.size() ? moves_text(row.moves[i]) : "";
      body += fmt::format("<rect class=\"slot\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                          "data-cpu=\"{}\" data-node=\"{}\"><title>{:.1f}-{:.1f} s: {}{}</title></rect>",
                          x, y + 2, std::max(slot - 1, 1), k_row_h - 4, node_colour(cpu >= 0 ? node : -1), cpu, node,
                          from, t.ends[i], cpu >= 0 ? fmt::format("CPU {} (node {})", cpu, node) : "CPU unknown",
                          moved.empty() ? "" : "; moves: " + moved);
      if (cpu >= 0 && slot >= 24 && !(i < row.moves.size() && row.moves[i].total()))
        body += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"{}\">{}</text>", x + 2, y + 14,
                            node == 6 ? "#000000" : "#FFFFFF", cpu);
      if (i < row.moves.size() && row.moves[i].total()) {
        size_t widest = 0;
        for (size_t l = 0; l < k_crossings; ++l)
          if (row.moves[i].by_level[l]) widest = l;
        Crossing c = static_cast<Crossing>(widest);
        int cx = x + slot / 2;
        body += fmt::format("<g class=\"migration\" data-level=\"{}\" data-count=\"{}\"><title>{}</title>"
                            "<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"#FFFFFF\" stroke=\"#000000\"/>"
                            "<text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"middle\">{}</text></g>",
                            crossing_name(c), row.moves[i].total(), xml_text(moved), cx, y + k_row_h / 2, cx,
                            y + k_row_h / 2 + 3, level_sign(c));
      }
    }
    body += "</g>\n";
  }
  // Pages per node per interval, per process.
  int y = top + static_cast<int>(rows) * k_row_h + 12;
  for (const TimelinePages& p : t.pages) {
    uint64_t most = 1;
    for (const auto& m : p.pages) {
      uint64_t sum = 0;
      for (const auto& [node, pages] : m) sum += pages;
      most = std::max(most, sum);
    }
    body += fmt::format("<g id=\"pages-{}\" class=\"pages\"><title>pages of process {} ({}) per node, each interval; "
                        "the tallest bar {} pages</title><text x=\"4\" y=\"{}\">{}</text>\n",
                        p.pid, p.pid, xml_text(p.comm), most, y + k_bar_h / 2 + 4,
                        xml_text(cut(fmt::format("pages {} {}", p.pid, p.comm))));
    for (size_t i = 0; i < n && i < p.pages.size(); ++i) {
      int x = left + static_cast<int>(i) * slot;
      int base = y + k_bar_h;
      for (const auto& [node, pages] : p.pages[i]) {
        int hgt = static_cast<int>(static_cast<double>(pages) * k_bar_h / static_cast<double>(most) + 0.5);
        if (hgt == 0) continue;
        nodes_seen.insert(node);
        base -= hgt;
        body += fmt::format("<rect class=\"node-pages\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                            "data-node=\"{}\" data-pages=\"{}\"><title>{:.1f} s: {} pages on node {}</title></rect>",
                            x, base, std::max(slot - 1, 1), hgt, node_colour(node), node, pages, t.ends[i], pages, node);
      }
    }
    body += "</g>\n";
    y += k_bar_h + 8;
  }
  // The time axis.
  std::string axis;
  size_t every = std::max<size_t>(1, static_cast<size_t>(64 / slot));
  for (size_t i = 0; i < n; i += every)
    axis += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\">{:.1f}s</text>", left + static_cast<int>(i) * slot,
                        top - 6, t.ends[i]);
  // The legend.
  y += 8;
  int ly = y;
  std::string leg = fmt::format("<g id=\"legend\" class=\"legend\"><title>what the colours and signs say</title>"
                                "<text x=\"4\" y=\"{}\" font-weight=\"bold\">Legend</text>\n", ly + 12);
  ly += k_row_h;
  for (long node : nodes_seen) {
    leg += fmt::format("<g class=\"legend-node\" data-node=\"{}\"><rect x=\"4\" y=\"{}\" width=\"16\" height=\"12\" fill=\"{}\"/>"
                       "<text x=\"28\" y=\"{}\">{}</text></g>\n",
                       node, ly + 2, node_colour(node), ly + 12,
                       node >= 0 ? fmt::format("on a CPU of node {}", node) : std::string("CPU or node unknown"));
    ly += k_row_h;
  }
  leg += fmt::format("<text x=\"4\" y=\"{}\">A circled letter: the interval's moves, by the widest level crossed: "
                     "S socket, N node, L LLC, C core, T SMT sibling (count on hover)</text>\n", ly + 12);
  ly += k_row_h;
  for (const auto& note : t.notes) {
    leg += fmt::format("<text x=\"4\" y=\"{}\">{}</text>\n", ly + 12, xml_text(note));
    ly += k_row_h;
  }
  leg += "</g>\n";
  int width = std::max(left + static_cast<int>(n) * slot + 16, 1000);
  int height = ly + 8;
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"DejaVu Sans Mono, monospace\" font-size=\"12\">\n<title>{2}</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#FFFFFF\"/>\n"
      "<text x=\"4\" y=\"16\" font-weight=\"bold\">{2}</text>\n",
      width, height, xml_text(heading));
  out += axis + "\n" + body + leg + "</svg>\n";
  return out;
}

}  // namespace affix
