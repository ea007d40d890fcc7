#include "ascii_painter.hpp"

#include <fmt/format.h>

#include "draw_layout.hpp"
#include "text.hpp"

namespace affix {

namespace {

struct Glyphs {
  const char *h, *v, *tl, *tr, *bl, *br;
};

class Canvas {
public:
  Canvas(int w, int h) : m_w(w), m_cells(static_cast<size_t>(w) * static_cast<size_t>(h), " ") {}

  void put(int x, int y, std::string s) {
    if (x < 0 || y < 0 || x >= m_w) return;
    size_t i = static_cast<size_t>(y) * static_cast<size_t>(m_w) + static_cast<size_t>(x);
    if (i < m_cells.size()) m_cells[i] = std::move(s);
  }

  // `text` (printable) one character a cell from (x, y).
  void text(int x, int y, const std::string& text) {
    size_t i = 0;
    while (i < text.size()) {
      size_t n = 1;
      unsigned char c = static_cast<unsigned char>(text[i]);
      if (c >= 0xF0) n = 4;
      else if (c >= 0xE0) n = 3;
      else if (c >= 0xC0) n = 2;
      put(x++, y, text.substr(i, n));
      i += n;
    }
  }

  std::vector<std::string> rows() const {
    std::vector<std::string> out;
    int h = m_w ? static_cast<int>(m_cells.size()) / m_w : 0;
    for (int y = 0; y < h; ++y) {
      std::string line;
      for (int x = 0; x < m_w; ++x) line += m_cells[static_cast<size_t>(y * m_w + x)];
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out.push_back(std::move(line));
    }
    return out;
  }

  std::string str() const {
    std::string out;
    for (const std::string& line : rows()) out += line + "\n";
    return out;
  }

private:
  int m_w;
  std::vector<std::string> m_cells;
};

void draw(Canvas& c, const Box& b, const Glyphs& g) {
  if (b.hidden) return;
  int x1 = b.x + b.w - 1, y1 = b.y + b.h - 1;
  for (int x = b.x + 1; x < x1; ++x) {
    c.put(x, b.y, g.h);
    c.put(x, y1, g.h);
  }
  for (int y = b.y + 1; y < y1; ++y) {
    c.put(b.x, y, g.v);
    c.put(x1, y, g.v);
  }
  c.put(b.x, b.y, g.tl);
  c.put(x1, b.y, g.tr);
  c.put(b.x, y1, g.bl);
  c.put(x1, y1, g.br);
  int sx = b.x + 1;
  if (b.kind != BoxKind::Collapsed)
    for (const MarkStyle& s : mark_styles())
      if ((b.marks & mark_bit(s.mark)) && sx < x1) c.put(sx++, b.y, s.ascii);
  for (size_t i = 0; i < b.lines.size(); ++i) c.text(b.x + 1, b.y + 1 + static_cast<int>(i), printable(b.lines[i]));
  for (const Box& k : b.children) draw(c, k, g);
}

Glyphs glyphs(Charset charset) {
  return charset == Charset::Utf8 ? Glyphs{"─", "│", "┌", "┐", "└", "┘"} : Glyphs{"-", "|", "+", "+", "+", "+"};
}

}  // namespace

std::vector<std::string> boxes_ascii(Box& root, Charset charset) {
  layout(root);
  Canvas canvas(root.w, root.h);
  draw(canvas, root, glyphs(charset));
  return canvas.rows();
}

std::string picture_ascii(Picture& pic, Charset charset) {
  layout(pic.root);
  Canvas canvas(pic.root.w, pic.root.h);
  draw(canvas, pic.root, glyphs(charset));
  std::string out = canvas.str();
  std::string signs;
  for (const MarkStyle& s : mark_styles())
    if (pic.marks & mark_bit(s.mark)) signs += fmt::format("{}{} {}", signs.empty() ? "" : "  ", s.ascii, s.cls);
  if (!signs.empty()) out += "Signs on a box's top border: " + signs + "\n";
  for (const auto& line : pic.caption) out += printable(line) + "\n";
  if (!pic.collapsed.empty()) {
    out += "Collapsed: runs of identical boxes drawn as one:\n";
    for (const auto& line : pic.collapsed) out += "  " + printable(line) + "\n";
  }
  return out;
}

}  // namespace affix
