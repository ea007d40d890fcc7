#pragma once
// What `affix top` shows for one interval: every CPU (busy %, the threads
// that ran on it, IRQs per second, marks) and every process that ran. The
// sampler (top_sampler.cpp) fills a TopFrame from /proc and /sys; the
// printers (--once text and JSON) and the live screen (top_screen.cpp, over
// ncurses) only read it. One frame, three readers: the screen never reads
// /proc itself.

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cpuset.hpp"
#include "draw_box.hpp"
#include "migration_level.hpp"
#include "proc.hpp"

namespace affix {

// A thread that ran on a CPU in the interval.
struct TopThread {
  pid_t pid = 0;
  pid_t tid = 0;
  std::string comm;      // as the kernel has it; printers escape it
  double percent = 0;    // of one CPU, over the interval
};

struct TopCpu {
  unsigned cpu = 0;
  // Machine-wide indexes as Topology numbers them (CpuInfo::node is the
  // kernel's node number; socket, llc and core are Topology's unit
  // indexes); -1 where unknown.
  long node = -1;
  long socket = -1;
  long llc = -1;
  long core = -1;
  bool online = true;
  // Percent of the interval from /proc/stat (nullopt where the CPU has no
  // line there: offline, or the first frame of a live view).
  std::optional<double> busy;
  double user = 0, system = 0, irq = 0, softirq = 0;  // parts of busy
  std::optional<double> irqs_per_s;  // /proc/interrupts' column for the CPU
  // "offline", "isolated", "nohz_full", "shielded" (in that order, those
  // that apply).
  std::vector<std::string> marks;
  // The threads whose CPU time moved in the interval and that were last on
  // this CPU, most CPU time first.
  std::vector<TopThread> threads;
};

struct TopProcess {
  pid_t pid = 0;
  std::string comm;
  double percent = 0;       // CPU % of one CPU over the interval
  unsigned threads = 0;
  Migrations migrations;    // in the interval; per second: / TopFrame::interval
  std::optional<NodePages> pages;  // anonymous pages per node; nullopt where unread
  // The nodes of the CPUs its threads ran on in the interval (where none
  // ran: of the CPUs they last ran on), as watch has them.
  CpuSet ran_nodes;
  // Of the anonymous pages, the share (0 to 1) on nodes other than the one
  // its threads ran on; nullopt where unknown, and where they ran on
  // several nodes (numa_maps does not say whose pages are whose: the share
  // is not defined, as watch says).
  std::optional<double> remote_share;
  CpuSet allowed;           // the main thread's CPU list
  bool pinned = false;      // allowed is narrower than every online CPU
};

struct TopFrame {
  double time = 0;          // seconds since the first sample
  double interval = 0;      // seconds this frame covers
  std::vector<TopCpu> cpus;          // every possible CPU, ascending
  std::vector<TopProcess> processes; // those whose CPU time moved, most CPU first
  std::vector<std::string> warnings; // what could not be read, once each
  // The machine as src/draw's tree of boxes (machine_picture(topology):
  // nesting and collapsed runs), which the live screen groups its CPU pane
  // by; null: the screen builds draw's tree from the CPUs' places.
  std::shared_ptr<const Box> machine;
  // Where the threads' figures come from: "events" (the scheduler's
  // context switches, TopSampler::use_events) or "proc" (every thread read).
  std::string source = "proc";
};

// Where the screen gets its frames: the sampler, or a test's fake.
class TopSource {
public:
  virtual ~TopSource() = default;
  // The frame for the time since the last call (the first call reads the
  // starting point and returns a frame with no busy figures).
  virtual TopFrame next() = 0;
};

}  // namespace affix
