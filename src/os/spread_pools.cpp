// The pools of run --spread (spread_pools.hpp).
#include "spread_pools.hpp"

#include <algorithm>
#include <utility>

namespace affix {

SpreadPools::SpreadPools(SpreadPlan plan) : m_plan(std::move(plan)) { pool_of(m_plan.cpus); }

size_t SpreadPools::pool_of(CpuList cpus) {
  auto [it, added] = m_pool_ids.emplace(cpus, m_pools.size());
  if (added) m_pools.push_back(Pool{std::move(cpus), 0});
  return it->second;
}

void SpreadPools::start(pid_t main, CpuList cpus) { m_threads[main] = Thread{std::move(cpus), 0}; }

std::optional<unsigned> SpreadPools::place(pid_t creator, pid_t tid, const CpuList& inherited) {
  auto it = m_threads.find(creator);
  size_t pool = 0;
  if (it != m_threads.end() && it->second.given == inherited) {
    pool = it->second.pool;
  } else {
    CpuList cpus;
    for (unsigned cpu : m_plan.cpus)
      if (std::binary_search(inherited.begin(), inherited.end(), cpu)) cpus.push_back(cpu);
    pool = pool_of(std::move(cpus));
    // The creator's list as the command set it is its own from now on: its
    // next threads go on counting in the same pool.
    if (it != m_threads.end()) it->second = Thread{inherited, pool};
  }
  Pool& p = m_pools[pool];
  std::optional<unsigned> cpu;
  if (!p.cpus.empty()) cpu = p.cpus[(p.created++ / m_plan.per_cpu) % p.cpus.size()];
  m_threads[tid] = Thread{cpu ? CpuList{*cpu} : inherited, pool};
  return cpu;
}

}  // namespace affix
