#include "top_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <memory>

#include "ascii_painter.hpp"
#include "machine_tree.hpp"
#include "text.hpp"
#include "top_output.hpp"

namespace affix {

const char* top_level_name(TopLevel level) {
  switch (level) {
    case TopLevel::Node: return "node";
    case TopLevel::Socket: return "socket";
    case TopLevel::Llc: return "LLC";
    case TopLevel::Core: return "core";
    case TopLevel::Cpu: return "CPU";
  }
  return "?";
}

const char* top_level_plural(TopLevel level) {
  switch (level) {
    case TopLevel::Node: return "nodes";
    case TopLevel::Socket: return "sockets";
    case TopLevel::Llc: return "LLCs";
    case TopLevel::Core: return "cores";
    case TopLevel::Cpu: return "CPUs";
  }
  return "?";
}

BoxKind top_level_kind(TopLevel level) {
  switch (level) {
    case TopLevel::Node: return BoxKind::Node;
    case TopLevel::Socket: return BoxKind::Package;
    case TopLevel::Llc: return BoxKind::Llc;
    case TopLevel::Core: return BoxKind::Core;
    case TopLevel::Cpu: return BoxKind::Cpu;
  }
  return BoxKind::Cpu;
}

const char* top_sort_name(TopSort sort) {
  switch (sort) {
    case TopSort::Cpu: return "CPU%";
    case TopSort::Migrations: return "MIGR/s";
    case TopSort::Remote: return "REMOTE";
    case TopSort::Threads: return "THR";
    case TopSort::Pid: return "PID";
  }
  return "?";
}

namespace {

std::optional<TopLevel> level_of(BoxKind kind) {
  switch (kind) {
    case BoxKind::Node: return TopLevel::Node;
    case BoxKind::Package: return TopLevel::Socket;
    case BoxKind::Llc: return TopLevel::Llc;
    case BoxKind::Core: return TopLevel::Core;
    case BoxKind::Cpu: return TopLevel::Cpu;
    default: return std::nullopt;
  }
}

// The tree the CPU pane groups by: draw's (affix(1), PICTURES): the
// frame's, or draw's tree of the frame's CPUs' places. The nesting and the
// collapsed runs are draw's; top only walks it.
struct TopTree {
  std::shared_ptr<const Box> root;
  std::vector<const TopCpu*> by_cpu;  // CPU number -> its TopCpu (nullptr: not in the frame)
  std::vector<TopLevel> levels;       // those the tree has, outermost first
  bool smt = false;                   // a core with more than one CPU of the frame
};

bool skipped(const Box& b) { return b.hidden || b.kind == BoxKind::Device || b.kind == BoxKind::Memory; }

std::vector<const TopCpu*> cpus_in(const TopTree& t, const CpuSet& set) {
  std::vector<const TopCpu*> out;
  set.for_each([&](unsigned c) {
    if (c < t.by_cpu.size() && t.by_cpu[c]) out.push_back(t.by_cpu[c]);
  });
  return out;
}

void scan(TopTree& t, const Box& b, int depth, std::map<TopLevel, int>& min_depth) {
  for (const Box& c : b.children) {
    if (skipped(c)) continue;
    if (auto l = level_of(c.kind)) {
      auto it = min_depth.find(*l);
      if (it == min_depth.end() || depth < it->second) min_depth[*l] = depth;
    }
    if (c.kind == BoxKind::Core && cpus_in(t, c.cpus).size() > 1) t.smt = true;
    scan(t, c, depth + 1, min_depth);
  }
}

TopTree tree_of(const TopFrame& frame) {
  TopTree t;
  if (frame.machine) {
    t.root = frame.machine;
  } else {
    std::vector<CpuPlace> places;
    for (const TopCpu& c : frame.cpus) places.push_back({c.cpu, c.online, c.socket, c.node, -1, c.llc, c.core});
    t.root = std::make_shared<const Box>(machine_picture(places).root);
  }
  for (const TopCpu& c : frame.cpus) {
    if (c.cpu >= t.by_cpu.size()) t.by_cpu.resize(c.cpu + 1, nullptr);
    t.by_cpu[c.cpu] = &c;
  }
  std::map<TopLevel, int> min_depth;
  scan(t, *t.root, 0, min_depth);
  min_depth[TopLevel::Cpu] = INT_MAX;  // always the deepest
  for (const auto& [l, d] : min_depth) t.levels.push_back(l);
  std::stable_sort(t.levels.begin(), t.levels.end(),
                   [&](TopLevel a, TopLevel b) { return min_depth[a] < min_depth[b]; });
  return t;
}

// One row of a level: a box of draw's tree (a unit of that level, a
// collapsed run, or a CPU where the tree has no unit of the level there),
// the boxes above it, its CPUs of the frame, and whether a header line
// (naming the boxes above) starts before it.
struct CpuGroup {
  const Box* box = nullptr;
  std::vector<const Box*> above;  // outermost first; the machine left out
  std::vector<const TopCpu*> cpus;
  bool header = false;
};

void collect(const TopTree& t, const Box& b, BoxKind want, std::vector<const Box*>& above, std::vector<CpuGroup>& out) {
  for (const Box& c : b.children) {
    if (skipped(c)) continue;
    std::vector<const TopCpu*> cpus = cpus_in(t, c.cpus);
    if (cpus.empty()) continue;
    if (c.kind == want || c.kind == BoxKind::Collapsed || c.kind == BoxKind::Cpu || c.children.empty()) {
      CpuGroup g;
      g.box = &c;
      g.cpus = std::move(cpus);
      // A core is named above CPU rows only where a core has more than one CPU.
      for (const Box* a : above)
        if (a->kind != BoxKind::Core || t.smt) g.above.push_back(a);
      out.push_back(std::move(g));
    } else {
      above.push_back(&c);
      collect(t, c, want, above, out);
      above.pop_back();
    }
  }
}

std::vector<CpuGroup> units_of(const TopTree& t, TopLevel level) {
  std::vector<CpuGroup> units;
  std::vector<const Box*> above;
  collect(t, *t.root, top_level_kind(level), above, units);
  for (size_t i = 0; i < units.size(); ++i)
    units[i].header = !units[i].above.empty() && (i == 0 || units[i].above != units[i - 1].above);
  return units;
}

bool any_header(const std::vector<CpuGroup>& units) {
  return std::any_of(units.begin(), units.end(), [](const CpuGroup& u) { return !u.above.empty(); });
}

size_t lines_of(const std::vector<CpuGroup>& units) {
  size_t n = units.size();
  for (const CpuGroup& u : units) n += u.header ? 1 : 0;
  return n;
}

// A box's name on the pane: top's word for its kind and its number ("socket
// 0", "LLC 5"), a collapsed run's first line as draw writes it ("29 x
// LLC"), "offline" for the offline CPUs.
std::string box_label(const Box& b) {
  if (b.kind == BoxKind::Collapsed) return b.lines.empty() ? "run" : b.lines.front();
  if (b.kind == BoxKind::Group) return b.id == "offline" ? "offline" : (b.lines.empty() ? "group" : b.lines.front());
  const char* word = b.kind == BoxKind::Die ? "die" : level_of(b.kind) ? top_level_name(*level_of(b.kind)) : box_kind_class(b.kind);
  return b.key < 0 ? fmt::format("{} ?", word) : fmt::format("{} {}", word, b.key);
}

// A line being built, cut at the width.
class LineBuilder {
public:
  explicit LineBuilder(size_t width) : m_width(width) {}
  size_t left() const { return m_width - m_line.columns; }
  // ASCII text (one column a byte), cut where the line ends.
  void add(std::string text, TopStyle style = TopStyle::Plain) {
    if (text.size() > left()) text.resize(left());
    size_t columns = text.size();
    add_cells(std::move(text), columns, style);
  }
  // Text already `columns` wide (printable_cell's output); dropped where it
  // does not fit.
  void add_cells(std::string text, size_t columns, TopStyle style) {
    if (columns > left() || text.empty()) return;
    m_line.columns += columns;
    if (!m_line.spans.empty() && m_line.spans.back().style == style)
      m_line.spans.back().text += text;
    else
      m_line.spans.push_back({std::move(text), style});
  }
  TopLine take() { return std::move(m_line); }

private:
  size_t m_width;
  TopLine m_line;
};

// A name from the machine in at most `max` columns: escaped, cut with '+'
// where longer; the columns it takes.
std::pair<std::string, size_t> name_cell(const std::string& raw, size_t max) {
  std::string s = printable(raw);
  // Short names (ASCII, the common case) keep their length; others are cut
  // or padded by printable_cell and lose the padding.
  bool ascii = std::all_of(s.begin(), s.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x80; });
  if (ascii && s.size() <= max) return {s, s.size()};
  std::string cell = printable_cell(raw, max);
  size_t cols = max;
  while (!cell.empty() && cell.back() == ' ') cell.pop_back(), --cols;
  return {cell, cols};
}

std::string compact_rate(double v) {
  if (v < 1000) return fmt::format("{:.0f}", v);
  if (v < 1e6) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.1f}M", v / 1e6);
}

