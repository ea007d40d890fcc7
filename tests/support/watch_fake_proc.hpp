#pragma once
// A fake /proc for the watch tests (tests/watch_thread_test.cpp,
// tests/watch_tracker_test.cpp): processes and threads with their stat,
// sched and schedstat files, on a two-socket machine, and lookups in the
// reports.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "temp_root.hpp"
#include "topo_builder.hpp"
#include "watch_report.hpp"

namespace affix::test {

// 2 sockets x 2 nodes x 4 cores x 2 threads, two L3 per node, threads of a
// core consecutive: 0-1 smt, 0-2 core, 0-4 llc, 0-8 node, 0-16 socket.
inline Topology machine() {
  affix::test::TopoSpec spec;
  spec.sockets = 2;
  spec.nodes_per_socket = 2;
  spec.cores_per_node = 4;
  spec.llcs_per_node = 2;
  spec.smt = 2;
  spec.numbering = affix::test::Numbering::Packed;
  return affix::test::build(spec);
}

struct Counters {
  uint64_t migrations = 0, voluntary = 0, involuntary = 0, run_ns = 0;
  uint64_t wait_ns = 0;  // schedstat's second field: run-queue wait
};

// `ticks`: utime (field 14), the CPU time in clock ticks.
inline std::string stat_line(pid_t id, const std::string& comm, long threads, long cpu, unsigned long long start = 100,
                             unsigned long long ticks = 0, char state = 'S') {
  return fmt::format("{} ({}) {} 1 {} {} 0 -1 4194560 0 0 0 0 {} 0 0 0 20 0 {} 0 {} 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 {} 0 0\n",
                     id, comm, state, id, id, ticks, threads, start, cpu);
}

// A fake /proc: every thread's stat line carries its process's thread
// count and start time, as the kernel's do.
struct FakeProc {
  TempRoot root;
  struct Main {
    std::string comm;
    long threads = 1;
    unsigned long long start = 100;
    long cpu = 0;
  };
  std::map<pid_t, Main> mains;
  // `ticks`: the process's CPU time (its stat's utime), ended threads' included.
  void process(pid_t pid, const std::string& comm, long threads, unsigned long long start = 100,
               unsigned long long ticks = 0) {
    Main& m = mains[pid];
    m.comm = comm;
    m.threads = threads;
    m.start = start;
    root.write(fmt::format("proc/{}/stat", pid), stat_line(pid, comm, threads, 0, start, ticks));
    write_main(pid);
  }
  void write_main(pid_t pid) {
    const Main& m = mains[pid];
    if (std::filesystem::exists(root.path() + fmt::format("/proc/{}/task/{}", pid, pid)))
      root.write(fmt::format("proc/{}/task/{}/stat", pid, pid), stat_line(pid, m.comm, m.threads, m.cpu, m.start));
  }
  void thread(pid_t pid, pid_t tid, long cpu, Counters c, const std::string& comm = "worker") {
    std::string dir = fmt::format("proc/{}/task/{}/", pid, tid);
    const Main& m = mains[pid];
    root.write(dir + "stat", stat_line(tid, tid == pid ? m.comm : comm, m.threads, cpu, m.start));
    if (tid == pid) mains[pid].cpu = cpu;
    root.write(dir + "sched", fmt::format("{} ({}, #threads: 1)\n---\nse.sum_exec_runtime : {}.{:06}\n"
                                          "se.nr_migrations : {}\nnr_switches : 0\nnr_voluntary_switches : {}\n"
                                          "nr_involuntary_switches : {}\n",
                                          comm, tid, c.run_ns / 1000000, c.run_ns % 1000000, c.migrations,
                                          c.voluntary, c.involuntary));
    root.write(dir + "schedstat", fmt::format("{} {} {}\n", c.run_ns, c.wait_ns, c.voluntary + c.involuntary));
  }
  void remove(const std::string& rel) { std::filesystem::remove_all(root.path() + "/" + rel); }
};

inline const ProcessReport& process_of(const IntervalReport& r, pid_t pid) {
  for (const auto& p : r.processes)
    if (p.pid == pid) return p;
  FAIL("process " << pid << " not reported");
  throw;
}

inline const ThreadReport& thread_of(const ProcessReport& p, pid_t tid) {
  for (const auto& t : p.thread_list)
    if (t.tid == tid) return t;
  FAIL("thread " << tid << " not reported");
  throw;
}

// Process 100: threads 100 (idle, CPU 0) and 101 (CPU 0).
inline void two_threads(FakeProc& f) {
  f.process(100, "server", 2);
  f.thread(100, 100, 0, {0, 10, 1, 5000000}, "server");
  f.thread(100, 101, 0, {0, 20, 2, 7000000});
}


}  // namespace affix::test
