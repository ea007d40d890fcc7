#include "migrate.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "error.hpp"

namespace affix {

namespace {

unsigned long long pages_on(const std::optional<NodePages>& pages, const CpuSet& nodes) {
  unsigned long long total = 0;
  if (!pages) return 0;
  for (const auto& [node, count] : *pages) {
    if (nodes.test(node)) total += count;
  }
  return total;
}

std::string pages_text(const std::optional<NodePages>& pages) {
  if (!pages) return "unknown (numa_maps cannot be read)";
  if (pages->empty()) return "none";
  std::string out;
  for (const auto& [node, count] : *pages) out += fmt::format("{}{}:{}", out.empty() ? "" : " ", node, count);
  return out;
}

}  // namespace

MigrateReport migrate_process(Os& os, const SysRoot& root, pid_t pid, const CpuSet& nodes,
                              const CpuSet& to) {
  MigrateReport r;
  r.pid = pid;
  r.to = to;
  r.from = nodes - to;
  r.before = read_numa_maps(root, pid);
  if (!r.from.empty()) {
    int err = os.migrate_pages(pid, r.from, to, r.not_moved);
    if (err == ESRCH) {
      r.exited = true;
      return r;
    }
    if (err == EPERM) {
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot migrate the pages of process {}: permission denied", pid),
                  eperm_hint(os));
    }
    if (err != 0) {
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot migrate the pages of process {} from nodes {} to nodes {}: {}", pid,
                              format_cpulist(r.from), format_cpulist(to), std::strerror(err)));
    }
  }
  r.after = read_numa_maps(root, pid);
  unsigned long long was = pages_on(r.before, r.from);
  unsigned long long is = pages_on(r.after, r.from);
  r.moved = was > is ? was - is : 0;
  return r;
}

std::string format_migrate(const MigrateReport& r) {
  if (r.exited) return fmt::format("{}: exited before its pages were moved\n", r.pid);
  std::string out = fmt::format("{}: moved {} page{}", r.pid, r.moved, r.moved == 1 ? "" : "s");
  if (r.from.empty()) out += " (every node is a target: nothing to move)";
  else if (r.not_moved > 0) out += fmt::format(" ({} could not be moved)", r.not_moved);
  out += "\n";
  out += fmt::format("  pages per node before: {}\n", pages_text(r.before));
  out += fmt::format("  pages per node after:  {}\n", pages_text(r.after));
  return out;
}

}  // namespace affix
