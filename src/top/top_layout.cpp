#include "top_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <map>

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

// A CPU's place: node, socket, LLC, core, CPU (unknown: after every known).
using Place = std::array<long, k_top_levels>;

Place place_of(const TopCpu& c) {
  auto k = [](long v) { return v < 0 ? LONG_MAX : v; };
  return {k(c.node), k(c.socket), k(c.llc), k(c.core), static_cast<long>(c.cpu)};
}

size_t depth(TopLevel level) { return static_cast<size_t>(level) + 1; }

// The part of a place that names the unit of `level`.
bool same_unit(const Place& a, const Place& b, size_t n) {
  return std::equal(a.begin(), a.begin() + static_cast<long>(n), b.begin());
}

// One unit of a level: its CPUs (indexes into the frame's cpus, in
// topology order) and whether a header line starts before it.
struct CpuGroup {
  std::vector<const TopCpu*> cpus;
  bool header = false;
};

// Which levels above `level` a header line names: node, socket and LLC
// where known; core only above CPU rows where a core has more than one CPU.
std::vector<size_t> header_levels(const std::vector<const TopCpu*>& order, TopLevel level) {
  std::vector<size_t> out;
  size_t d = depth(level) - 1;
  for (size_t l = 0; l < d; ++l) {
    bool known = std::any_of(order.begin(), order.end(), [&](const TopCpu* c) { return place_of(*c)[l] != LONG_MAX; });
    if (!known) continue;
    if (l == static_cast<size_t>(TopLevel::Core)) {
      std::map<long, int> per_core;
      bool smt = false;
      for (const TopCpu* c : order) smt = smt || ++per_core[c->core] > 1;
      if (!smt) continue;
    }
    out.push_back(l);
  }
  return out;
}

std::vector<const TopCpu*> topology_order(const TopFrame& frame) {
  std::vector<const TopCpu*> order;
  for (const TopCpu& c : frame.cpus) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(),
                   [](const TopCpu* a, const TopCpu* b) { return place_of(*a) < place_of(*b); });
  return order;
}

std::vector<CpuGroup> units_of(const std::vector<const TopCpu*>& order, TopLevel level) {
  std::vector<CpuGroup> units;
  std::vector<size_t> hl = header_levels(order, level);
  size_t head_depth = hl.empty() ? 0 : hl.back() + 1;
  const TopCpu* prev = nullptr;
  for (const TopCpu* c : order) {
    if (prev && same_unit(place_of(*prev), place_of(*c), depth(level))) {
      units.back().cpus.push_back(c);
    } else {
      CpuGroup u;
      u.cpus.push_back(c);
      u.header = !hl.empty() && (!prev || !same_unit(place_of(*prev), place_of(*c), head_depth));
      units.push_back(std::move(u));
    }
    prev = c;
  }
  return units;
}

size_t lines_of(const std::vector<CpuGroup>& units) {
  size_t n = units.size();
  for (const CpuGroup& u : units) n += u.header ? 1 : 0;
  return n;
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

std::string unit_label(const CpuGroup& u, TopLevel level) {
  const TopCpu& c = *u.cpus.front();
  long id = 0;
  switch (level) {
    case TopLevel::Node: id = c.node; break;
    case TopLevel::Socket: id = c.socket; break;
    case TopLevel::Llc: id = c.llc; break;
    case TopLevel::Core: id = c.core; break;
    case TopLevel::Cpu: id = static_cast<long>(c.cpu); break;
  }
  if (id < 0) return fmt::format("{} ?", top_level_name(level));
  return fmt::format("{} {}", top_level_name(level), id);
}

TopLine header_line(const CpuGroup& u, const std::vector<size_t>& levels, size_t width) {
  LineBuilder b(width);
  const TopCpu& c = *u.cpus.front();
  std::string text;
  for (size_t l : levels) {
    long id = l == 0 ? c.node : l == 1 ? c.socket : l == 2 ? c.llc : c.core;
    if (!text.empty()) text += "  ";
    text += id < 0 ? fmt::format("{} ?", top_level_name(static_cast<TopLevel>(l)))
                   : fmt::format("{} {}", top_level_name(static_cast<TopLevel>(l)), id);
  }
  b.add(text, TopStyle::Group);
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

TopLine unit_line(const CpuGroup& u, TopLevel level, size_t label_width, bool indent, size_t width) {
  LineBuilder b(width);
  UnitFigures f = figures(u);
  if (indent) b.add(" ");
  std::string label = unit_label(u, level);
  label.resize(std::max(label.size(), label_width), ' ');
  b.add(label + " ", level == TopLevel::Cpu ? TopStyle::Plain : TopStyle::Group);
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

size_t top_pane_lines(const TopFrame& frame, TopLevel level) {
  return lines_of(units_of(topology_order(frame), level));
}

TopLevel top_fit_level(const TopFrame& frame, size_t rows) {
  auto order = topology_order(frame);
  for (int l = k_top_levels - 1; l > 0; --l)
    if (lines_of(units_of(order, static_cast<TopLevel>(l))) <= rows) return static_cast<TopLevel>(l);
  return TopLevel::Node;
}

TopLevel top_shown_level(const TopFrame& frame, const TopView& view, size_t, size_t height) {
  if (view.level) return *view.level;
  size_t middle = height > k_frame_lines ? height - k_frame_lines : 0;
  return top_fit_level(frame, cpu_pane_budget(middle));
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
  const TopLevel level = top_shown_level(frame, view, width, height);
  const size_t middle = height > k_frame_lines ? height - k_frame_lines : 0;
  auto order = topology_order(frame);
  std::vector<CpuGroup> units = units_of(order, level);

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
    if (level == TopLevel::Cpu)
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

  // The CPU pane.
  size_t budget = std::min(cpu_pane_budget(middle), middle);
  if (view.level) budget = std::min(std::max(budget, lines_of(units)), middle > 4 ? middle - 4 : middle);
  std::vector<size_t> hl = header_levels(order, level);
  size_t label_width = 0;
  for (const CpuGroup& u : units) label_width = std::max(label_width, unit_label(u, level).size());
  std::vector<TopLine> pane;
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
      TopLine h = header_line(u, hl, width);
      add_group_cpus(h, group, width);
      pane.push_back(std::move(h));
    }
    pane.push_back(unit_line(u, level, label_width, !hl.empty(), width));
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
    lines.push_back(text_line("q quit  s,<,> sort  / or f filter  + - level  space,z freeze  h hide keys  "
                              "bar: | user # system ! irq ~ softirq",
                              TopStyle::Header, width));
  else if (!frame.warnings.empty())
    lines.push_back(text_line(printable(frame.warnings.front()), TopStyle::Warning, width));
  else
    lines.push_back(text_line("h keys  q quit", TopStyle::Dim, width));
  return lines;
}

void handle_top_key(TopView& view, int key, TopLevel shown) {
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
  int l = static_cast<int>(shown);
  switch (key) {
    case 'q': case 'Q': view.quit = true; break;
    case 's': case '>': view.sort = static_cast<TopSort>((s + 1) % sorts); break;
    case '<': view.sort = static_cast<TopSort>((s + sorts - 1) % sorts); break;
    case '/': case 'f': view.editing_filter = true; view.filter.clear(); break;
    case '+': case '=': view.level = static_cast<TopLevel>(std::min(l + 1, k_top_levels - 1)); break;
    case '-': case '_': view.level = static_cast<TopLevel>(std::max(l - 1, 0)); break;
    case ' ': case 'z': view.frozen = !view.frozen; break;
    case 'h': case '?': view.help = !view.help; break;
    default: break;
  }
}

}  // namespace affix
