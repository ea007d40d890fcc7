#include "process_view.hpp"

#include <fmt/format.h>

#include "error.hpp"

namespace affix {

namespace {

[[noreturn]] void no_such_process(pid_t pid) {
  throw Error(ErrorKind::Runtime, fmt::format("no such process: {}", pid));
}

}  // namespace

ProcessView read_process(const SysRoot& root, const std::vector<NodeInfo>& nodes, pid_t pid) {
  ProcessView view;
  view.pid = pid;
  auto st = read_stat(root, proc_dir(pid));
  auto status = read_status(root, proc_dir(pid));
  if (!st || !status) no_such_process(pid);
  view.comm = st->comm;
  view.cpus = status->cpus;
  view.mems = status->mems;
  auto tids = read_tasks(root, pid);
  if (!tids) no_such_process(pid);
  view.threads.reserve(tids->size());
  for (pid_t tid : *tids) {
    std::string dir = task_dir(pid, tid);
    auto tst = read_stat(root, dir);
    auto tstatus = read_status(root, dir);
    if (!tst || !tstatus) continue;  // exited while we read
    ThreadView t;
    t.tid = tid;
    t.comm = tst->comm;
    t.cpus = tstatus->cpus;
    t.last_cpu = tst->last_cpu;
    t.last_node = node_of_cpu(nodes, tst->last_cpu);
    view.threads.push_back(std::move(t));
  }
  // Every thread gone: the process exited while we read it.
  if (view.threads.empty() || !root.exists(proc_dir(pid) + "/stat")) no_such_process(pid);
  if (auto usage = read_numa_usage(root, pid)) {
    view.pages = std::move(usage->pages);
    view.anon_pages = std::move(usage->anon);
    view.file_pages = std::move(usage->file);
    if (!usage->policy.empty()) view.mem_policy = std::move(usage->policy);
  }
  return view;
}

bool is_pinned(const ProcessView& view, const CpuSet& allowed) {
  for (const auto& t : view.threads) {
    if (!(allowed - t.cpus).empty()) return true;
  }
  return false;
}

std::vector<ProcessView> find_pinned(const SysRoot& root, const std::vector<NodeInfo>& nodes,
                                     const AllowedLookup& allowed_of) {
  std::vector<ProcessView> out;
  for (pid_t pid : list_pids(root)) {
    try {
      auto st = read_stat(root, proc_dir(pid));
      if (!st || (st->flags & k_pf_kthread)) continue;
      auto allowed = allowed_of(pid);
      if (!allowed) continue;
      auto view = read_process(root, nodes, pid);
      if (!is_pinned(view, *allowed)) continue;
      view.allowed = *allowed;
      out.push_back(std::move(view));
    } catch (const Error&) {
      continue;  // gone while scanned, or unreadable: not ours to report
    }
  }
  return out;
}

}  // namespace affix