const char* short_mark(const std::string& m) {
  if (m == "offline") return "off";
  if (m == "isolated") return "iso";
  if (m == "nohz_full") return "nohz";
  if (m == "shielded") return "shield";
  return nullptr;
}

// A unit's figures: busy and its parts averaged over the CPUs that have
// them, IRQs/s added, marks counted, threads merged (busiest first).
struct UnitFigures {
  std::optional<double> busy;
  double user = 0, system = 0, irq = 0, softirq = 0;
  std::optional<double> irqs_per_s;
  std::vector<std::string> marks;  // "iso" (all its CPUs), "iso:3" (3 of them)
  std::vector<TopThread> threads;
  bool all_offline = true;
};

UnitFigures figures(const CpuGroup& u) {
  UnitFigures f;
  unsigned with_busy = 0;
  double busy = 0;
  std::vector<std::pair<std::string, unsigned>> marks;
  for (const TopCpu* c : u.cpus) {
    f.all_offline = f.all_offline && !c->online;
    if (c->busy) {
      ++with_busy;
      busy += *c->busy;
      f.user += c->user, f.system += c->system, f.irq += c->irq, f.softirq += c->softirq;
    }
    if (c->irqs_per_s) f.irqs_per_s = f.irqs_per_s.value_or(0) + *c->irqs_per_s;
    for (const std::string& m : c->marks) {
      const char* s = short_mark(m);
      std::string name = s ? s : printable(m);
      auto it = std::find_if(marks.begin(), marks.end(), [&](auto& p) { return p.first == name; });
      if (it == marks.end())
        marks.emplace_back(name, 1);
      else
        ++it->second;
    }
    f.threads.insert(f.threads.end(), c->threads.begin(), c->threads.end());
  }
  if (with_busy) {
    f.busy = busy / with_busy;
    f.user /= with_busy, f.system /= with_busy, f.irq /= with_busy, f.softirq /= with_busy;
  }
  for (auto& [name, n] : marks)
    f.marks.push_back(n == u.cpus.size() ? name : fmt::format("{}:{}", name, n));
  std::stable_sort(f.threads.begin(), f.threads.end(), [](const TopThread& a, const TopThread& b) {
    return a.percent != b.percent ? a.percent > b.percent : a.tid < b.tid;
  });
  return f;
}

