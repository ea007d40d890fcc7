#pragma once
// CPU kinds (core types) on hybrid machines, found and ranked as hwloc 2.9
// finds and ranks its cpukinds (hwloc/topology-linux.c look_sysfscpukinds,
// hwloc/cpukinds.c), then listed most performant first:
//
// 1. Per online CPU: cpufreq/cpuinfo_max_freq (where no CPU has it,
//    acpi_cppc/highest_perf stands in, an affix extension), cpufreq/base_frequency,
//    cpu_capacity, and its core type from /sys/devices/cpu_atom/cpus and
//    cpu_core/cpus (as hwloc 2.10 and later read them).
// 2. Where every CPU that has a maximum frequency also has a base frequency,
//    the CPUs of one base frequency whose maximum frequencies differ by less
//    than 10% get the lowest of them (and the lowest capacity): turbo boost
//    favoured cores are not a kind of their own.
// 3. CPUs are grouped by each attribute in turn (maximum then base
//    frequency in MHz, capacity, core type), each group splitting the kinds
//    found so far (hwloc_internal_cpukinds_register).
// 4. The kinds are ranked by capacity where every kind has one and no two
//    are equal; else by core type (core above atom), then base frequency
//    where every kind has one, else maximum frequency; where that leaves two
//    kinds equal, hwloc keeps them unranked in the order found, and so does
//    affix.
// 5. hwloc lists the least performant kind first; affix lists them the other
//    way round, so that kind 0 is the most performant.
//
// A machine without any of these files, or where every CPU looks the same,
// has one kind (or none listed): every CPU.

#include <vector>

#include "cpuset.hpp"
#include "sysroot.hpp"

namespace affix {

// What the kernel says about one CPU's kind; 0 where it says nothing.
struct CpuKindFacts {
  unsigned cpu = 0;
  unsigned long max_khz = 0;
  unsigned long base_khz = 0;
  unsigned long capacity = 0;
  unsigned core_type = 0;  // 1: cpu_atom, 2: cpu_core
};

// The kinds, most performant first (empty: no CPU has any of the facts).
std::vector<CpuSet> rank_cpu_kinds(std::vector<CpuKindFacts> facts);

// Reads the facts of the online CPUs under `root` and ranks them. The
// per-CPU files are read only where the first online CPU has one of them
// (a machine has them on every CPU or on none).
std::vector<CpuSet> read_cpu_kinds(const SysRoot& root, const CpuSet& online);

}  // namespace affix
