#pragma once
// `affix show` output: text for people (threads grouped when they share a
// CPU list) and the contract's JSON document.

#include <string>
#include <vector>

#include "process_view.hpp"

namespace affix {

// One block per process:
//   4242 nginx  cpus 0-3  mems 0  pages 0:1200 1:7
//     CPUS  THREADS  TIDS       LAST CPUS  NODES  COMM
//     0-3   2        4242-4243  0,2        0      nginx,worker
std::string format_show_text(const std::vector<ProcessView>& views);

// show --pinned: one line per process: PID, COMM, ALLOWED, PINNED (the
// groups of threads narrower than allowed, "1: 4243-4244").
std::string format_pinned_text(const std::vector<ProcessView>& views);

// [{"pid", "comm", "cpus", "mems", "threads": [{"tid", "comm", "cpus",
// "last_cpu", "last_node"}], "memory_pages": {"0": N} | null, "allowed"
// (--pinned only)}]
std::string format_show_json(const std::vector<ProcessView>& views);

}  // namespace affix
