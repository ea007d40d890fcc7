// `affix watch` for people, in 80 columns: one block (or screen) per
// interval, and the summary table. Each process is a row of rates and a
// line under it that says where it ran and where its pages are. Names from
// processes go through printable_cell(): escaped, and cut to their column.
#include <algorithm>
#include <cstring>
#include <tuple>

#include <fmt/format.h>

#include "text.hpp"
#include "watch_output.hpp"

namespace affix {

namespace {

constexpr Crossing k_columns[] = {Crossing::Socket, Crossing::Node, Crossing::Llc, Crossing::Core,
                                  Crossing::Smt};
constexpr size_t k_width = 78;  // where the header's lines are wrapped
constexpr size_t k_line_width = 80;  // no line of a block is wider

double per_second(uint64_t n, double seconds) { return seconds > 0 ? static_cast<double>(n) / seconds : 0.0; }

// socket, node, total: the order rows are shown in (most first).
std::tuple<uint64_t, uint64_t, uint64_t> weight(const Activity& a) {
  return {a.migrations[Crossing::Socket], a.migrations[Crossing::Node], a.migrations.total()};
}

// A number in 5 columns: "0", "2.5", "399", "12k".
std::string cell(double v) {
  if (v <= 0) return fmt::format("{:>5}", "0");
  if (v < 9.95) return fmt::format("{:>5.1f}", v);
  if (v < 9999.5) return fmt::format("{:>5.0f}", v);
  return fmt::format("{:>4.0f}k", std::min(v / 1000, 9999.0));
}

// WAIT: milliseconds of run-queue wait per second, in 5 columns: "-" where
// none of it could be read; where some could not, a lower bound, rounded
// down to 3 characters and marked "+" ("750+", "2k+").
std::string wait_cell(const Activity& a, double seconds) {
  auto wait = a.wait();
  if (!wait) return fmt::format("{:>5}", "-");
  double v = seconds > 0 ? static_cast<double>(*wait) / 1e6 / seconds : 0.0;
  if (!a.wait_partial()) return cell(v);
  auto down = [](double x) { return static_cast<uint64_t>(x); };  // x >= 0
  std::string at_least;
  if (v < 0.1) at_least = "0";
  else if (v < 10) at_least = fmt::format("{}.{}", down(v), down(v * 10) % 10);
  else if (v < 1000) at_least = fmt::format("{}", down(v));
  else at_least = fmt::format("{}k", std::min<uint64_t>(down(v / 1000), 999));
  return fmt::format("{:>5}", at_least + "+");
}

// MIG SOCK NODE LLC CORE SMT VCSW ICSW, per second, WAIT, then the last column.
std::string cells(const Activity& a, double seconds, double last) {
  std::string out = cell(per_second(a.migrations.total(), seconds));
  for (Crossing c : k_columns) out += cell(per_second(a.migrations[c], seconds));
  out += cell(per_second(a.voluntary, seconds)) + cell(per_second(a.involuntary, seconds)) + wait_cell(a, seconds) +
         cell(last);
  return out;
}

const char* k_titles = "  MIG SOCK NODE  LLC CORE  SMT VCSW ICSW WAIT";

// What share of its anonymous pages is remote, and of what: after "anon
// 0:216 1:5" and "ran on socket:0", ", 2.3% off node 0" (the one node its
// threads ran on). Where its threads ran on several nodes
// the share is not defined (which pages a thread reaches across depends on
// the thread's node, and numa_maps does not say whose pages are whose):
// ", ran on nodes 0-1: remote share not defined", with the share off all
// of them where some are.
std::string remote_text(const ProcessReport& p) {
  if (!p.remote_pages || !p.anon_pages || p.ran_nodes.empty()) return "";
  uint64_t total = 0;
  for (const auto& [node, pages] : *p.anon_pages) total += pages;
  if (total == 0) return "";
  double off = 100.0 * static_cast<double>(*p.remote_pages) / static_cast<double>(total);
  std::string nodes = format_cpulist(p.ran_nodes);
  if (p.ran_nodes.count() == 1) return fmt::format(", {:.1f}% off node {}", off, nodes);
  if (*p.remote_pages == 0) return fmt::format(", ran on nodes {}: remote share not defined", nodes);
  return fmt::format(", ran on nodes {}: {:.1f}% off them all, remote share of the rest not defined", nodes, off);
}

// " (3 unread)": threads there whose files could not be read at all.
std::string unread_text(size_t unread) { return unread ? fmt::format(" ({} unread)", unread) : ""; }

// "anon 0:216 1:5, 2.3% off node 0; file 0:10 1:1072": its own memory, then the
// page cache of the files it maps (not counted as remote).
std::string pages_text(const ProcessReport& p) {
  if (!p.pages || !p.anon_pages || !p.file_pages) return "pages unknown";
  return fmt::format("anon {}{}; file {}", format_node_counts(*p.anon_pages, true), remote_text(p), format_node_counts(*p.file_pages, true));
}

// `text` after `indent`, broken between words into lines of at most
// k_line_width columns.
std::string indented(const char* indent, std::string rest) {
  std::string out;
  while (std::strlen(indent) + rest.size() > k_line_width) {
    size_t cut = rest.rfind(' ', k_line_width - std::strlen(indent));
    if (cut == std::string::npos || cut == 0) break;
    out += indent + rest.substr(0, cut) + "\n";
    rest = rest.substr(cut + 1);
  }
  return out + indent + rest + "\n";
}

// "weighted 0:3 2:1 = 75.0% 25.0%; pages 0:3072 2:1024 = 75.0% 25.0%": the
// weights the kernel has now ("?" where it has none) and each node's share
// of them, against the pages under weighted interleave and each node's share
// of them.
std::string weighted_text(const WeightedShare& w) {
  unsigned long long pages = 0, weights = 0;
  auto pages_of = [&](unsigned n) {
    auto it = w.pages.find(n);
    return it == w.pages.end() ? 0ull : it->second;
  };
  auto weight_of = [&](unsigned n) { return w.weights.count(n) ? w.weights.at(n) : 0u; };
  w.nodes.for_each([&](unsigned n) {
    pages += pages_of(n);
    weights += weight_of(n);
  });
  auto share = [](unsigned long long part, unsigned long long whole) {
    return whole ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole))
                 : std::string("-");
  };
  std::string weight_part, weight_shares, page_part, page_shares;
  w.nodes.for_each([&](unsigned n) {
    unsigned weight = weight_of(n);
    weight_part += weight ? fmt::format(" {}:{}", n, weight) : fmt::format(" {}:?", n);
    weight_shares += " " + (weight ? share(weight, weights) : std::string("?"));
    page_part += fmt::format(" {}:{}", n, pages_of(n));
    page_shares += " " + share(pages_of(n), pages);
  });
  return fmt::format("weighted{} ={}; pages{} ={}", weight_part, weight_shares, page_part, page_shares);
}