TopLine header_line(const CpuGroup& u, size_t width) {
  LineBuilder b(width);
  std::string text;
  for (const Box* a : u.above) text += (text.empty() ? "" : "  ") + box_label(*a);
  b.add(printable(text), TopStyle::Group);
  return b.take();
}

// The header line's CPUs are said after it: the CPUs of the group (which
// may be several units).
void add_group_cpus(TopLine& line, const std::vector<const TopCpu*>& group, size_t width) {
  CpuSet cpus;
  for (const TopCpu* c : group) cpus.set(c->cpu);
  std::string s = fmt::format("  (CPU {})", format_cpulist(cpus));
  if (line.columns + s.size() > width) return;
  line.columns += s.size();
  line.spans.push_back({s, TopStyle::Dim});
}

TopLine unit_line(const CpuGroup& u, size_t label_width, bool indent, size_t width) {
  LineBuilder b(width);
  UnitFigures f = figures(u);
  if (indent) b.add(" ");
  std::string label = printable(box_label(*u.box));
  label.resize(std::max(label.size(), label_width), ' ');
  b.add(label + " ", u.box->kind == BoxKind::Cpu ? TopStyle::Plain : TopStyle::Group);
  // The bar: 10 to 30 cells, a quarter of what the line has left.
  size_t bar = std::clamp<size_t>(b.left() / 4, 10, 30);
  if (f.all_offline) {
    b.add("offline", TopStyle::Mark);
    return b.take();
  }
  b.add(f.busy ? fmt::format("{:5.1f}%", std::min(*f.busy, 999.9)) : std::string("    - "));
  b.add(" [");
  size_t used = 0;
  auto part = [&](double pct, char ch, TopStyle st) {
    size_t n = static_cast<size_t>(pct / 100.0 * static_cast<double>(bar) + 0.5);
    n = std::min(n, bar - used);
    if (n) b.add(std::string(n, ch), st);
    used += n;
  };
  if (f.busy) {
    part(f.user, '|', TopStyle::User);
    part(f.system, '#', TopStyle::System);
    part(f.irq, '!', TopStyle::Irq);
    part(f.softirq, '~', TopStyle::Softirq);
  }
  b.add(std::string(bar - used, ' ') + "]");
  b.add(fmt::format(" {:>6} irq/s", f.irqs_per_s ? compact_rate(*f.irqs_per_s) : std::string("-")));
  if (!f.marks.empty()) {
    std::string marks;
    for (auto& m : f.marks) marks += (marks.empty() ? "" : ",") + m;
    b.add(" ");
    b.add(marks, TopStyle::Mark);
  }
  for (const TopThread& t : f.threads) {
    std::string ids = fmt::format("  {}/{} ", t.pid, t.tid);
    std::string pct = fmt::format(" {:.0f}%", t.percent);
    if (ids.size() + 1 + pct.size() > b.left()) break;
    auto [comm, cols] = name_cell(t.comm, std::min<size_t>(16, b.left() - ids.size() - pct.size()));
    b.add(ids);
    b.add_cells(comm, cols, TopStyle::Plain);
    b.add(pct, TopStyle::Dim);
  }
  return b.take();
}

