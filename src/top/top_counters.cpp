#include "top_counters.hpp"

#include <vector>

#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

bool parse_u64(std::string_view w, uint64_t& out) {
  if (w.empty() || w.size() > 20) return false;
  uint64_t v = 0;
  for (char c : w) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

// The blank-separated words of a line.
std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

double pct(uint64_t part, uint64_t total) { return 100.0 * static_cast<double>(part) / static_cast<double>(total); }

}  // namespace

CpuTimesMap parse_proc_stat(std::string_view text) {
  CpuTimesMap out;
  for (std::string_view line : split(text, '\n')) {
    if (line.size() < 4 || line.substr(0, 3) != "cpu" || line[3] < '0' || line[3] > '9') continue;
    auto w = words(line);
    uint64_t cpu = 0;
    if (!parse_u64(w[0].substr(3), cpu) || cpu >= k_max_id || w.size() < 5) continue;
    uint64_t f[8] = {};
    bool ok = true;
    for (size_t i = 0; i < 8 && i + 1 < w.size(); ++i) ok = ok && parse_u64(w[i + 1], f[i]);
    if (!ok) continue;
    out[static_cast<unsigned>(cpu)] = CpuTimes{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]};
  }
  return out;
}

std::optional<CpuTimesMap> read_proc_stat(const SysRoot& root) {
  // 4096 CPUs: about 400 KiB.
  auto text = root.read("proc/stat", size_t{16} << 20);
  if (!text) return std::nullopt;
  return parse_proc_stat(*text);
}

std::optional<CpuBusy> busy_between(const CpuTimes& a, const CpuTimes& b) {
  if (b.total() <= a.total() || b.user < a.user || b.nice < a.nice || b.system < a.system || b.idle < a.idle ||
      b.iowait < a.iowait || b.irq < a.irq || b.softirq < a.softirq || b.steal < a.steal)
    return std::nullopt;
  uint64_t total = b.total() - a.total();
  CpuBusy c;
  c.busy = pct(b.busy() - a.busy(), total);
  c.user = pct((b.user + b.nice) - (a.user + a.nice), total);
  c.system = pct(b.system - a.system, total);
  c.irq = pct(b.irq - a.irq, total);
  c.softirq = pct(b.softirq - a.softirq, total);
  return c;
}

IrqCounts interrupt_columns(std::string_view header) {
  IrqCounts out;
  for (auto w : words(header)) {
    uint64_t cpu = 0;
    if (w.size() > 3 && w.substr(0, 3) == "CPU" && parse_u64(w.substr(3), cpu) && cpu < k_max_id)
      out[static_cast<unsigned>(cpu)] = 0;
  }
  return out;
}

namespace {

// Adds one line's counts to the columns.
void add_interrupts(std::string_view line, const std::vector<unsigned>& columns, IrqCounts& out) {
  auto w = words(line);
  if (w.empty() || w[0].back() != ':') return;
  for (size_t i = 0; i < columns.size() && i + 1 < w.size(); ++i) {
    uint64_t n = 0;
    if (!parse_u64(w[i + 1], n)) break;
    if (i + 1 == w.size() - 1 && columns.size() > 1 && i == 0) {
      // "ERR: 0" / "MIS: 0": one number, no CPU's: the line ends after it
      // while there are several columns.
      break;
    }
    out[columns[i]] += n;
  }
}

}  // namespace

bool parse_interrupt_totals(std::string_view text, IrqCounts& out) {
  auto nl = text.find('\n');
  out = interrupt_columns(text.substr(0, nl));
  if (out.empty()) return false;
  std::vector<unsigned> columns;
  for (const auto& [cpu, n] : out) columns.push_back(cpu);
  if (nl == std::string_view::npos) return true;
  for (std::string_view line : split(text.substr(nl + 1), '\n')) add_interrupts(line, columns, out);
  return true;
}

std::optional<IrqCounts> read_interrupt_totals(const SysRoot& root) {
  IrqCounts out;
  std::vector<unsigned> columns;
  bool header = true, ok = true;
  // Line by line: 4096 CPUs make lines of 45 KB and a file of megabytes.
  bool read = root.for_each_line(
      "proc/interrupts",
      [&](std::string_view line) {
        if (header) {
          header = false;
          out = interrupt_columns(line);
          if (out.empty()) {
            ok = false;
            return false;
          }
          for (const auto& [cpu, n] : out) columns.push_back(cpu);
          return true;
        }
        add_interrupts(line, columns, out);
        return true;
      },
      size_t{1} << 20, size_t{256} << 20);
  if (!read || !ok || header) return std::nullopt;
  return out;
}

CpuSet read_nohz_full(const SysRoot& root) {
  auto text = root.read("sys/devices/system/cpu/nohz_full");
  if (!text) return {};
  std::string_view t = trim_space(*text);
  if (t.empty() || t == "(null)") return {};
  auto parsed = parse_cpulist(t, true);
  return parsed ? *parsed.value : CpuSet();
}

}  // namespace affix
