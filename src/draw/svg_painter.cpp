#include "svg_painter.hpp"

#include <fmt/format.h>

#include "draw_layout.hpp"
#include "text.hpp"

namespace affix {

namespace {

const char* base_fill(BoxKind kind) {
  switch (kind) {
    case BoxKind::Machine: return "#FFFFFF";
    case BoxKind::Package: return "#E8E8E8";
    case BoxKind::Node: return "#F3EDD3";
    case BoxKind::Memory: return "#F3EDD3";
    case BoxKind::Die: return "#F4F4F4";
    case BoxKind::Llc: return "#FFFFFF";
    case BoxKind::Core: return "#D9D9D9";
    case BoxKind::Cpu: return "#FFFFFF";
    case BoxKind::Device: return "#E3E3F3";
    case BoxKind::Group: return "#F8F8F8";
    case BoxKind::Collapsed: return "#F0F0F0";
  }
  return "#FFFFFF";
}

// The marks of a box, in mark_styles() order.
std::vector<const MarkStyle*> marks_of(unsigned bits) {
  std::vector<const MarkStyle*> out;
  for (const MarkStyle& s : mark_styles())
    if (bits & mark_bit(s.mark)) out.push_back(&s);
  return out;
}

bool dark(const char* colour) {
  std::string c = colour;
  return c == "#0072B2" || c == "#D55E00" || c == "#009E73";
}

class SvgWriter {
public:
  std::string out;

  void box(const Box& b) {
    out += "<g";
    if (!b.id.empty()) out += fmt::format(" id=\"{}\"", xml_text(b.id));
    out += fmt::format(" class=\"{}", box_kind_class(b.kind));
    if (b.hidden) out += " hidden";
    auto ms = marks_of(b.marks);
    if (b.kind != BoxKind::Collapsed)
      for (const MarkStyle* m : ms) out += std::string(" ") + m->cls;
    out += "\"";
    for (const auto& [k, v] : b.data) out += fmt::format(" data-{}=\"{}\"", k, xml_text(v));
    out += fmt::format("><title>{}</title>", xml_text(b.title));
    if (!b.hidden) paint(b, ms);
    for (const Box& c : b.children) box(c);
    out += "</g>\n";
  }

private:
  void paint(const Box& b, const std::vector<const MarkStyle*>& ms) {
    const char* fill = base_fill(b.kind);
    const char* stroke = "#404040";
    double width = 1;
    bool is_leaf_like = b.kind == BoxKind::Cpu;
    if (is_leaf_like && !ms.empty()) {
      fill = ms[0]->colour;
      if (ms.size() > 1) {
        stroke = ms[1]->colour;
        width = 3;
      }
    } else if (!ms.empty()) {  // a node's memory, a collapsed run holding marks
      stroke = ms[0]->colour;
      width = 4;
    }
    int px = b.x * k_cell_w + 2, py = b.y * k_cell_h + 2;
    int pw = b.w * k_cell_w - 4, ph = b.h * k_cell_h - 4;
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" fill=\"{}\" stroke=\"{}\" "
                       "stroke-width=\"{}\"{}/>",
                       px, py, pw, ph, fill, stroke, width,
                       b.kind == BoxKind::Collapsed ? " stroke-dasharray=\"6 3\"" : "");
    const char* ink = is_leaf_like && !ms.empty() && dark(fill) ? "#FFFFFF" : "#000000";
    for (size_t i = 0; i < b.lines.size(); ++i)
      out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>", (b.x + 1) * k_cell_w,
                         (b.y + 1 + static_cast<int>(i)) * k_cell_h + 12, ink, xml_text(b.lines[i]));
  }
};

}  // namespace

std::string xml_text(std::string_view s) {
  std::string p = printable(s);
  std::string out;
  out.reserve(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (static_cast<unsigned char>(c) == 0xEF && i + 2 < p.size() && static_cast<unsigned char>(p[i + 1]) == 0xBF &&
        (static_cast<unsigned char>(p[i + 2]) == 0xBE || static_cast<unsigned char>(p[i + 2]) == 0xBF)) {
      out += static_cast<unsigned char>(p[i + 2]) == 0xBE ? "\\uFFFE" : "\\uFFFF";
      i += 2;
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string picture_svg(Picture& pic, const std::string& heading) {
  layout(pic.root);
  // The legend under the machine: each colour that is on the picture.
  struct Entry {
    std::string colour, cls, text;
    bool outline;
  };
  std::vector<Entry> entries = {
      {base_fill(BoxKind::Package), "package", "package", false}, {base_fill(BoxKind::Node), "node", "NUMA node (memory, free)", false},
      {base_fill(BoxKind::Core), "core", "core", false},          {base_fill(BoxKind::Cpu), "cpu", "CPU", false},
      {base_fill(BoxKind::Device), "device", "device (NIC, disk, GPU)", false},
  };
  for (const MarkStyle& s : mark_styles())
    if (pic.marks & mark_bit(s.mark)) entries.push_back({s.colour, s.cls, s.text, s.mark == Mark::Memory});
  std::vector<std::string> notes;
  for (const auto& c : pic.caption) notes.push_back(c);
  if (!pic.collapsed.empty()) {
    notes.push_back("Collapsed (dashed): runs of identical boxes drawn as one; each CPU keeps its element cpu-N");
    for (const auto& c : pic.collapsed) notes.push_back("  " + c);
  }
  int legend_y = pic.root.h + 1;
  int legend_rows = 1 + static_cast<int>(entries.size()) + static_cast<int>(notes.size());
  int w_cells = pic.root.w;
  for (const auto& e : entries) w_cells = std::max(w_cells, 4 + static_cast<int>(label_cells(e.text)));
  for (const auto& n : notes) w_cells = std::max(w_cells, 1 + static_cast<int>(label_cells(n)));
  int width = w_cells * k_cell_w + 4, height = (legend_y + legend_rows + 1) * k_cell_h;

  SvgWriter w;
  w.out.reserve(4096 + pic.root.cpus.count() * 160);
  w.out += fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"DejaVu Sans Mono, monospace\" font-size=\"12\">\n<title>{2}</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#FFFFFF\"/>\n",
      width, height, xml_text(heading));
  w.box(pic.root);
  w.out += fmt::format("<g id=\"legend\" class=\"legend\"><title>what the colours say</title>"
                       "<text x=\"{}\" y=\"{}\" font-weight=\"bold\">Legend</text>\n",
                       k_cell_w, legend_y * k_cell_h + 12);
  int row = legend_y + 1;
  for (const auto& e : entries) {
    int y = row * k_cell_h;
    w.out += fmt::format("<g class=\"legend-{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                         "stroke=\"{}\" stroke-width=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text></g>\n",
                         e.cls, k_cell_w, y + 2, 2 * k_cell_w, k_cell_h - 4, e.outline ? "#FFFFFF" : e.colour.c_str(),
                         e.outline ? e.colour.c_str() : "#404040", e.outline ? 3 : 1, 4 * k_cell_w, y + 12,
                         xml_text(e.text));
    ++row;
  }
  for (const auto& n : notes) {
    w.out += fmt::format("<text x=\"{}\" y=\"{}\" xml:space=\"preserve\">{}</text>\n", k_cell_w, row * k_cell_h + 12,
                         xml_text(n));
    ++row;
  }
  w.out += "</g>\n</svg>\n";
  return w.out;
}

}  // namespace affix