double migrations_per_s(const TopFrame& frame, const TopProcess& p) {
  return frame.interval > 0 ? static_cast<double>(p.migrations.total()) / frame.interval : 0;
}

bool contains_ci(const std::string& hay, const std::string& needle) {
  auto lower = [](std::string s) {
    for (char& ch : s)
      if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    return s;
  };
  return lower(hay).find(lower(needle)) != std::string::npos;
}

TopLine process_header(TopSort sort, size_t width) {
  LineBuilder b(width);
  struct Col {
    const char* text;
    TopSort key;
  };
  const Col cols[] = {{"    PID", TopSort::Pid},        {" COMM            ", TopSort::Pid},
                      {"  CPU%", TopSort::Cpu},         {"  THR", TopSort::Threads},
                      {" MIGR/s", TopSort::Migrations}, {" REMOTE", TopSort::Remote}};
  for (size_t i = 0; i < std::size(cols); ++i) {
    bool sorted = cols[i].key == sort && i != 1;
    b.add(cols[i].text, sorted ? TopStyle::Title : TopStyle::Header);
  }
  b.add(" PIN ALLOWED     PAGES", TopStyle::Header);
  b.add(std::string(b.left(), ' '), TopStyle::Header);
  return b.take();
}

TopLine process_line(const TopFrame& frame, const TopProcess& p, size_t width) {
  LineBuilder b(width);
  b.add(fmt::format("{:>7} ", p.pid));
  b.add_cells(printable_cell(p.comm, 16), 16, TopStyle::Plain);
  b.add(fmt::format(" {:5.1f} {:4}", p.percent, p.threads));
  b.add(fmt::format(" {:>6}", compact_rate(migrations_per_s(frame, p))));
  b.add(fmt::format(" {:>6}", top_remote_text(p)));
  b.add(p.pinned ? " yes " : "  -  ", p.pinned ? TopStyle::Mark : TopStyle::Plain);
  // The CPU list in 11 columns (cut with '+'), then the anonymous pages
  // per node.
  std::string allowed = p.allowed.empty() ? "-" : format_cpulist(p.allowed);
  if (allowed.size() > 11) allowed = allowed.substr(0, 10) + "+";
  allowed.resize(11, ' ');
  b.add(allowed, TopStyle::Dim);
  b.add(" " + (p.pages ? format_node_counts(*p.pages, true) : std::string("-")));
  return b.take();
}

TopLine text_line(const std::string& s, TopStyle style, size_t width) {
  LineBuilder b(width);
  b.add(s, style);
  return b.take();
}

// The lines above and below the panes.
constexpr size_t k_frame_lines = 2;

