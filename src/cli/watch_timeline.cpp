#include "watch_timeline.hpp"

#include <fmt/format.h>

#include "text.hpp"

namespace affix {

void TimelineRecorder::add(const IntervalReport& report) {
  if (m_ends.size() >= k_timeline_intervals) {
    ++m_intervals_left_out;
    return;
  }
  size_t i = m_ends.size();
  m_ends.push_back(report.time);
  for (const ProcessReport& p : report.processes) {
    for (const ThreadReport& t : p.thread_list) {
      auto key = std::make_pair(p.pid, t.tid);
      auto it = m_rows.find(key);
      if (it == m_rows.end()) {
        if (m_rows.size() >= k_timeline_rows) {
          if (m_seen_left_out.emplace(key, true).second) ++m_rows_left_out;
          continue;
        }
        TimelineRow row;
        row.pid = p.pid;
        row.tid = t.tid;
        row.comm = t.comm;
        it = m_rows.emplace(key, std::move(row)).first;
      }
      TimelineRow& row = it->second;
      row.cpu.resize(i, -2);
      row.moves.resize(i);
      row.cpu.push_back(t.cpu);
      row.moves.push_back(t.activity.migrations);
    }
    if (!p.pages) continue;
    auto it = m_pages.find(p.pid);
    if (it == m_pages.end()) {
      if (m_pages.size() >= k_timeline_processes) {
        if (m_pages_seen_left_out.emplace(p.pid, true).second) ++m_pages_left_out;
        continue;
      }
      TimelinePages pages;
      pages.pid = p.pid;
      pages.comm = p.comm;
      it = m_pages.emplace(p.pid, std::move(pages)).first;
    }
    it->second.pages.resize(i);
    std::map<unsigned, uint64_t> per_node(p.pages->begin(), p.pages->end());
    it->second.pages.push_back(std::move(per_node));
  }
}

Timeline TimelineRecorder::finish(const Topology& topo) const {
  Timeline t;
  t.ends = m_ends;
  for (const auto& [key, row] : m_rows) {
    TimelineRow r = row;
    r.cpu.resize(m_ends.size(), -2);
    r.moves.resize(m_ends.size());
    t.rows.push_back(std::move(r));
  }
  for (const auto& [pid, pages] : m_pages) {
    TimelinePages p = pages;
    p.pages.resize(m_ends.size());
    t.pages.push_back(std::move(p));
  }
  t.node_of_cpu.assign(topo.cpus.size(), -1);
  for (const CpuInfo& c : topo.cpus) t.node_of_cpu[c.cpu] = c.node;
  if (m_rows_left_out)
    t.notes.push_back(fmt::format("{} not drawn (at most {} rows)", plural(m_rows_left_out, "thread", "threads"),
                                  k_timeline_rows));
  if (m_intervals_left_out)
    t.notes.push_back(fmt::format("the last {} not drawn (at most {})", plural(m_intervals_left_out, "interval", "intervals"),
                                  k_timeline_intervals));
  if (m_pages_left_out)
    t.notes.push_back(fmt::format("the pages of {} not drawn (at most {})",
                                  plural(m_pages_left_out, "process", "processes"), k_timeline_processes));
  if (m_ends.empty()) t.notes.push_back("no interval ended: nothing to draw");
  return t;
}

}  // namespace affix
