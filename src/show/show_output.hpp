#pragma once
// `affix show` output: text for people (threads grouped when they share a
// CPU list) and the JSON document of affix(1), OUTPUT.

#include <string>
#include <vector>

#include "process_view.hpp"

namespace affix {

// One block per process: its header (the union of its threads' CPU lists,
// "(mixed)" where they differ; the nodes of its cpuset; the memory policy
// covering most of its pages; its anonymous and file pages per node), its
// command line (cut after 80 columns, "[comm]" where empty; no line where
// unknown), then its threads grouped by CPU list and scheduling policy
// (sched_attr_text, in a POLICY column where some thread's is known; "-"
// for a thread whose is not), TIDs cut after about 30 characters
// ("+N more"), a last CPU outside the group's list marked '*':
//   4242 nginx  cpus 0-3  cpuset nodes 0  mem policy default  anon 0:1200 1:7; file 0:310
//     cmd nginx: master process /usr/sbin/nginx
//     CPUS  THREADS  TIDS       LAST CPUS  NODES  POLICY  COMM
//     0-3   2        4242-4243  0,2        0      other   nginx,worker
// A view of depth N (show --tree) has its block indented by 2N spaces.
// Names (comm, cmdline) are printed through printable().
std::string format_show_text(const std::vector<ProcessView>& views);

// show --pinned: one line per process: PID, COMM, ALLOWED, PINNED (the
// groups of threads narrower than allowed, "1: 4243-4244"), CMD.
std::string format_pinned_text(const std::vector<ProcessView>& views);

// [{"pid", "ppid", "comm", "cmdline" ("" for a kernel thread or a zombie,
// null where unreadable), "cpus" (the union of the threads'), "mems",
// "mem_policy" | null, "threads": [{"tid", "comm", "cpus", "last_cpu",
// "last_cpu_stale", "last_node", "sched": {"policy", "priority", "nice",
// "slice_ns", "runtime_ns", "deadline_ns", "period_ns", "uclamp": {"min",
// "max"}, "text"} | null}] (every thread), "memory_pages",
// "anon_pages", "file_pages": {"0": N} | null, "allowed" (--pinned only),
// "children": [the same objects] (with `tree` only: views are then depth
// first, as read_process_tree gives them, and only those of depth 0 are
// elements of the array)}]
std::string format_show_json(const std::vector<ProcessView>& views, bool tree = false);

}  // namespace affix