// The top pane's share of the lines between the title and the keys: what
// it needs, leaving the process pane a third (at least its header and 3
// rows) where the terminal has that.
size_t cpu_pane_budget(size_t middle) {
  size_t proc_min = std::max<size_t>(4, middle / 3);
  return middle > proc_min ? middle - proc_min : std::min<size_t>(middle, 1);
}

}  // namespace

std::vector<TopLevel> top_levels(const TopFrame& frame) { return tree_of(frame).levels; }

std::vector<TopUnit> top_units(const TopFrame& frame, TopLevel level) {
  TopTree t = tree_of(frame);
  std::vector<TopUnit> out;
  for (const CpuGroup& u : units_of(t, level)) {
    TopUnit x;
    x.label = box_label(*u.box);
    x.cpus = u.box->cpus;
    x.collapsed = u.box->kind == BoxKind::Collapsed;
    for (const Box* a : u.above) x.above.push_back(box_label(*a));
    out.push_back(std::move(x));
  }
  return out;
}

size_t top_pane_lines(const TopFrame& frame, TopLevel level) { return lines_of(units_of(tree_of(frame), level)); }

namespace {

TopLevel fit_level(const TopTree& t, size_t rows) {
  for (size_t i = t.levels.size(); i-- > 1;)
    if (lines_of(units_of(t, t.levels[i])) <= rows) return t.levels[i];
  return t.levels.front();
}

// The picture view: draw's boxes cut below the boxes of `cut` (they, the
// collapsed runs and the CPUs keep no children), each of those labelled
// with its busy % (averaged over its CPUs of the frame).
Box picture_box(const TopTree& t, const Box& b, BoxKind cut) {
  Box out;
  out.kind = b.kind;
  out.id = b.id;
  out.key = b.key;
  out.lines = b.lines;
  out.cpus = b.cpus;
  out.row = b.row;
  bool leaf = b.kind == cut || b.kind == BoxKind::Collapsed || b.kind == BoxKind::Cpu || b.children.empty();
  if (!leaf) {
    for (const Box& c : b.children)
      if (!c.hidden) out.children.push_back(picture_box(t, c, cut));
    return out;
  }
  if (b.kind == BoxKind::Collapsed && out.lines.size() > 2) out.lines.resize(2);  // "N x KIND", its CPUs
  CpuGroup g;
  g.cpus = cpus_in(t, b.cpus);
  if (g.cpus.empty()) return out;
  UnitFigures f = figures(g);
  out.lines.push_back(f.all_offline ? std::string("offline") : f.busy ? fmt::format("{:.0f}%", *f.busy) : std::string("-"));
  return out;
}

struct PictureFit {
  TopLevel level = TopLevel::Cpu;
  std::vector<std::string> rows;
  int width = 0;
};

// The deepest level (from `deepest` up) whose picture fits width x rows,
// else the outermost.
PictureFit fit_picture(const TopTree& t, std::optional<TopLevel> deepest, size_t width, size_t rows) {
  PictureFit fit;
  size_t start = t.levels.size() - 1;
  if (deepest) {
    auto it = std::find(t.levels.begin(), t.levels.end(), *deepest);
    if (it != t.levels.end()) start = static_cast<size_t>(it - t.levels.begin());
  }
  for (size_t i = start + 1; i-- > 0;) {
    Box root = picture_box(t, *t.root, top_level_kind(t.levels[i]));
    fit.rows = boxes_ascii(root, Charset::Ascii);
    fit.width = root.w;
    fit.level = t.levels[i];
    if (static_cast<size_t>(root.w) <= width && fit.rows.size() <= rows) break;
  }
  return fit;
}

// The picture's rows: all but the process pane's header and first row.
size_t picture_budget(size_t middle) { return middle > 2 ? middle - 2 : middle; }

}  // namespace

TopLevel top_fit_level(const TopFrame& frame, size_t rows) { return fit_level(tree_of(frame), rows); }

TopLevel top_shown_level(const TopFrame& frame, const TopView& view, size_t width, size_t height) {
  size_t middle = height > k_frame_lines ? height - k_frame_lines : 0;
  TopTree t = tree_of(frame);
  if (view.picture) return fit_picture(t, view.level, width, picture_budget(middle)).level;
  if (view.level) return *view.level;
  return fit_level(t, cpu_pane_budget(middle));
}

