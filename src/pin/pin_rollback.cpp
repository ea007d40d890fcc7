// roll_back: puts back what a pin changed, where the list is still the one
// affix set, and says which threads stay where (pin.hpp).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "pin.hpp"
#include "proc.hpp"
#include "text.hpp"

namespace affix {

namespace {

// What stays where after a rollback, for the message.
struct Stay {
  pid_t id;
  std::string where;  // "on CPUs 1", or "where it is" where it cannot be read
  std::string why;
  bool process = false;  // a whole process (forked during the move), not one thread
};

std::string describe(std::vector<Stay> stays) {
  // Grouped by kind, place and reason, in the order first met; IDs ascending.
  using Key = std::tuple<bool, std::string, std::string>;
  std::vector<std::pair<Key, std::vector<pid_t>>> groups;
  for (auto& s : stays) {
    Key key{s.process, s.where, s.why};
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) groups.push_back({key, {s.id}});
    else it->second.push_back(s.id);
  }
  std::string out;
  for (auto& [key, ids] : groups) {
    std::sort(ids.begin(), ids.end());
    bool one = ids.size() == 1;
    const char* kind = std::get<0>(key) ? (one ? "process" : "processes") : (one ? "thread" : "threads");
    out += fmt::format("{}{} {} stay{} {} ({})", out.empty() ? "" : "; ", kind, format_id_list(ids),
                       one ? "s" : "", std::get<1>(key), std::get<2>(key));
  }
  return out;
}

bool listed(const std::vector<pid_t>& tids, pid_t tid) { return std::binary_search(tids.begin(), tids.end(), tid); }

// A process forked during a --tree move and found by the roll back: the
// list it came with from its creator, and the one to put back (none where
// its creator had no single old list).
struct Forked {
  pid_t pid;
  CpuSet after;
  std::optional<CpuSet> restore;
};

class RollBack {
public:
  RollBack(AffinityOs& affinity, TaskOs& tasks) : m_affinity(affinity), m_tasks(tasks) {}
  ~RollBack() {
    for (int fd : m_fds) m_tasks.close_fd(fd);
  }

  std::string run(const PinReport& report) {
    for (const auto& target : report.targets) {
      for (const auto& p : target.processes) {
        if (p.exited || !same(target, p)) continue;  // its IDs may belong to someone else now
        put_back_process(target, p);
      }
    }
    // With --tree, children forked during the move from a process affix
    // had moved, and their own, once every process affix knows is back
    // (from then on they fork on the old lists).
    for (const auto& target : report.targets) {
      if (target.request.scope != PinScope::Tree) continue;
      std::set<pid_t> known;
      for (const auto& p : target.processes) known.insert(p.pid);
      for (const auto& p : target.processes) {
        if (p.exited || !same(target, p)) continue;
        for (auto [tid, child] : children(p.pid)) {
          if (!known.insert(child).second) continue;
          auto at = find_thread(p, tid);
          if (at && at->changed) forked(known, child, p.pid, at->after, at->restore);
          else for (const auto& list : afters(p)) if (forked(known, child, p.pid, list, p.common_before)) break;
        }
      }
    }
    return describe(std::move(m_stays));
  }

private:
  // The process the move held? For --tid, the thread by its start time.
  bool same(const TargetReport& target, const ProcessMove& p) {
    if (target.request.scope != PinScope::Thread) return identity_of(m_tasks, p) == Identity::Same;
    auto start = m_tasks.start_time(target.request.id);
    return start && *start == p.start_time;
  }

  void put_back_process(const TargetReport& target, const ProcessMove& p) {
    const bool thread_only = target.request.scope == PinScope::Thread;
    // A TID the process no longer lists is gone, or another's by now.
    bool complete = false;
    bool check = !thread_only && m_tasks.list_threads(p.pid, m_tids, complete) == 0 && complete;
    for (const auto& t : p.threads) {
      if (t.gone || (check && !listed(m_tids, t.tid))) continue;
      if (t.changed) put_back(t.tid, t.after, t.restore, true);
      else if (t.inherited) put_back(t.tid, t.after, p.common_before, true);
    }
    // Threads created since the last listing, from a creator affix had
    // moved: on one of the lists affix set (with --spread, several).
    if (thread_only || m_tasks.list_threads(p.pid, m_tids, complete) != 0) return;
    std::vector<CpuSet> lists = afters(p);
    for (pid_t tid : m_tids) {
      if (find_thread(p, tid) || m_affinity.get_affinity(tid, m_current) != 0) continue;
      if (std::find(lists.begin(), lists.end(), m_current) == lists.end()) continue;
      put_back(tid, m_current, p.common_before, false);
    }
  }

