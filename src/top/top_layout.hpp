#pragma once
// What the live screen of `affix top` shows, as pure functions over a
// TopFrame: given the terminal's size, the view's state (level, sort,
// filter, frozen, help) and a frame, the lines to draw, each cut into
// styled parts. top_screen.cpp only paints these lines with ncurses and
// turns keys into handle_top_key() calls; everything a test can check
// (which rows fit 80x24 on 4096 CPUs, what a row says, how keys change the
// view) is here.
//
// The top pane groups the CPUs by the one layout of the machine's picture
// (src/draw, machine_tree.hpp: the tree `topo --ascii` and `--svg` draw):
// its nesting (package and node in the order draw nests them, die, LLC,
// core, CPU) and its collapsed runs ("29 x LLC"). At a level, one row per
// box of that level (its busy % and IRQs/s added up over its CPUs, its
// busiest threads), a collapsed run one row, under a header line where the
// boxes above it change. The deepest level whose rows fit the pane is shown
// unless the user chose one (+ and -, in the tree's order); a level deeper
// than what fits shows its first rows and says how many more there are.
// The picture view (v) shows draw's boxes themselves, painted by the ASCII
// painter, each CPU (or each box of the level the picture is cut to) with
// its busy %.

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "draw_box.hpp"
#include "top_frame.hpp"

namespace affix {

enum class TopLevel { Node, Socket, Llc, Core, Cpu };
constexpr int k_top_levels = 5;
const char* top_level_name(TopLevel level);    // "node", "socket", "LLC", "core", "CPU"
const char* top_level_plural(TopLevel level);  // "nodes", ..., "CPUs"
// The kind of draw's boxes a level's rows are (socket: BoxKind::Package).
BoxKind top_level_kind(TopLevel level);

// The keys of the process pane, in the order s and > cycle through them.
enum class TopSort { Cpu, Migrations, Remote, Threads, Pid };
constexpr int k_top_sorts = 5;
const char* top_sort_name(TopSort sort);  // "CPU%", "MIGR/s", "REMOTE", "THR", "PID"

// What the parts of a line are, for colours (top_screen.cpp maps them to
// colour pairs, or to bold and reverse video without colours).
enum class TopStyle { Plain, Title, Header, Group, User, System, Irq, Softirq, Mark, Dim, Warning };

struct TopSpan {
  std::string text;   // safe to print: every name from the machine is escaped
  TopStyle style = TopStyle::Plain;
};

struct TopLine {
  std::vector<TopSpan> spans;
  size_t columns = 0;  // the terminal columns the spans take (<= the width)
};

// The view's state between frames: what the keys change.
struct TopView {
  std::optional<TopLevel> level;  // chosen with + and -; nullopt: the deepest that fits
  TopSort sort = TopSort::Cpu;
  std::string filter;             // processes whose comm contains it (empty: all)
  bool editing_filter = false;    // / or f typed, Enter or Esc not yet
  bool frozen = false;            // space or z: the frame is kept, no new one read
  bool help = false;              // h: the keys on the last line
  bool picture = false;           // v: the CPU pane as draw's boxes
  bool quit = false;              // q
};

// The level shown for this frame and view on `rows` lines of the top pane
// (header lines included): the deepest whose lines fit (the tree's
// outermost level where none does).
TopLevel top_fit_level(const TopFrame& frame, size_t rows);

// Lines the top pane takes at a level (unit rows and their header lines).
size_t top_pane_lines(const TopFrame& frame, TopLevel level);

// The whole screen: width x height cells, at most `height` lines, none
// wider than `width`. The first line says what is shown (interval, CPUs,
// level, "collapsed" where the level is above CPU, sort, filter, frozen),
// then the CPU pane, the process pane, and a last line of keys (or the
// filter being typed, or the frame's first warning).
std::vector<TopLine> top_layout(const TopFrame& frame, const TopView& view, size_t width, size_t height);

// The level top_layout() shows for this frame, view and size: the view's
// chosen one, or the deepest that fits; in the picture view the level its
// picture is cut to (the deepest, from the chosen one up, that fits).
TopLevel top_shown_level(const TopFrame& frame, const TopView& view, size_t width, size_t height);

// The processes of the frame that pass the view's filter, in the view's
// order (CPU%, migrations/s, remote share, threads: most first; PID:
// ascending; ties by PID).
std::vector<const TopProcess*> top_sorted_processes(const TopFrame& frame, const TopView& view);

// A key typed: a character, '\n' for Enter, 127 for Backspace, 27 for Esc
// (top_screen.cpp turns ncurses' KEY_ENTER, KEY_BACKSPACE, KEY_LEFT and
// KEY_RIGHT into '\n', 127, '<' and '>'); `shown` is the level on screen,
// where + and - start from.
// `levels`: the levels of the frame's tree, outermost first
// (top_levels()), that + and - step through; empty: node, socket, LLC,
// core, CPU. v toggles the picture view.
void handle_top_key(TopView& view, int key, TopLevel shown, const std::vector<TopLevel>& levels = {});

// The levels draw's tree of this frame has, outermost first (CPU last).
std::vector<TopLevel> top_levels(const TopFrame& frame);

// The rows of the CPU pane at `level`, in order: what each names, its CPUs
// (a collapsed run: all of the run's), and the boxes above it as its header
// names them.
struct TopUnit {
  std::string label;               // "node 3", "CPU 7", "29 x LLC"
  CpuSet cpus;
  bool collapsed = false;          // a collapsed run of draw's
  std::vector<std::string> above;  // "socket 0", "node 1"
};
std::vector<TopUnit> top_units(const TopFrame& frame, TopLevel level);

}  // namespace affix