std::vector<const TopProcess*> top_sorted_processes(const TopFrame& frame, const TopView& view) {
  std::vector<const TopProcess*> out;
  for (const TopProcess& p : frame.processes)
    if (view.filter.empty() || contains_ci(p.comm, view.filter)) out.push_back(&p);
  auto key = [&](const TopProcess* p) -> double {
    switch (view.sort) {
      case TopSort::Cpu: return p->percent;
      case TopSort::Migrations: return migrations_per_s(frame, *p);
      case TopSort::Remote: return p->remote_share ? *p->remote_share : -1;
      case TopSort::Threads: return p->threads;
      case TopSort::Pid: return -static_cast<double>(p->pid);
    }
    return 0;
  };
  std::stable_sort(out.begin(), out.end(), [&](const TopProcess* a, const TopProcess* b) {
    double ka = key(a), kb = key(b);
    return ka != kb ? ka > kb : a->pid < b->pid;
  });
  return out;
}

std::vector<TopLine> top_layout(const TopFrame& frame, const TopView& view, size_t width, size_t height) {
  std::vector<TopLine> lines;
  if (width == 0 || height == 0) return lines;
  const size_t middle = height > k_frame_lines ? height - k_frame_lines : 0;
  const TopTree tree = tree_of(frame);
  std::optional<PictureFit> picture;
  if (view.picture) picture = fit_picture(tree, view.level, width, picture_budget(middle));
  const TopLevel level = picture           ? picture->level
                         : view.level      ? *view.level
                                           : fit_level(tree, cpu_pane_budget(middle));
  std::vector<CpuGroup> units = units_of(tree, level);

  // Title.
  {
    LineBuilder b(width);
    unsigned online = 0;
    double busy = 0;
    unsigned with_busy = 0;
    for (const TopCpu& c : frame.cpus) {
      online += c.online ? 1 : 0;
      if (c.busy) busy += *c.busy, ++with_busy;
    }
    b.add("affix top", TopStyle::Title);
    if (view.frozen) b.add("  FROZEN", TopStyle::Warning);  // first: the title may be cut
    b.add(fmt::format("  {} CPUs", frame.cpus.size()));
    if (online != frame.cpus.size()) b.add(fmt::format(" ({} online)", online));
    b.add(with_busy ? fmt::format("  busy {:.1f}%", busy / with_busy) : std::string("  busy -"));
    if (picture)
      b.add(level == TopLevel::Cpu ? std::string("  picture of CPUs")
                                   : fmt::format("  picture to {}", top_level_plural(level)),
            level == TopLevel::Cpu ? TopStyle::Plain : TopStyle::Warning);
    else if (level == TopLevel::Cpu)
      b.add("  CPU rows");
    else
      b.add(fmt::format("  collapsed to {} {}", units.size(),
                        units.size() == 1 ? top_level_name(level) : top_level_plural(level)),
            TopStyle::Warning);
    b.add(frame.interval > 0 ? fmt::format("  every {:.1f} s", frame.interval) : std::string("  first sample"));
    b.add(fmt::format("  sort {}", top_sort_name(view.sort)));
    if (!view.filter.empty()) b.add("  filter '" + printable(view.filter) + "'");
    lines.push_back(b.take());
  }
  if (height == 1) return lines;

  // The CPU pane: the picture view's boxes, or rows.
  if (picture) {
    size_t budget = picture_budget(middle);
    size_t n = std::min(picture->rows.size(), budget);
    bool cut = n < picture->rows.size() || static_cast<size_t>(picture->width) > width;
    if (cut && n == budget && n > 0) --n;
    for (size_t i = 0; i < n; ++i) lines.push_back(text_line(picture->rows[i], TopStyle::Plain, width));
    if (cut && lines.size() < height - 1)
      lines.push_back(text_line(fmt::format("  picture cut: {} x {} cells on {} x {}", picture->width,
                                            picture->rows.size(), width, budget),
                                TopStyle::Dim, width));
  }
  size_t budget = std::min(cpu_pane_budget(middle), middle);
  if (view.level) budget = std::min(std::max(budget, lines_of(units)), middle > 4 ? middle - 4 : middle);
  const bool indent = any_header(units);
  size_t label_width = 0;
  for (const CpuGroup& u : units) label_width = std::max(label_width, printable(box_label(*u.box)).size());
  std::vector<TopLine> pane;
  if (picture) units.clear();
  size_t total = lines_of(units);
  size_t shown_units = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    const CpuGroup& u = units[i];
    size_t need = u.header ? 2 : 1;
    // Keep a line for "N more" where not everything fits.
    size_t room = budget - pane.size();
    if (need > room || (total > budget && need + 1 > room)) break;
    if (u.header) {
      std::vector<const TopCpu*> group;
      for (size_t j = i; j < units.size() && (j == i || !units[j].header); ++j)
        group.insert(group.end(), units[j].cpus.begin(), units[j].cpus.end());
      TopLine h = header_line(u, width);
      add_group_cpus(h, group, width);
      pane.push_back(std::move(h));
    }
    pane.push_back(unit_line(u, label_width, indent, width));
    ++shown_units;
  }
  if (shown_units < units.size() && pane.size() < budget)
    pane.push_back(text_line(fmt::format("  ... {} more {} (- collapses)", units.size() - shown_units,
                                         top_level_plural(level)),
                             TopStyle::Dim, width));
  for (auto& l : pane) lines.push_back(std::move(l));

  // The process pane.
  size_t proc_lines = height - 1 > lines.size() ? height - 1 - lines.size() : 0;
  if (proc_lines > 0) {
    lines.push_back(process_header(view.sort, width));
    auto procs = top_sorted_processes(frame, view);
    size_t rows = proc_lines - 1;
    if (procs.empty() && rows > 0)
      lines.push_back(text_line(view.filter.empty() ? "  (no process ran in the interval)"
                                                    : "  (no process matches '" + printable(view.filter) + "')",
                                TopStyle::Dim, width));
    for (size_t i = 0; i < procs.size() && i < rows; ++i) lines.push_back(process_line(frame, *procs[i], width));
  }

  // The last line: the filter being typed, the keys, or a warning.
  while (lines.size() < height - 1) lines.push_back(TopLine{});
  if (view.editing_filter)
    lines.push_back(text_line("filter: " + printable(view.filter) + "_   (Enter keeps it, Esc clears it)",
                              TopStyle::Title, width));
  else if (view.help)
    lines.push_back(text_line("q quit  s,<,> sort  / or f filter  + - level  v picture  space,z freeze  h hide keys  "
                              "bar: | user # system ! irq ~ softirq",
                              TopStyle::Header, width));
  else if (!frame.warnings.empty())
    lines.push_back(text_line(printable(frame.warnings.front()), TopStyle::Warning, width));
  else
    lines.push_back(text_line("h keys  q quit", TopStyle::Dim, width));
  return lines;
}

