#include "process_view.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

#include "error.hpp"
#include "sched_proc.hpp"

namespace affix {

namespace {

[[noreturn]] void no_such_process(pid_t pid) {
  throw Error(ErrorKind::Runtime, fmt::format("no such process: {}", pid));
}

}  // namespace

SchedLookup sched_lookup(const SysRoot& root, SchedOs* live) {
  return [&root, live](pid_t pid, pid_t tid) -> std::optional<SchedAttr> {
    SchedAttr a;
    if (live && live->get_sched(tid, a) == 0) return a;
    return read_thread_sched(root, pid, tid);
  };
}

ProcessView read_process(const SysRoot& root, const std::vector<NodeInfo>& nodes, pid_t pid,
                         const SchedLookup& sched) {
  ProcessView view;
  view.pid = pid;
  auto st = read_stat(root, proc_dir(pid));
  auto status = read_status(root, proc_dir(pid));
  if (!st || !status) no_such_process(pid);
  view.comm = st->comm;
  view.ppid = st->ppid;
  view.state = st->state;
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
    if (sched) t.sched = sched(pid, tid);
    view.threads.push_back(std::move(t));
  }
  // Every thread gone: the process exited while we read it.
  if (view.threads.empty() || !root.exists(proc_dir(pid) + "/stat")) no_such_process(pid);
  view.cmdline = read_cmdline(root, pid);
  if (auto usage = read_numa_usage(root, pid)) {
    view.pages = std::move(usage->pages);
    view.anon_pages = std::move(usage->anon);
    view.file_pages = std::move(usage->file);
    if (!usage->policy.empty()) view.mem_policy = std::move(usage->policy);
  }
  return view;
}

namespace {

// The children of each process of a tree: from its threads' children
// files where they can be trusted whole, else from every process's parent
// in proc/, read once on the first need.
class ChildLookup {
public:
  explicit ChildLookup(const SysRoot& root) : m_root(root) {}

  std::vector<pid_t> children(pid_t pid) {
    if (auto listed = read_children(m_root, pid)) return *listed;
    if (!m_by_parent) scan();
    auto [first, last] = m_by_parent->equal_range(pid);
    std::vector<pid_t> out;
    for (auto it = first; it != last; ++it) out.push_back(it->second);
    return out;  // ascending: list_pids is, and equal keys keep their order
  }

private:
  void scan() {
    m_by_parent.emplace();
    for (pid_t pid : list_pids(m_root)) {
      try {
        if (auto st = read_stat(m_root, proc_dir(pid))) m_by_parent->emplace(st->ppid, pid);
      } catch (const Error&) {
        continue;  // a stat line that is none: not a process to show
      }
    }
  }

  const SysRoot& m_root;
  std::optional<std::multimap<pid_t, pid_t>> m_by_parent;
};

}  // namespace

std::vector<ProcessView> read_process_tree(const SysRoot& root, const std::vector<NodeInfo>& nodes, pid_t pid,
                                           const SchedLookup& sched) {
  std::vector<ProcessView> out;
  out.push_back(read_process(root, nodes, pid, sched));
  ChildLookup lookup(root);
  std::set<pid_t> seen{pid};
  // Depth first without recursion (a captured root may hold a chain of any
  // length): each entry is a process shown, with the children still to show.
  struct Pending {
    pid_t parent;
    unsigned depth;  // of the children
    std::vector<pid_t> children;
    size_t next = 0;
  };
  std::vector<Pending> stack;
  stack.push_back({pid, 1, lookup.children(pid)});
  while (!stack.empty()) {
    Pending& top = stack.back();
    if (top.next == top.children.size()) {
      stack.pop_back();
      continue;
    }
    pid_t child = top.children[top.next++];
    if (!seen.insert(child).second) continue;  // shown already: a reused PID, or parents that loop
    ProcessView view;
    try {
      view = read_process(root, nodes, child, sched);
    } catch (const Error&) {
      continue;  // gone since it was listed
    }
    if (view.ppid != top.parent) continue;  // its PID went to another process since
    view.depth = top.depth;
    unsigned depth = top.depth + 1;  // `top` is not to be used once the stack grows
    out.push_back(std::move(view));
    stack.push_back({child, depth, lookup.children(child)});
  }
  return out;
}

bool is_pinned(const ProcessView& view, const CpuSet& allowed) {
  for (const auto& t : view.threads) {
    if (!(allowed - t.cpus).empty()) return true;
  }
  return false;
}

std::vector<ProcessView> find_pinned(const SysRoot& root, const std::vector<NodeInfo>& nodes,
                                     const AllowedLookup& allowed_of, const SchedLookup& sched) {
  std::vector<ProcessView> out;
  for (pid_t pid : list_pids(root)) {
    try {
      auto st = read_stat(root, proc_dir(pid));
      if (!st || (st->flags & k_pf_kthread)) continue;
      auto allowed = allowed_of(pid);
      if (!allowed) continue;
      auto view = read_process(root, nodes, pid);
      if (!is_pinned(view, *allowed)) continue;
      if (sched)  // the policies of the processes shown only
        for (auto& t : view.threads) t.sched = sched(pid, t.tid);
      view.allowed = *allowed;
      out.push_back(std::move(view));
    } catch (const Error&) {
      continue;  // gone while scanned, or unreadable: not ours to report
    }
  }
  return out;
}

}  // namespace affix
