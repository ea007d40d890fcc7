#pragma once
// The scheduling options of run, explain and pin (affix(1), SCHEDULING):
// --policy, --nice, --sched-slice and --uclamp, parsed into a SchedRequest.
// Parsing only; each parser throws Error(Usage) quoting the value.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sched.hpp"

namespace affix {

// other | batch | idle | fifo:P | rr:P | deadline:RUNTIME/DEADLINE[/PERIOD]
// (P from 1 to 99; each time a number and its unit, ns, us, ms or s:
// 10ms, 0.5ms, 200us; PERIOD defaults to DEADLINE).
PolicyRequest parse_policy_option(const std::string& text);
// -20 to 19.
int parse_nice_option(const std::string& text);
// Milliseconds from 0.1 to 100 ("3", "0.5"), or a time with its unit
// ("500us"): the kernel's bounds of a slice (kernel/sched/syscalls.c).
uint64_t parse_sched_slice_option(const std::string& text);
// MIN:MAX, 0 to 1024 each (the kernel's SCHED_CAPACITY_SCALE), MIN <= MAX.
void parse_uclamp_option(const std::string& text, SchedRequest& into);

// A time and its unit ("10ms", "0.5ms", "1.024us", "2s") in nanoseconds;
// nullopt where it is none, has no unit, is not a whole number of
// nanoseconds, or is above an hour. `bare_unit_ns`: what a number without
// a unit counts (0: a unit is required).
std::optional<uint64_t> parse_duration(std::string_view text, uint64_t bare_unit_ns = 0);

// The options together: --nice and --sched-slice go with the other and
// batch policies only. Throws Error(Usage).
void check_sched_options(const SchedRequest& request);

}  // namespace affix
