#pragma once
// What every thread did in one interval, from the scheduler's context
// switches on every CPU (SwitchEvents, perf_events.hpp): `affix top --once`
// where the kernel gives them, instead of reading every thread at the start
// and at the end.
//
// A thread runs on a CPU from its switch-in there to its switch-out; one
// whose first record on a CPU is a switch-out ran there since the interval
// began, one switched in and never out runs until its end. A CPU on which
// nothing switched during the interval is not seen at all: the caller makes
// a switch on every CPU at the end (it visits each one). A move is a
// switch-in on another CPU than the one the thread last ran on in the
// interval; a move at its first run in the interval, from where it ran
// before it, is not seen (no record says where that was).

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <vector>

#include "cpuset.hpp"
#include "migration_level.hpp"
#include "perf_events.hpp"

namespace affix {

struct SwitchThread {
  pid_t pid = 0;         // its process
  uint64_t cpu_ns = 0;   // time it ran in the interval
  long cpu = -1;         // the CPU it last ran on
  CpuSet ran_on;         // every CPU it ran on
  Migrations migrations; // its moves, by level
};

// The threads that ran between `from_ns` and `to_ns` (CLOCK_MONOTONIC), by
// TID; the CPUs' idle tasks left out. `records`: each CPU's in order, the
// CPUs in any order (they are merged by time).
std::map<pid_t, SwitchThread> tally_switches(std::vector<SwitchRecord> records, uint64_t from_ns, uint64_t to_ns,
                                             const LevelMap& levels);

}  // namespace affix
