#pragma once
// The SVG painter (affix(1), PICTURES): replays the laid-out boxes as SVG
// text, as lstopo-svg.c does (a group with an id and a class per box, a
// rect and its text lines), with every name from the machine escaped for
// XML. Its own small writer: no Cairo, no library.

#include <string>
#include <string_view>

#include "machine_tree.hpp"

namespace affix {

// Pixels of one layout cell (draw_layout.hpp).
constexpr int k_cell_w = 8;
constexpr int k_cell_h = 16;

// Text for XML character data and attribute values: printable() (so every
// control character and invalid UTF-8 byte becomes a visible escape; XML
// 1.0 allows neither), U+FFFE and U+FFFF escaped as \uFFFE, \uFFFF, and
// & < > " ' as entities.
std::string xml_text(std::string_view s);

// The picture as one SVG document: lays `pic.root` out first. `heading`
// is the document's <title> ("affix topo").
std::string picture_svg(Picture& pic, const std::string& heading);

}  // namespace affix
