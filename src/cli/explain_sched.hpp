#pragma once
// What explain says of the scheduling options (explain_output.cpp uses
// these): its "sched" line, its "sched" JSON object, the systemd lines
// (CPUSchedulingPolicy=, CPUSchedulingPriority=, Nice=), and, on stderr,
// what a launcher's lines cannot say.

#include <string>
#include <vector>

#include "command_line.hpp"  // AsFormat
#include "json.hpp"
#include "sched.hpp"

namespace affix {

// "policy fifo:50, nice ..." and, for a deadline policy, the order of the
// calls: "policy deadline:2ms/10ms/10ms (set after the CPUs: ...)".
std::string explain_sched_line(const SchedRequest& request);

// {"policy": "fifo"|null, "priority": 50|null, "runtime_ns", "deadline_ns",
// "period_ns": N|null (deadline), "nice": N|null, "slice_ns": N|null,
// "uclamp": {"min": N, "max": N}|null, "cpus_first": bool}.
void write_sched_json(JsonWriter& j, const SchedRequest& request);

// systemd's lines for the request: CPUSchedulingPolicy= (other, batch,
// idle, fifo, rr), CPUSchedulingPriority= (fifo, rr), Nice=; none for what
// systemd cannot set.
std::string systemd_sched_lines(const SchedRequest& request);

// What the lines of `format` leave out of the request: systemd, a deadline
// policy, the EEVDF slice and the clamps; the other launchers, all of it.
std::vector<std::string> sched_as_warnings(const SchedRequest& request, AsFormat format);

}  // namespace affix