// The line under a process's row; where it would not fit in k_line_width
// columns, the pages go on a line of their own (and that one, where still
// too long, breaks between words); under weighted interleave, a line for
// its pages against its weights.
std::string detail(const ProcessReport& p, const LevelMap& levels) {
  std::string where = p.cpus_ran.empty() ? "-" : levels.describe(p.cpus_ran);
  if (!where.empty() && where[0] >= '0' && where[0] <= '9') where = (p.cpus_ran.count() == 1 ? "CPU " : "CPUs ") + where;
  const char* indent = "        ";
  std::string ran = fmt::format("{} thread{}{}, ran on {};", p.threads, p.threads == 1 ? "" : "s",
                                unread_text(p.threads_unread), where);
  std::string pages = pages_text(p) + (p.exited ? "; exited" : "");
  std::string weighted = p.weighted ? indented(indent, weighted_text(*p.weighted)) : std::string();
  std::string line = fmt::format("{}{} {}", indent, ran, pages);
  if (line.size() <= k_line_width) return line + "\n" + weighted;
  return indent + ran + "\n" + indented(indent, pages) + weighted;
}

// A line for the CPU time of threads that came and went between two
// samples (their moves are not known): as a share of one CPU over
// `seconds` in an interval, in seconds in the summary; none where none.
std::string came_and_went(const ProcessReport& p, double seconds, bool summary) {
  if (p.came_and_went_ns == 0) return "";
  double ns = static_cast<double>(p.came_and_went_ns);
  if (summary) return fmt::format("        threads that came and went: {:.2f} s CPU (moves not known)\n", ns / 1e9);
  return fmt::format("        threads that came and went: {:.1f}% CPU (moves not known)\n",
                     seconds > 0 ? 100.0 * ns / 1e9 / seconds : 0.0);
}

// A name in its 15 columns, cut where longer (the full name is in --json).
std::string name(const std::string& comm) { return printable_cell(comm, 15); }
// A thread's row in an interval has 10 for it: its PID, TID and CPU take
// the rest of 80 columns.
std::string thread_name(const std::string& comm) { return printable_cell(comm, 10); }

// Words of `text` in lines of at most k_width columns.
std::string wrap(const std::string& text) {
  std::string out, line;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    std::string word = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? text.size() : end + 1;
    if (!line.empty() && line.size() + 1 + word.size() > k_width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line + "\n";
}

std::string header_text(const WatchHeader& h, double time, size_t processes, size_t threads, size_t unread) {
  return fmt::format("affix watch: {}; every {:g} s; at {:.1f} s\n", h.machine, h.interval, time) +
         wrap(h.mode) +
         fmt::format("{} process{}, {} thread{}{}; per second:\n", processes, processes == 1 ? "" : "es", threads,
                     threads == 1 ? "" : "s", unread_text(unread));
}

}  // namespace

