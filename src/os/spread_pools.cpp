// The pools of run --spread (spread_pools.hpp).
#include "spread_pools.hpp"

#include <algorithm>
#include <utility>

namespace affix {

void SpreadPools::start(pid_t main, CpuList cpus) {
  m_threads[main] = Thread{std::move(cpus), m_plan.cpus};
}

std::optional<unsigned> SpreadPools::place(pid_t creator, pid_t tid, const CpuList& inherited) {
  auto it = m_threads.find(creator);
  CpuList pool;
  if (it != m_threads.end() && it->second.given == inherited) {
    pool = it->second.pool;
  } else {
    for (unsigned cpu : m_plan.cpus)
      if (std::binary_search(inherited.begin(), inherited.end(), cpu)) pool.push_back(cpu);
    // The creator's list as the command set it is its own from now on: its
    // next threads go on counting in the same pool.
    if (it != m_threads.end()) it->second = Thread{inherited, pool};
  }
  std::optional<unsigned> cpu;
  if (!pool.empty()) {
    size_t k = m_created[pool]++;
    cpu = pool[(k / m_plan.per_cpu) % pool.size()];
  }
  m_threads[tid] = Thread{cpu ? CpuList{*cpu} : inherited, std::move(pool)};
  return cpu;
}

}  // namespace affix
