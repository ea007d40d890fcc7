#pragma once
// The machine-wide counters `affix top` takes differences of: each CPU's
// time from /proc/stat and its interrupts from /proc/interrupts, and the
// CPU marks read from sysfs (isolated, nohz_full). Parsers apart from the
// reads so tests give them text.

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>

#include "cpuset.hpp"
#include "sysroot.hpp"

namespace affix {

// One "cpuN" line of /proc/stat, in clock ticks (USER_HZ).
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  // Every field above (guest time is inside user and nice already).
  uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  // All but idle and iowait.
  uint64_t busy() const { return user + nice + system + irq + softirq + steal; }
};
using CpuTimesMap = std::map<unsigned, CpuTimes>;  // by CPU number; offline CPUs have no line

// The "cpuN" lines of /proc/stat ("cpu " the sum is skipped); a line that
// is not one (fewer than 4 numbers) is skipped.
CpuTimesMap parse_proc_stat(std::string_view text);
// nullopt where proc/stat cannot be read.
std::optional<CpuTimesMap> read_proc_stat(const SysRoot& root);

// Busy share of one CPU between two readings, in percent of the ticks that
// passed on it, and its parts. nullopt where no tick passed (or the
// counters went back: a CPU that went offline and online again).
struct CpuBusy {
  double busy = 0, user = 0, system = 0, irq = 0, softirq = 0;
};
std::optional<CpuBusy> busy_between(const CpuTimes& before, const CpuTimes& now);

// Interrupts handled by each CPU: the sum of its column in
// /proc/interrupts over every line (device IRQs and the architecture's:
// NMI, LOC, RES, ...). The columns are the header's "CPUn" names (online
// CPUs only); a line's numbers stop at the first word that is not one
// (ERR and MIS have a single count, for no CPU: not counted). Not
// irq.hpp's table, which keeps the numbered lines only (no LOC, RES, ...)
// and holds the whole file: this one sums as it reads, line by line.
using IrqCounts = std::map<unsigned, uint64_t>;
IrqCounts interrupt_columns(std::string_view header_line);  // the columns, counts 0
bool parse_interrupt_totals(std::string_view text, IrqCounts& out);
// nullopt where proc/interrupts cannot be read (or has no header).
std::optional<IrqCounts> read_interrupt_totals(const SysRoot& root);

// sys/devices/system/cpu/nohz_full (" " or "(null)" where none, as some
// kernels write): empty where missing or none.
CpuSet read_nohz_full(const SysRoot& root);

}  // namespace affix