void handle_top_key(TopView& view, int key, TopLevel shown, const std::vector<TopLevel>& levels) {
  if (view.editing_filter) {
    if (key == '\n' || key == '\r') {
      view.editing_filter = false;
    } else if (key == 27) {
      view.editing_filter = false;
      view.filter.clear();
    } else if (key == 127 || key == 8) {
      if (!view.filter.empty()) view.filter.pop_back();
    } else if (key >= 0x20 && key < 0x7f) {
      view.filter += static_cast<char>(key);
    }
    return;
  }
  int sorts = k_top_sorts;
  int s = static_cast<int>(view.sort);
  std::vector<TopLevel> order = levels;
  if (order.empty())
    for (int i = 0; i < k_top_levels; ++i) order.push_back(static_cast<TopLevel>(i));
  int n = static_cast<int>(order.size());
  auto at = std::find(order.begin(), order.end(), shown);
  int l = at == order.end() ? n - 1 : static_cast<int>(at - order.begin());
  switch (key) {
    case 'q': case 'Q': view.quit = true; break;
    case 's': case '>': view.sort = static_cast<TopSort>((s + 1) % sorts); break;
    case '<': view.sort = static_cast<TopSort>((s + sorts - 1) % sorts); break;
    case '/': case 'f': view.editing_filter = true; view.filter.clear(); break;
    case '+': case '=': view.level = order[static_cast<size_t>(std::min(l + 1, n - 1))]; break;
    case '-': case '_': view.level = order[static_cast<size_t>(std::max(l - 1, 0))]; break;
    case 'v': case 'V': view.picture = !view.picture; break;
    case ' ': case 'z': view.frozen = !view.frozen; break;
    case 'h': case '?': view.help = !view.help; break;
    default: break;
  }
}

}  // namespace affix
