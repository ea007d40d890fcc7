#include "topology_light.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>

#include "error.hpp"
#include "topology_read.hpp"

namespace affix {

namespace {

constexpr std::string_view k_cpu_dir = "sys/devices/system/cpu";
constexpr std::string_view k_node_dir = "sys/devices/system/node";

// "cpu12" -> 12 for PREFIX + decimal; nullopt otherwise.
std::optional<unsigned> numbered(const std::string& name, std::string_view prefix, unsigned limit) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  auto v = parse_decimal(std::string_view(name).substr(prefix.size()), limit);
  if (!v) return std::nullopt;
  return static_cast<unsigned>(*v);
}

CpuSet within_limit(const SysRoot& root, const std::string& rel, std::optional<CpuSet> set) {
  if (set && set->end() > k_max_cpus)
    throw Error(ErrorKind::Runtime, fmt::format("{}: CPU number {} is beyond the supported {}",
                                                root.path(rel), set->end() - 1, k_max_cpus - 1));
  return set ? std::move(*set) : CpuSet{};
}

// A node's CPUs: cpumap, else cpulist (read_topology's order).
CpuSet node_cpus(const SysRoot& root, const std::string& dir) {
  if (auto text = root.read(dir + "/cpumap")) {
    auto parsed = parse_cpumask(*text, k_max_cpus - 1);
    if (!parsed) throw Error(ErrorKind::Runtime, fmt::format("{}: {}", root.path(dir + "/cpumap"), parsed.error.message));
    return *parsed.value;
  }
  if (auto text = root.read(dir + "/cpulist")) {
    auto parsed = parse_cpulist(*text, true, k_max_cpus - 1);
    if (!parsed) throw Error(ErrorKind::Runtime, fmt::format("{}: {}", root.path(dir + "/cpulist"), parsed.error.message));
    return *parsed.value;
  }
  return {};
}

}  // namespace

bool is_plain_cpulist(const PlacementRequest& request) {
  if (request.where.empty() || request.exclude || request.no_smt || request.count ||
      request.order != Order::Compact || request.slice || request.mem)
    return false;
  for (char c : request.where)
    if (!((c >= '0' && c <= '9') || c == ',' || c == '-' || c == ':')) return false;
  return true;
}

namespace {

// Every term of `where` a single first step on socket/node/cpu (kernel
// numbers, which the order of units cannot change) or a bare list.
bool numbers_only(const std::string& where) {
  size_t start = 0;
  while (start <= where.size()) {
    size_t end = where.find('+', start);
    std::string term = where.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (term.find('.') != std::string::npos) return false;
    size_t colon = term.find(':');
    if (colon != std::string::npos && !(term[0] >= '0' && term[0] <= '9')) {
      std::string level = term.substr(0, colon);
      if (level != "socket" && level != "package" && level != "node" && level != "numa" &&
          level != "cpu" && level != "thread" && level != "pu")
        return false;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return true;
}

}  // namespace

ReadScope scope_for(const PlacementRequest& request) {
  ReadScope scope;
  scope.memory = request.mem.has_value();
  scope.caches = request.count || request.slice || !numbers_only(request.where) ||
                 (request.exclude && !numbers_only(*request.exclude));
  return scope;
}

Topology read_cpus_only(const SysRoot& root) {
  std::string cpu_dir(k_cpu_dir);
  auto online = root.read_cpulist(cpu_dir + "/online");
  if (!online) return read_topology(root);
  Topology topo;
  topo.online = within_limit(root, cpu_dir + "/online", online);
  CpuSet possible = topo.online | within_limit(root, cpu_dir + "/present", root.read_cpulist(cpu_dir + "/present"));
  for (auto& name : root.list(cpu_dir))
    if (auto n = numbered(name, "cpu", k_max_id)) {
      if (*n >= k_max_cpus)
        throw Error(ErrorKind::Runtime, fmt::format("{}: CPU number {} is beyond the supported {}",
                                                    root.path(cpu_dir + "/" + name), *n, k_max_cpus - 1));
      possible.set(*n);
    }
  for (auto& name : root.list(k_node_dir))
    if (numbered(name, "node", k_max_id))
      possible |= node_cpus(root, std::string(k_node_dir) + "/" + name) & CpuSet::range(0, k_max_cpus - 1);
  topo.possible = possible;
  topo.cpus.resize(possible.end());
  for (unsigned cpu = 0; cpu < topo.cpus.size(); ++cpu) topo.cpus[cpu].cpu = cpu;
  topo.online.for_each([&](unsigned cpu) {
    CpuInfo& c = topo.cpus[cpu];
    c.online = true;
    c.known = true;
    c.siblings = CpuSet::range(cpu, cpu);
    topo.threads.push_back(Unit{static_cast<long>(cpu), CpuSet::range(cpu, cpu)});
  });
  return topo;
}

}  // namespace affix
