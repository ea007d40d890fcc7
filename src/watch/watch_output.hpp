#pragma once
// How `affix watch` prints its reports: JSON Lines (one object per
// interval, then {"summary": ...}), or text for people: a screen refreshed
// in place on a terminal, plain blocks elsewhere, and the summary table.

#include <string>

#include "migration_level.hpp"
#include "watch_report.hpp"

namespace affix {

// One line (with its newline) per interval / for the summary.
std::string watch_json_line(const IntervalReport& report);
std::string watch_json_summary(const WatchSummary& summary);

struct WatchHeader {
  std::string machine;  // "2 sockets, 4 nodes, 16 CPUs"
  double interval = 1;
  std::string mode;     // "exact" or "sampled: why, and how to get exact counts"
  bool threads = false; // one row per thread
};

// One interval as text: the header, then one row per process (per thread
// with `threads`), sorted by cross-socket, then cross-node, then total
// migrations per second; WAIT in ms per second beside CPU%. `max_rows` (0:
// all) cuts the rows for a screen.
std::string watch_text(const WatchHeader& header, const IntervalReport& report, const LevelMap& levels,
                       size_t max_rows = 0);
// The summary table: per process (and its threads with `threads`) the rates
// over the time it was watched (run-queue wait included), CPU time, pages
// per node, remote share.
std::string watch_text_summary(const WatchHeader& header, const WatchSummary& summary,
                               const LevelMap& levels);

}  // namespace affix
