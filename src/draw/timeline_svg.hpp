#pragma once
// `watch --svg FILE` (affix(1), PICTURES, "Timeline"): one row per thread,
// the CPU it was last on at each interval's end coloured by that CPU's
// node, its moves in the interval marked by the widest level they crossed,
// and each process's pages per node per interval as stacked bars.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "migration_level.hpp"

namespace affix {

struct TimelineRow {
  pid_t pid = 0, tid = 0;
  std::string comm;                 // the thread's (as read: escaped when written)
  std::vector<long> cpu;            // per interval: its last CPU; -1 unknown, -2 not there
  std::vector<Migrations> moves;    // per interval
};

struct TimelinePages {
  pid_t pid = 0;
  std::string comm;
  std::vector<std::map<unsigned, uint64_t>> pages;  // per interval, node -> pages (empty: unknown)
};

struct Timeline {
  std::vector<double> ends;          // each interval's end, seconds since the start
  std::vector<TimelineRow> rows;     // ascending PID, then TID
  std::vector<TimelinePages> pages;  // ascending PID
  std::vector<long> node_of_cpu;     // CPU -> node (-1 unknown)
  std::vector<std::string> notes;    // what was left out
};

// Rows and intervals drawn at most (those beyond are counted in a note).
constexpr size_t k_timeline_rows = 256;
constexpr size_t k_timeline_intervals = 3600;

std::string timeline_svg(const Timeline& timeline, const std::string& heading);

// A node's colour on the timeline: the Okabe-Ito palette in turn
// (node 0 "#0072B2", 1 "#E69F00", ...); grey for -1.
const char* node_colour(long node);

}  // namespace affix
