#include "runtime_env.hpp"

#include <fmt/format.h>

#include "error.hpp"
#include "proc.hpp"

namespace affix {

namespace {

// exec(2) passes at most a quarter of the stack limit (2 MiB under the usual 8 MiB).
constexpr size_t k_max_environ = 8 << 20;

std::string_view value_of(std::string_view environ, std::string_view name) {
  return environ_value(environ, name).value_or(std::string_view());
}

// GOMAXPROCS=8; OMP_NUM_THREADS=8 or, nested, 8,4 (the outer level counts).
std::optional<unsigned long long> count_of(std::string_view value) {
  value = value.substr(0, value.find(','));
  return parse_decimal(value, 1u << 24);
}

}  // namespace

std::optional<std::string_view> environ_value(std::string_view environ, std::string_view name) {
  while (!environ.empty()) {
    auto end = environ.find('\0');
    std::string_view entry = environ.substr(0, end);
    if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=')
      return entry.substr(name.size() + 1);
    if (end == std::string_view::npos) break;
    environ.remove_prefix(end + 1);
  }
  return std::nullopt;
}

std::optional<std::string> read_environ(const SysRoot& root, pid_t pid) {
  try {
    return root.read(proc_dir(pid) + "/environ", k_max_environ);
  } catch (const Error&) {  // larger than any exec passes: not an environment to trust
  }
  return std::nullopt;
}

std::vector<std::string> runtime_env_warnings(pid_t pid, std::string_view environ, const CpuSet& cpus) {
  std::vector<std::string> out;
  const unsigned have = cpus.count();
  for (std::string_view name : {"GOMAXPROCS", "OMP_NUM_THREADS"}) {
    auto n = count_of(value_of(environ, name));
    if (!n || *n <= have) continue;
    out.push_back(fmt::format("{} was started with {}={}; it now has {} (restart it under 'affix --env', or set {})",
                              pid, name, *n, have == 1 ? std::string("1 CPU") : fmt::format("{} CPUs", have), name));
  }
  std::string_view listed = value_of(environ, "AFFIX_CPUS");
  if (!listed.empty()) {
    auto set = parse_cpulist(listed, false);
    if (set && !(*set.value == cpus)) {
      out.push_back(fmt::format("{} was started with AFFIX_CPUS={}; it now has CPUs {} (restart it under "
                                "'affix --env' so that what it reads agrees)",
                                pid, format_cpulist(*set.value), format_cpulist(cpus)));
    }
  }
  return out;
}

std::vector<std::string> runtime_env_warnings(const SysRoot& root, const PinReport& report) {
  std::vector<std::string> out;
  for (const auto& t : report.targets) {
    if (t.request.scope == PinScope::Thread) continue;  // --tid: the process keeps other lists
    for (const auto& p : t.processes) {
      if (p.exited) continue;
      CpuSet cpus;
      for (const auto& th : p.threads)
        if (!th.gone) cpus |= th.after;
      if (cpus.empty()) continue;
      std::optional<std::string> environ = read_environ(root, p.pid);
      if (!environ) continue;
      for (auto& w : runtime_env_warnings(p.pid, *environ, cpus)) out.push_back(std::move(w));
    }
  }
  return out;
}

}  // namespace affix