  // Puts one thread back on `restore` where it is still on `after`.
  // False where it stays (and says why).
  bool put_back(pid_t tid, const CpuSet& after, const std::optional<CpuSet>& restore, bool read,
                bool forked = false) {
    int err = read ? m_affinity.get_affinity(tid, m_current) : 0;
    if (err == ESRCH) return true;
    if (err != 0) {
      m_stays.push_back({tid, "where it is", fmt::format("its list cannot be read: {}", errno_text(err))});
      return false;
    }
    std::string where = "on CPUs " + format_cpulist(m_current);
    if (!(m_current == after)) {
      if (forked) return true;  // not from affix's list
      m_stays.push_back({tid, where, "changed by someone else during the move"});
      return false;
    }
    if (!restore) {
      if (!forked) m_stays.push_back({tid, where, "created during the move; no old list to put back"});
      return false;
    }
    if (int e = m_affinity.set_affinity(tid, *restore); e != 0 && e != ESRCH) {
      m_stays.push_back({tid, where, fmt::format("could not be put back: {}", errno_text(e))});
      return false;
    }
    return true;
  }

  // A child of `parent` not known to the move: held (pidfd, then its parent
  // checked), its threads on `after` put back, then its own children.
  // False where it is not one (gone, or none of its threads on `after`).
  bool forked(std::set<pid_t>& known, pid_t pid, pid_t parent, const CpuSet& after,
              const std::optional<CpuSet>& restore) {
    int fd = m_tasks.pidfd_open(pid);
    if (fd >= 0) m_fds.push_back(fd);
    auto info = m_tasks.process_parent(pid);  // after the pidfd: then the pidfd is of this process
    if (!info || info->ppid != parent) return false;
    bool complete = false;
    if (m_tasks.list_threads(pid, m_tids, complete) != 0) return false;
    std::vector<pid_t> tids = m_tids;
    bool ours = false, stays = false;
    for (pid_t tid : tids) {
      if (m_affinity.get_affinity(tid, m_current) != 0 || !(m_current == after)) continue;
      ours = true;
      stays = !put_back(tid, after, restore, false, true) || stays;
    }
    if (!ours) return false;
    if (stays && !restore)  // (one that could not be put back is named by its threads)
      m_stays.push_back({pid, "on CPUs " + format_cpulist(after), "forked during the move; no old list to put back", true});
    for (auto [tid, child] : children(pid))
      if (known.insert(child).second) forked(known, child, pid, after, restore);
    return true;
  }

  // The children of a process's threads; where a listing cannot be trusted
  // to be whole, every process of /proc whose parent it is.
  std::vector<std::pair<pid_t, pid_t>> children(pid_t pid) {
    std::vector<std::pair<pid_t, pid_t>> out;
    if (list_tree_children(m_tasks, pid, out)) return out;
    out.clear();
    std::vector<ProcessParent> all;
    if (m_tasks.list_processes(all) == 0)
      for (const auto& e : all)
        if (e.ppid == pid) out.emplace_back(0, e.pid);
    return out;
  }

  static const ThreadMove* find_thread(const ProcessMove& p, pid_t tid) {
    auto at = std::lower_bound(p.threads.begin(), p.threads.end(), tid,
                               [](const ThreadMove& m, pid_t id) { return m.tid < id; });
    return at != p.threads.end() && at->tid == tid ? &*at : nullptr;
  }

  // The lists affix gave the threads of a process.
  static std::vector<CpuSet> afters(const ProcessMove& p) {
    std::vector<CpuSet> out;
    for (const auto& t : p.threads)
      if ((t.changed || t.inherited) && std::find(out.begin(), out.end(), t.after) == out.end())
        out.push_back(t.after);
    return out;
  }

  AffinityOs& m_affinity;
  TaskOs& m_tasks;
  std::vector<Stay> m_stays;
  std::vector<int> m_fds;  // the pidfds of forked processes, held to the end
  std::vector<pid_t> m_tids;
  CpuSet m_current;
};

}  // namespace

std::string roll_back(AffinityOs& affinity, TaskOs& tasks, const PinReport& report) {
  return RollBack(affinity, tasks).run(report);
}

}  // namespace affix
