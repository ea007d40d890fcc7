#pragma once
// watch --svg FILE (affix(1), PICTURES, "Timeline"): the interval reports
// kept as a timeline (timeline_svg.hpp) while the watch runs: up to
// k_timeline_rows threads (those seen first) and k_timeline_intervals
// intervals, up to k_timeline_processes processes' pages; what is left
// out is counted and said under the picture.

#include <map>
#include <utility>

#include "timeline_svg.hpp"
#include "topology.hpp"
#include "watch_report.hpp"

namespace affix {

constexpr size_t k_timeline_processes = 16;

class TimelineRecorder {
public:
  void add(const IntervalReport& report);
  Timeline finish(const Topology& topo) const;

private:
  std::vector<double> m_ends;
  std::map<std::pair<pid_t, pid_t>, TimelineRow> m_rows;
  std::map<pid_t, TimelinePages> m_pages;
  size_t m_rows_left_out = 0, m_intervals_left_out = 0, m_pages_left_out = 0;
  std::map<std::pair<pid_t, pid_t>, bool> m_seen_left_out;
  std::map<pid_t, bool> m_pages_seen_left_out;
};

}  // namespace affix
