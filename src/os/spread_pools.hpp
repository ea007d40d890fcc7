#pragma once
// run --spread over a command that sets its own CPUs (affix(1), --spread):
// `affix --spread all -- taskset -c 1 ./prog`, an inner affix, a program
// that calls sched_setaffinity before it creates threads. The follower
// (thread_follow.cpp) spreads each new thread over its creator's *pool*: the
// selection in --order for the command's main thread and every thread affix
// placed; where the command changed its creator's CPU list itself, the
// selection's CPUs in that list (what the command asked for is kept), or
// none: the thread is left where its creator is. Pure: no system call, so
// the rule is unit-tested (tests/spread_pools_test.cpp).

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "thread_follow.hpp"

namespace affix {

using CpuList = std::vector<unsigned>;  // a thread's CPU list: ascending, no duplicates

class SpreadPools {
public:
  explicit SpreadPools(SpreadPlan plan);

  // The command's main thread and the CPU list affix gave it (the selection).
  void start(pid_t main, CpuList cpus);

  // The CPU for `tid`, a new thread that `creator` made (0 where not known),
  // whose CPU list at its creation -- its creator's then -- is `inherited`:
  //   - the creator's list is the one affix gave it (or, for the main thread,
  //     left it): the next CPU of the creator's pool;
  //   - the command changed it (or the creator is not known): the creator's
  //     pool becomes the selection's CPUs in `inherited`, in --order, and the
  //     new thread gets the next of those;
  //   - no CPU of the selection is in `inherited`: nullopt, the thread keeps
  //     `inherited`.
  // Each pool counts its own threads: N consecutive per CPU, round-robin.
  std::optional<unsigned> place(pid_t creator, pid_t tid, const CpuList& inherited);

  // `tid` has exited (its number may be given to a new thread).
  void forget(pid_t tid) { m_threads.erase(tid); }

private:
  struct Pool {
    CpuList cpus;        // in --order
    size_t created = 0;  // threads placed in it
  };
  struct Thread {
    CpuList given;  // the list affix set (or left) on it
    size_t pool;    // where the threads it creates go (m_pools)
  };
  size_t pool_of(CpuList cpus);
  SpreadPlan m_plan;
  std::unordered_map<pid_t, Thread> m_threads;
  std::vector<Pool> m_pools;             // [0]: the selection
  std::map<CpuList, size_t> m_pool_ids;  // a pool's CPUs -> its index
};

}  // namespace affix
