#pragma once
// The one layout of the machine's picture (affix(1), PICTURES), shared by
// `topo --svg`, `topo --ascii`, `explain --svg/--ascii`, `show --svg` and
// `top`'s live screen (its CPU pane's rows and its picture view,
// src/top/top_layout.hpp):
// a tree of boxes (machine, package, node, die, LLC, core, CPU, device,
// collapsed run) measured and placed on a grid of character cells once
// (draw_layout.hpp), then replayed by small painters (svg_painter.hpp,
// ascii_painter.hpp). As lstopo's two passes (utils/lstopo/lstopo-draw.c):
// the painters only draw what the layout placed.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cpuset.hpp"

namespace affix {

enum class BoxKind { Machine, Package, Node, Die, Llc, Core, Cpu, Device, Memory, Group, Collapsed };
const char* box_kind_class(BoxKind kind);  // "machine", "package", "node", ...

// The overlay marks (affix(1), PICTURES, "Overlays"): each is a class on
// the element it marks. One bit each.
enum class Mark : unsigned {
  Chosen = 1u << 0,
  Dropped = 1u << 1,
  Allowed = 1u << 2,
  Ran = 1u << 3,
  Shield = 1u << 4,
  Irq = 1u << 5,
  Memory = 1u << 6,
};
constexpr unsigned k_mark_count = 7;
unsigned mark_bit(Mark m);
struct MarkStyle {
  Mark mark;
  const char* cls;     // its class: "chosen"
  const char* colour;  // its colour (Okabe-Ito, safe for the common colour-blindnesses): "#0072B2"
  const char* text;    // what the legend says of it
  const char* ascii;   // its sign after a label in --ascii: "*"
};
// The marks in the order a CPU's fill takes them (the first present fills
// it, the second outlines it).
const std::vector<MarkStyle>& mark_styles();

struct Box {
  BoxKind kind = BoxKind::Group;
  std::string id;                  // "cpu-3"; empty: none
  long key = -1;                   // the unit's number (package 0, node 3, CPU 7); -1: none (machine, run, group)
  std::vector<std::string> lines;  // label lines, as read (painters escape them)
  std::string title;               // details on hover (escaped by the painter)
  CpuSet cpus;                     // the CPUs it holds
  unsigned marks = 0;              // Mark bits
  std::vector<std::pair<std::string, std::string>> data;  // data-* attributes: {"count", "12"}
  std::vector<Box> children;
  bool row = false;                // its children in one row (a core's CPUs)
  // Collapsed (a run of identical siblings drawn as one box): the boxes it
  // stands for keep their elements, with their ids and titles, and no
  // geometry (`hidden`).
  bool hidden = false;
  uint64_t shape = 0;              // factorization: equal for boxes drawn alike
  // Placed by layout(): in character cells, relative to the picture.
  int x = 0, y = 0, w = 0, h = 0;
  int cols = 0;  // its children's columns
};

}  // namespace affix
