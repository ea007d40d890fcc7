#include "draw_layout.hpp"

#include <algorithm>
#include <limits>

#include "text.hpp"

namespace affix {

namespace {

// A box: its border (1 cell each side), its label lines under the top
// border, a blank cell each side of its children, its children below the
// label; siblings one cell apart in a row, stacked rows touching.
constexpr int k_pad = 1;
constexpr int k_gap = 1;
// A cell's shape in the SVG (8 x 16 pixels): the 4:3 of the picture is of
// pixels, not cells.
constexpr double k_cell_aspect = 0.5;

struct Grid {
  int cols = 1;
  std::vector<int> col_w, row_h;
  int w = 0, h = 0;
};

Grid grid_for(const std::vector<const Box*>& kids, int cols) {
  Grid g;
  g.cols = cols;
  int rows = static_cast<int>((kids.size() + static_cast<size_t>(cols) - 1) / static_cast<size_t>(cols));
  g.col_w.assign(static_cast<size_t>(cols), 0);
  g.row_h.assign(static_cast<size_t>(rows), 0);
  for (size_t i = 0; i < kids.size(); ++i) {
    size_t c = i % static_cast<size_t>(cols), r = i / static_cast<size_t>(cols);
    g.col_w[c] = std::max(g.col_w[c], kids[i]->w);
    g.row_h[r] = std::max(g.row_h[r], kids[i]->h);
  }
  for (int w : g.col_w) g.w += w;
  g.w += (cols - 1) * k_gap;
  for (int h : g.row_h) g.h += h;
  return g;
}

void measure(Box& b);

Grid arrange(Box& b) {
  std::vector<const Box*> kids;
  for (Box& c : b.children)
    if (!c.hidden) {
      measure(c);
      kids.push_back(&c);
    }
  if (kids.empty()) return {};
  int n = static_cast<int>(kids.size());
  if (b.row) return grid_for(kids, n);
  Grid best;
  double best_score = std::numeric_limits<double>::max();
  for (int cols = 1; cols <= n; ++cols) {
    if (cols > 1 && (n + cols - 1) / cols == (n + cols - 2) / (cols - 1)) continue;  // same rows as cols-1
    Grid g = grid_for(kids, cols);
    double ratio = static_cast<double>(g.w + 2 * k_pad + 2) * k_cell_aspect / static_cast<double>(g.h + 2);
    double r = ratio / (4.0 / 3.0);
    double score = r >= 1 ? r : 1 / r;  // how far from 4:3, either way (no libm: affix links none)
    if (score < best_score) {
      best_score = score;
      best = g;
    }
  }
  return best;
}

void measure(Box& b) {
  int label = 0;
  for (const auto& l : b.lines) label = std::max(label, static_cast<int>(label_cells(l)));
  Grid g = arrange(b);
  b.cols = g.cols;
  b.w = std::max(label + 2, g.w + 2 * k_pad + 2);
  b.h = static_cast<int>(b.lines.size()) + g.h + 2;
}

void place(Box& b, int x, int y) {
  b.x = x;
  b.y = y;
  std::vector<Box*> kids;
  for (Box& c : b.children)
    if (!c.hidden) kids.push_back(&c);
  if (kids.empty()) return;
  std::vector<const Box*> ck(kids.begin(), kids.end());
  Grid g = grid_for(ck, b.cols);
  int top = y + 1 + static_cast<int>(b.lines.size());
  int row_y = top;
  for (size_t r = 0; r < g.row_h.size(); ++r) {
    int col_x = x + 1 + k_pad;
    for (size_t c = 0; c < g.col_w.size(); ++c) {
      size_t i = r * g.col_w.size() + c;
      if (i >= kids.size()) break;
      kids[i]->w = g.col_w[c];  // a grid's boxes as wide as their column, as tall as their row
      kids[i]->h = g.row_h[r];
      place(*kids[i], col_x, row_y);
      col_x += g.col_w[c] + k_gap;
    }
    row_y += g.row_h[r];
  }
}

}  // namespace

size_t label_cells(std::string_view text) {
  std::string p = printable(text);
  size_t n = 0;
  for (unsigned char ch : p)
    if ((ch & 0xC0) != 0x80) ++n;
  return n;
}

void layout(Box& root) {
  measure(root);
  place(root, 0, 0);
}

}  // namespace affix
