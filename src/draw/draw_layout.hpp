#pragma once
// The PREPARE pass's second half (as lstopo's): each box measured on a grid
// of character cells (its label lines, its children), then its children
// placed in rows and columns near 4:3 (`find_children_rectangle` in
// lstopo-draw.c), a core's CPUs in one row. Both painters replay these
// cells: --ascii one character a cell, --svg k_cell_w x k_cell_h pixels.

#include <string_view>

#include "draw_box.hpp"

namespace affix {

// Cells a label takes: one per character (a UTF-8 sequence is one; an
// escaped byte its escape's length, as the painters write it).
size_t label_cells(std::string_view text);

// Measures and places `root` and every visible box under it (hidden ones
// keep 0 sizes); root at (0, 0).
void layout(Box& root);

}  // namespace affix
