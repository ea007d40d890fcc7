#include "irq.hpp"

#include "pci.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <map>

#include <fmt/format.h>

#include "error.hpp"
#include "proc.hpp"
#include "text.hpp"

namespace affix {

namespace {

std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

bool all_digits(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The trigger word after the hardware IRQ: "3-edge", "16-fasteoi" (x86:
// hwirq-handler), or "Edge"/"Level" (GENERIC_IRQ_SHOW_LEVEL: arm64).
bool is_trigger(std::string_view w) {
  if (w == "Edge" || w == "Level") return true;
  auto dash = w.find('-');
  return dash != std::string_view::npos && dash > 0 && all_digits(w.substr(0, dash)) && dash + 1 < w.size();
}

std::vector<std::string> actions_of(const std::vector<std::string_view>& words) {
  std::optional<size_t> trigger;
  for (size_t i = 0; i < words.size(); ++i)
    if (is_trigger(words[i])) trigger = i;
  size_t start = trigger ? *trigger + 1 : words.size() - std::min<size_t>(1, words.size());
  if (!trigger && words.size() < 2) return {};  // no trigger: the last word, after the chip's
  if (start >= words.size()) return {};
  std::string joined;
  for (size_t i = start; i < words.size(); ++i) joined += (joined.empty() ? "" : " ") + std::string(words[i]);
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= joined.size()) {
    size_t comma = joined.find(", ", pos);
    std::string one = joined.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!one.empty()) out.push_back(one);
    if (comma == std::string::npos) break;
    pos = comma + 2;
  }
  return out;
}

std::string irq_file(unsigned irq, std::string_view name) { return fmt::format("proc/irq/{}/{}", irq, name); }

}  // namespace

InterruptTable parse_interrupts(std::string_view text) {
  InterruptTable table;
  size_t pos = 0;
  bool header = true;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (header) {
      header = false;
      for (auto w : words_of(line)) {
        auto n = w.substr(0, 3) == "CPU" ? parse_decimal(w.substr(3), k_max_id) : std::nullopt;
        if (n) table.cpus.push_back(static_cast<unsigned>(*n));
      }
      if (table.cpus.empty()) return table;  // not /proc/interrupts
      continue;
    }
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto irq = parse_decimal(trim_space(line.substr(0, colon)), k_max_id);
    if (!irq) continue;  // NMI, LOC, ERR: architecture lines
    auto words = words_of(line.substr(colon + 1));
    InterruptLine out;
    out.irq = static_cast<unsigned>(*irq);
    size_t i = 0;
    for (; i < words.size() && i < table.cpus.size() && all_digits(words[i]); ++i)
      out.counts.push_back(parse_decimal(words[i], ~0ull).value_or(0));
    out.counts.resize(table.cpus.size(), 0);
    std::vector<std::string_view> rest(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
    for (auto w : rest) out.name += (out.name.empty() ? "" : " ") + std::string(w);
    out.actions = actions_of(rest);
    table.lines.push_back(std::move(out));
  }
  return table;
}

std::string irq_actions(const InterruptTable& table, unsigned irq) {
  for (const auto& l : table.lines) {
    if (l.irq != irq) continue;
    std::string out;
    for (const auto& a : l.actions) out += (out.empty() ? "" : ",") + a;
    return out;
  }
  return {};
}

InterruptTable read_interrupts(const SysRoot& root) {
  auto text = root.read("proc/interrupts", 64u << 20);
  if (!text) throw Error(ErrorKind::Runtime, fmt::format("{}: cannot read", printable(root.path("proc/interrupts"))));
  InterruptTable table = parse_interrupts(*text);
  if (table.cpus.empty())
    throw Error(ErrorKind::Runtime, fmt::format("{}: the first line names no CPU column", printable(root.path("proc/interrupts"))),
                "the file is not /proc/interrupts (its first line is CPU0 CPU1 ...)");
  return table;
}

std::optional<bool> irq_managed(const SysRoot& root, unsigned irq) {
  auto text = root.read(fmt::format("sys/kernel/debug/irq/irqs/{}", irq));
  if (!text) return std::nullopt;
  return text->find("IRQD_AFFINITY_MANAGED") != std::string::npos;
}

bool LinuxIrqOs::exists(unsigned irq) { return m_root.exists(irq_file(irq, "smp_affinity_list")); }

std::optional<CpuSet> LinuxIrqOs::affinity(unsigned irq) {
  auto text = m_root.read(irq_file(irq, "smp_affinity_list"));
  if (!text) return std::nullopt;
  auto set = parse_cpulist(*text, true);
  return set.value;
}

std::optional<CpuSet> LinuxIrqOs::effective(unsigned irq) {
  auto text = m_root.read(irq_file(irq, "effective_affinity_list"));
  if (!text) return std::nullopt;
  return parse_cpulist(*text, true).value;
}

int LinuxIrqOs::writable(unsigned irq) {
  std::string path = m_root.path(irq_file(irq, "smp_affinity_list"));
  return ::access(path.c_str(), W_OK) == 0 ? 0 : errno;
}

int LinuxIrqOs::set_affinity(unsigned irq, const CpuSet& cpus) {
  std::string path = m_root.path(irq_file(irq, "smp_affinity_list"));
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_TRUNC);
  if (fd < 0) return errno;
  std::string text = format_cpulist(cpus) + "\n";
  ssize_t n = ::write(fd, text.data(), text.size());
  int err = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : EIO);
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