std::string watch_text(const WatchHeader& header, const IntervalReport& report, const LevelMap& levels,
                       size_t max_rows) {
  size_t threads = 0, unread = 0;
  for (const auto& p : report.processes) threads += p.threads, unread += p.threads_unread;
  std::string out = header_text(header, report.time, report.processes.size(), threads, unread);
  bool came_and_went_any = std::any_of(report.processes.begin(), report.processes.end(),
                                       [](const ProcessReport& p) { return p.came_and_went_ns > 0; });
  if (!report.exact && header.mode.rfind("exact", 0) == 0)
    out += wrap(fmt::format("not exact in this interval: {}",
                            unread ? fmt::format("{} thread{} could not be read", unread, unread == 1 ? "" : "s")
                            : came_and_went_any ? "threads came and went between two samples, their moves not known"
                                                : "some moves counted from se.nr_migrations"));
  const double s = report.interval;
  std::vector<std::string> rows;  // each row with its detail line, if any
  if (header.threads) {
    out += fmt::format("    PID     TID COMM       CPU{} CPU%\n", k_titles);
    std::vector<std::pair<const ProcessReport*, const ThreadReport*>> all;
    for (const auto& p : report.processes)
      for (const auto& t : p.thread_list) all.emplace_back(&p, &t);
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& a, const auto& b) { return weight(a.second->activity) > weight(b.second->activity); });
    for (const auto& [p, t] : all) {
      rows.push_back(fmt::format("{:>7} {:>7} {} {:>3}{}\n", p->pid, t->tid, thread_name(t->comm),
                                 t->cpu >= 0 ? std::to_string(t->cpu) : "-",
                                 cells(t->activity, s, 100.0 * static_cast<double>(t->activity.cpu_ns) / 1e9 / s)));
    }
    for (const auto& p : report.processes)
      if (p.came_and_went_ns > 0)
        rows.push_back(fmt::format("{:>7} {}", p.pid, came_and_went(p, s, false).substr(8)));
  } else {
    out += fmt::format("    PID COMM           {} CPU%\n", k_titles);
    std::vector<const ProcessReport*> all;
    for (const auto& p : report.processes) all.push_back(&p);
    std::stable_sort(all.begin(), all.end(),
                     [](const auto* a, const auto* b) { return weight(a->activity) > weight(b->activity); });
    for (const auto* p : all) {
      rows.push_back(fmt::format("{:>7} {}{}\n", p->pid, name(p->comm),
                                 cells(p->activity, s, 100.0 * static_cast<double>(p->activity.cpu_ns) / 1e9 / s)) +
                     detail(*p, levels) + came_and_went(*p, s, false));
    }
  }
  // Rows while their lines fit in max_rows (a process's row is 2 lines, 3
  // under weighted interleave; at least one row).
  size_t shown = rows.size();
  if (max_rows != 0) {
    size_t lines = 0;
    for (shown = 0; shown < rows.size(); ++shown) {
      size_t n = static_cast<size_t>(std::count(rows[shown].begin(), rows[shown].end(), '\n'));
      if (shown > 0 && lines + n > max_rows) break;
      lines += n;
    }
  }
  for (size_t i = 0; i < shown; ++i) out += rows[i];
  if (shown < rows.size()) out += fmt::format("({} more rows)\n", rows.size() - shown);
  return out;
}

std::string watch_text_summary(const WatchHeader& header, const WatchSummary& summary, const LevelMap& levels) {
  std::string out = fmt::format("summary of {:.1f} s ({}); per second of the time each was watched:\n",
                                summary.duration, summary.exact ? "exact" : "not exact");
  out += fmt::format("    PID COMM           {} CPU s\n", k_titles);
  std::vector<const ProcessReport*> all;
  for (const auto& p : summary.processes) all.push_back(&p);
  std::stable_sort(all.begin(), all.end(),
                   [](const auto* a, const auto* b) { return weight(a->activity) > weight(b->activity); });
  for (const auto* p : all) {
    out += fmt::format("{:>7} {}{}\n", p->pid, name(p->comm),
                       cells(p->activity, p->seconds, static_cast<double>(p->activity.cpu_ns) / 1e9));
    out += detail(*p, levels) + came_and_went(*p, p->seconds, true);
    if (!header.threads || p->thread_list.empty()) continue;
    out += "        its threads (TID COMM ...):\n";
    for (const auto& t : p->thread_list) {
      out += fmt::format("{:>7} {}{}{}\n", t.tid, name(t.comm),
                         cells(t.activity, p->seconds, static_cast<double>(t.activity.cpu_ns) / 1e9),
                         t.exited ? " exited" : "");
    }
  }
  if (summary.unlisted) out += fmt::format("({} more processes exited, not listed)\n", summary.unlisted);
  if (summary.command)
    out += fmt::format("the command (PID {}) ended with exit status {}\n", summary.command->pid, summary.command->status);
  return out;
}

}  // namespace affix
