// CPU kinds: hwloc 2.9's grouping and ranking, most performant first. The
// same roots are compared with `lstopo --cpukinds` in tests/cli/topo_kinds.sh.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cpu_kinds.hpp"
#include "root_builders.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::TempRoot;

namespace {

std::vector<std::string> lists(const std::vector<CpuSet>& kinds) {
  std::vector<std::string> out;
  for (auto& k : kinds) out.push_back(format_cpulist(k));
  return out;
}

using Strings = std::vector<std::string>;

// One fact per CPU 0..N-1.
std::vector<CpuKindFacts> facts(std::vector<unsigned long> max_khz, std::vector<unsigned long> base_khz = {},
                                std::vector<unsigned long> capacity = {}, std::vector<unsigned> type = {}) {
  std::vector<CpuKindFacts> out(max_khz.size());
  for (unsigned i = 0; i < out.size(); ++i) {
    out[i].cpu = i;
    out[i].max_khz = max_khz[i];
    if (i < base_khz.size()) out[i].base_khz = base_khz[i];
    if (i < capacity.size()) out[i].capacity = capacity[i];
    if (i < type.size()) out[i].core_type = type[i];
  }
  return out;
}

// A root with N CPUs and, per CPU, the value of FILE (under cpuN/).
void per_cpu(const TempRoot& r, const std::string& file, std::vector<unsigned long> values) {
  for (size_t i = 0; i < values.size(); ++i)
    r.write("sys/devices/system/cpu/cpu" + std::to_string(i) + "/" + file, std::to_string(values[i]) + "\n");
}

}  // namespace

TEST_CASE("cpu kinds: nothing known, one kind, or ranked by capacity") {
  CHECK(rank_cpu_kinds(facts({0, 0})).empty());
  CHECK(lists(rank_cpu_kinds(facts({2000000, 2000000}))) == Strings{"0-1"});
  // Three capacities (an Arm DynamIQ phone): biggest first.
  CHECK(lists(rank_cpu_kinds(facts({0, 0, 0, 0, 0, 0}, {}, {160, 160, 512, 512, 1024, 1024}))) ==
        Strings{"4-5", "2-3", "0-1"});
  // Capacity wins over frequency where every kind has a distinct one.
  CHECK(lists(rank_cpu_kinds(facts({3000000, 2000000}, {}, {100, 900}))) == Strings{"1", "0"});
}

TEST_CASE("cpu kinds: frequencies, base before maximum, and the 10% turbo adjustment") {
  // Maximum only: three kinds, nothing adjusted (no base frequency).
  CHECK(lists(rank_cpu_kinds(facts({3000000, 3000000, 3100000, 2000000}))) == Strings{"2", "0-1", "3"});
  // With base frequencies: 3000 and 3100 MHz at one base are one kind (< 10%).
  CHECK(lists(rank_cpu_kinds(facts({3000000, 3000000, 3100000, 2000000}, {1000000, 1000000, 1000000, 900000}))) ==
        Strings{"0-2", "3"});
  // Ranked by base frequency where every kind has one (an Alder Lake without
  // cpu_core/cpu_atom: P-cores 5000/1900 MHz, E-cores 3900/1400 MHz).
  CHECK(lists(rank_cpu_kinds(facts({5000000, 5000000, 3900000, 3900000}, {1900000, 1900000, 1400000, 1400000}))) ==
        Strings{"0-1", "2-3"});
  // Two kinds of equal rank (same base, 50% apart in maximum): unranked, hwloc's order kept reversed.
  CHECK(lists(rank_cpu_kinds(facts({3000000, 2000000, 2000000, 2000000}, {1000000, 1000000, 1000000, 1000000}))) ==
        Strings{"0", "1-3"});
}

TEST_CASE("cpu kinds: Intel core types rank core above atom") {
  CHECK(lists(rank_cpu_kinds(facts({0, 0, 0, 0}, {}, {}, {2, 2, 1, 1}))) == Strings{"0-1", "2-3"});
  // Core type first, then frequency within a type.
  CHECK(lists(rank_cpu_kinds(facts({4000000, 5000000, 3000000, 3000000}, {}, {}, {2, 2, 1, 1}))) ==
        Strings{"1", "0", "2-3"});
}

TEST_CASE("cpu kinds: read from a root") {
  SECTION("three-kind Arm: cpu_capacity") {
    TempRoot r;
    simple_machine(r, 8, 1);
    per_cpu(r, "cpu_capacity", {160, 160, 160, 160, 512, 512, 512, 1024});
    per_cpu(r, "cpufreq/cpuinfo_max_freq", {1800000, 1800000, 1800000, 1800000, 2400000, 2400000, 2400000, 3000000});
    CHECK(lists(read_cpu_kinds(SysRoot(r.path()), CpuSet::range(0, 7))) == Strings{"7", "4-6", "0-3"});
    // Offline CPUs are in no kind.
    CHECK(lists(read_cpu_kinds(SysRoot(r.path()), CpuSet::range(0, 5))) == Strings{"4-5", "0-3"});
  }
  SECTION("one kind") {
    TempRoot r;
    simple_machine(r, 4, 1);
    per_cpu(r, "cpufreq/cpuinfo_max_freq", {2400000, 2400000, 2400000, 2400000});
    per_cpu(r, "cpufreq/base_frequency", {2000000, 2000000, 2000000, 2000000});
    CHECK(lists(read_cpu_kinds(SysRoot(r.path()), CpuSet::range(0, 3))) == Strings{"0-3"});
  }
  SECTION("no files at all") {
    TempRoot r;
    simple_machine(r, 2, 1);
    CHECK(read_cpu_kinds(SysRoot(r.path()), CpuSet::range(0, 1)).empty());
  }
  SECTION("Intel hybrid: cpu_core and cpu_atom") {
    TempRoot r;
    simple_machine(r, 4, 1);
    r.write("sys/devices/cpu_core/cpus", "0-1\n");
    r.write("sys/devices/cpu_atom/cpus", "2-3\n");
    CHECK(lists(read_cpu_kinds(SysRoot(r.path()), CpuSet::range(0, 3))) == Strings{"0-1", "2-3"});
  }
  SECTION("ACPI CPPC highest_perf where there is no cpufreq; garbage says nothing") {
    TempRoot r;
    simple_machine(r, 4, 1);
    per_cpu(r, "acpi_cppc/highest_perf", {100, 100, 200, 200});
    CHECK(lists(read_cpu_kinds(SysRoot(r.path()), CpuSet::range(0, 3))) == Strings{"2-3", "0-1"});
    r.write("sys/devices/system/cpu/cpu3/acpi_cppc/highest_perf", "lots\n");
    CHECK(lists(read_cpu_kinds(SysRoot(r.path()), CpuSet::range(0, 3))) == Strings{"2", "0-1"});
  }
}