std::optional<std::string> canonical_pci_address(std::string_view text) {
  Parsed<PciAddress> a = parse_pci_address(text);
  if (!a) return std::nullopt;
  return a.value->text();
}

std::optional<std::string> pci_function_of(const SysRoot& root, std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos || name == "." || name == "..") return std::nullopt;
  for (const char* cls : {"net", "block", "infiniband", "drm"}) {
    std::string dir = fmt::format("sys/class/{}", cls);
    auto path = class_entry_path(root, dir, dir + "/" + std::string(name));
    if (!path) continue;
    if (auto f = last_pci_function(*path)) return f->first.text();
  }
  return std::nullopt;
}

std::vector<unsigned> pci_function_irqs(const SysRoot& root, const std::string& bdf) {
  std::string dir = "sys/bus/pci/devices/" + bdf;
  std::vector<unsigned> out;
  for (const auto& n : root.list(dir + "/msi_irqs"))
    if (auto v = parse_decimal(n, k_max_id)) out.push_back(static_cast<unsigned>(*v));
  if (out.empty()) {
    try {
      if (auto irq = root.read_int(dir + "/irq"); irq && *irq > 0) out.push_back(static_cast<unsigned>(*irq));
    } catch (const Error&) {
      // an odd irq file: no legacy line known
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> pci_function_names(const SysRoot& root, const std::string& bdf) {
  std::string dir = "sys/bus/pci/devices/" + bdf;
  std::vector<std::string> out;
  // Every device of the classes whose path runs through the function
  // (directly below it, or below a virtio or nvme device on it);
  // partitions are left out.
  for (const char* cls : {"net", "block", "infiniband", "drm"})
    for (const auto& n : root.list(fmt::format("sys/class/{}", cls)))
      if (!root.exists(fmt::format("sys/class/{}/{}/partition", cls, n)) && pci_function_of(root, n) == bdf)
        out.push_back(n);
  for (const auto& ctrl : root.list(dir + "/nvme")) out.push_back(ctrl);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::pair<unsigned, std::string>> irq_functions(const SysRoot& root) {
  std::map<unsigned, std::string> by_irq;
  for (const auto& bdf : root.list("sys/bus/pci/devices"))
    for (unsigned irq : pci_function_irqs(root, bdf)) by_irq.emplace(irq, bdf);
  return {by_irq.begin(), by_irq.end()};
}

bool irqbalance_running(const SysRoot& root) {
  for (pid_t pid : list_pids(root)) {
    auto comm = root.read(fmt::format("proc/{}/comm", pid));
    if (comm && trim_space(*comm) == "irqbalance") return true;
  }
  return false;
}

}  // namespace affix
