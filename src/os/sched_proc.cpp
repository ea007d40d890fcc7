// Scheduling as /proc shows it (sched_proc.hpp), and the facts a refusal
// is explained with (sched_refusal.hpp).
#include "sched_proc.hpp"

#include <charconv>
#include <string>

#include "error.hpp"
#include "proc.hpp"
#include "sched_refusal.hpp"

namespace affix {

namespace {

// A decimal integer with an optional sign, the whole text.
std::optional<long long> parse_signed(std::string_view text) {
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::optional<long long> read_sysctl(const SysRoot& root, std::string_view name) {
  try {
    auto text = root.read(std::string("proc/sys/kernel/") + std::string(name), 64);
    if (!text) return std::nullopt;
    return parse_signed(trim_space(*text));
  } catch (const Error&) {
    return std::nullopt;
  }
}

bool is_mask(std::string_view word) {
  if (word.empty()) return false;
  for (char c : word)
    if (!(c == ',' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::optional<SchedAttr> parse_sched_file(std::string_view text) {
  std::optional<long long> policy, prio, slice, umin, umax;
  for_each_field(text, [&](std::string_view key, std::string_view value) {
    if (key == "policy") policy = parse_signed(value);
    else if (key == "prio") prio = parse_signed(value);
    else if (key == "se.slice") slice = parse_signed(value);
    else if (key == "uclamp.min") umin = parse_signed(value);
    else if (key == "uclamp.max") umax = parse_signed(value);
    return true;
  });
  if (!policy || !prio) return std::nullopt;
  auto p = sched_policy_of_number(*policy);
  if (!p) return std::nullopt;
  SchedAttr a;
  a.policy = *p;
  if (is_realtime(*p) && *prio >= 0 && *prio <= 98) a.priority = static_cast<unsigned>(99 - *prio);
  if ((is_fair(*p) || *p == SchedPolicy::Idle) && *prio >= 100 && *prio <= 139) a.nice = static_cast<int>(*prio - 120);
  if (is_fair(*p) && slice && *slice > 0) a.slice_ns = static_cast<uint64_t>(*slice);
  if (umin && umax && *umin >= 0 && *umax >= 0 && *umin <= 1024 && *umax <= 1024) {
    a.util_min = static_cast<unsigned>(*umin);
    a.util_max = static_cast<unsigned>(*umax);
  }
  return a;
}

std::optional<SchedAttr> read_thread_sched(const SysRoot& root, pid_t pid, pid_t tid) {
  try {
    auto text = root.read(task_dir(pid, tid) + "/sched", 64 * 1024);
    if (!text) return std::nullopt;
    return parse_sched_file(*text);
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::map<unsigned, CpuSet> parse_schedstat_domains(std::string_view text) {
  std::map<unsigned, CpuSet> out;
  std::optional<unsigned> cpu;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    auto sp = line.find(' ');
    std::string_view first = line.substr(0, sp);
    std::string_view rest = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
    if (first.substr(0, 3) == "cpu") {
      auto n = parse_decimal(first.substr(3), k_max_id);
      cpu = n ? std::optional<unsigned>(static_cast<unsigned>(*n)) : std::nullopt;
      continue;
    }
    if (first.substr(0, 6) != "domain" || !cpu) continue;
    // The mask is the first word that is one (version 17 names the level first).
    for (int word = 0; word < 2 && !rest.empty(); ++word) {
      auto end = rest.find(' ');
      std::string_view w = rest.substr(0, end);
      if (is_mask(w)) {
        auto mask = parse_cpumask(w);
        if (mask) out[*cpu] = *mask.value;  // the last domain line of a CPU is its top one
        break;
      }
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
  }
  return out;
}

std::optional<CpuSet> read_root_domain(const SysRoot& root, const CpuSet& cpus) {
  std::optional<std::string> text;
  try {
    text = root.read("proc/schedstat", 16u << 20);
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!text) return std::nullopt;
  auto domains = parse_schedstat_domains(*text);
  std::optional<CpuSet> out;
  cpus.for_each([&](unsigned cpu) {
    auto it = domains.find(cpu);
    if (it == domains.end()) return;
    if (!out) out = CpuSet();
    *out |= it->second;
  });
  return out;
}

SchedFacts read_sched_facts(const SysRoot& root, const CpuSet& cpus) {
  SchedFacts f;
  f.cpus = cpus;
  f.root_domain = read_root_domain(root, cpus);
  f.rt_runtime_us = read_sysctl(root, "sched_rt_runtime_us");
  f.rt_period_us = read_sysctl(root, "sched_rt_period_us");
  f.dl_period_min_us = read_sysctl(root, "sched_deadline_period_min_us");
  f.dl_period_max_us = read_sysctl(root, "sched_deadline_period_max_us");
  return f;
}

}  // namespace affix
