#pragma once
// Where a watched process's memory is: its pages per node from numa_maps,
// anonymous and file pages apart (NumaUsage), and its anonymous pages on
// nodes where none of its threads ran (a file's page cache sits where the
// file was first read, whoever reads it: not the process's placement).
// numa_maps walks every page of the process (25 ms for one of 10,000
// threads, whose 20,000 mappings are its stacks), so a process's numa_maps
// is read at most once per 50 times its last read took: at most 2% of the
// time.

#include <sys/types.h>

#include <cstdint>
#include <optional>

#include "cpuset.hpp"
#include "proc.hpp"
#include "sysroot.hpp"
#include "topology.hpp"
#include "watch_report.hpp"

namespace affix {

class ProcessPages {
public:
  // Reads numa_maps (and maps) where it is due at `time` (seconds); else,
  // and where it cannot be read now, the pages last read. `tid`: the
  // thread whose files are read (the process's own where it is `pid`; a
  // live thread's where the main thread is a zombie, whose are empty).
  const std::optional<NumaUsage>& update(const SysRoot& root, pid_t pid, pid_t tid, double time);
  // When it is read next: `time` plus 50 times `took` (seconds).
  void schedule(double time, double took) { m_due = time + k_spacing * took; }
  const std::optional<NumaUsage>& last() const { return m_pages; }

private:
  static constexpr double k_spacing = 50;
  std::optional<NumaUsage> m_pages;
  double m_due = 0;
};

// The pages (of `pages`: the anonymous ones) on nodes that none of
// `cpus_ran` belongs to; nullopt where the pages or the CPUs are not known.
std::optional<uint64_t> remote_pages(const std::optional<NodePages>& pages, const CpuSet& cpus_ran,
                                     const Topology& topo);

// The NUMA nodes of `cpus`.
CpuSet nodes_of(const CpuSet& cpus, const Topology& topo);

// The weighted interleave of a process (NumaUsage::weighted) against the
// weights the kernel has; nullopt where no mapping is under it (or its
// nodes cannot be read).
std::optional<WeightedShare> weighted_share(const NumaUsage& usage, const InterleaveWeights& weights);

}  // namespace affix
