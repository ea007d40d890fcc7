// `affix watch` for people: one block (or screen) per interval, and the
// summary table. Names from processes go through printable().
#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "text.hpp"
#include "watch_output.hpp"

namespace affix {

namespace {

constexpr Crossing k_columns[] = {Crossing::Socket, Crossing::Node, Crossing::Llc, Crossing::Core,
                                  Crossing::Smt};

double per_second(uint64_t n, double seconds) { return seconds > 0 ? static_cast<double>(n) / seconds : 0.0; }

// socket, node, total: the order rows are shown in (most first).
std::tuple<uint64_t, uint64_t, uint64_t> weight(const Activity& a) {
  return {a.migrations[Crossing::Socket], a.migrations[Crossing::Node], a.migrations.total()};
}

std::string rates(const Activity& a, double seconds) {
  std::string out = fmt::format("{:7.1f}", per_second(a.migrations.total(), seconds));
  for (Crossing c : k_columns) out += fmt::format(" {:6.1f}", per_second(a.migrations[c], seconds));
  out += fmt::format(" {:7.1f} {:7.1f}", per_second(a.voluntary, seconds), per_second(a.involuntary, seconds));
  return out;
}

const char* k_rate_titles = "  MIG/s SOCKET   NODE    LLC   CORE    SMT  VCSW/s  ICSW/s";

std::string where(const CpuSet& cpus, const LevelMap& levels) {
  return cpus.empty() ? "-" : levels.describe(cpus);
}

std::string pages_text(const ProcessReport& p) {
  if (!p.pages) return "-";
  std::string out;
  for (const auto& [node, pages] : *p.pages) {
    if (pages == 0) continue;
    out += fmt::format("{}{}:{}", out.empty() ? "" : " ", node, pages);
  }
  return out.empty() ? "0" : out;
}

std::string remote_text(const ProcessReport& p) {
  if (!p.remote_pages || !p.pages) return "-";
  uint64_t total = 0;
  for (const auto& [node, pages] : *p.pages) total += pages;
  if (total == 0) return "0%";
  return fmt::format("{:.1f}%", 100.0 * static_cast<double>(*p.remote_pages) / static_cast<double>(total));
}

std::string name(const std::string& comm) { return fmt::format("{:<16}", printable(comm)); }

std::string header_text(const WatchHeader& h, double time, size_t processes, size_t threads) {
  return fmt::format("affix watch: {}; every {:g} s; {}\n"
                     "time {:.1f} s; {} process{}, {} thread{}\n",
                     h.machine, h.interval, h.mode, time, processes, processes == 1 ? "" : "es", threads,
                     threads == 1 ? "" : "s");
}

}  // namespace

std::string watch_text(const WatchHeader& header, const IntervalReport& report, const LevelMap& levels,
                       size_t max_rows) {
  size_t threads = 0;
  for (const auto& p : report.processes) threads += p.threads;
  std::string out = header_text(header, report.time, report.processes.size(), threads);
  if (!report.exact && header.mode.rfind("exact", 0) == 0)
    out += "not exact in this interval: some moves were counted from se.nr_migrations\n";
  const double s = report.interval;
  std::vector<std::string> rows;
  if (header.threads) {
    out += fmt::format("\n    PID     TID COMM              CPU{}   CPU%\n", k_rate_titles);
    std::vector<std::pair<const ProcessReport*, const ThreadReport*>> all;
    for (const auto& p : report.processes)
      for (const auto& t : p.thread_list) all.emplace_back(&p, &t);
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& a, const auto& b) { return weight(a.second->activity) > weight(b.second->activity); });
    for (const auto& [p, t] : all) {
      rows.push_back(fmt::format("{:7} {:7} {} {:>4}{} {:6.1f}{}\n", p->pid, t->tid, name(t->comm),
                                 t->cpu >= 0 ? std::to_string(t->cpu) : "-", rates(t->activity, s),
                                 100.0 * static_cast<double>(t->activity.cpu_ns) / 1e9 / s,
                                 t->exited ? "  (exited)" : ""));
    }
  } else {
    out += fmt::format("\n    PID COMM              THR{}   CPU%  {:<16} {:<16} REMOTE\n", k_rate_titles, "RAN ON",
                       "PAGES/NODE");
    std::vector<const ProcessReport*> all;
    for (const auto& p : report.processes) all.push_back(&p);
    std::stable_sort(all.begin(), all.end(),
                     [](const auto* a, const auto* b) { return weight(a->activity) > weight(b->activity); });
    for (const auto* p : all) {
      rows.push_back(fmt::format("{:7} {} {:4}{} {:6.1f}  {:<16} {:<16} {}{}\n", p->pid, name(p->comm), p->threads,
                                 rates(p->activity, s),
                                 100.0 * static_cast<double>(p->activity.cpu_ns) / 1e9 / s,
                                 where(p->cpus_ran, levels), pages_text(*p), remote_text(*p),
                                 p->exited ? "  (exited)" : ""));
    }
  }
  size_t shown = max_rows == 0 ? rows.size() : std::min(rows.size(), max_rows);
  for (size_t i = 0; i < shown; ++i) out += rows[i];
  if (shown < rows.size()) out += fmt::format("({} more rows)\n", rows.size() - shown);
  return out;
}

std::string watch_text_summary(const WatchHeader& header, const WatchSummary& summary, const LevelMap& levels) {
  std::string out = fmt::format("summary: {:.1f} s, {}; rates per second of the time each process was watched\n",
                                summary.duration, summary.exact ? "exact" : "not exact (see the header)");
  out += fmt::format("    PID COMM              THR{}  CPU s  {:<16} {:<16} REMOTE\n", k_rate_titles, "RAN ON",
                     "PAGES/NODE");
  std::vector<const ProcessReport*> all;
  for (const auto& p : summary.processes) all.push_back(&p);
  std::stable_sort(all.begin(), all.end(),
                   [](const auto* a, const auto* b) { return weight(a->activity) > weight(b->activity); });
  for (const auto* p : all) {
    out += fmt::format("{:7} {} {:4}{} {:6.2f}  {:<16} {:<16} {}{}\n", p->pid, name(p->comm), p->threads,
                       rates(p->activity, p->seconds), static_cast<double>(p->activity.cpu_ns) / 1e9,
                       where(p->cpus_ran, levels), pages_text(*p), remote_text(*p), p->exited ? "  (exited)" : "");
    if (!header.threads) continue;
    for (const auto& t : p->thread_list) {
      out += fmt::format("        {:7} {} {}{}\n", t.tid, name(t.comm), rates(t.activity, p->seconds),
                         t.exited ? "  (exited)" : "");
    }
  }
  if (summary.unlisted) out += fmt::format("({} more processes exited, not listed)\n", summary.unlisted);
  return out;
}

}  // namespace affix
