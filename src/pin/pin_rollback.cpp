// roll_back: puts back what a pin changed, where the list (and the policy)
// is still the one affix set, and says which threads stay where (pin.hpp).
// A thread's two parts go back in the order the kernel admits for the
// policy put back (sched.hpp, cpus_first), each on its own: one that
// someone else changed stays as they set it.
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
  std::string where;  // "on CPUs 1" (with a policy: "on CPUs 1, policy fifo:50"),
                      // or "where it is" where it cannot be read
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

// What to put back on a thread: each part affix set (nullopt: it set none),
// with what to put back (nullopt: no old one is known).
struct Undo {
  std::optional<CpuSet> after, restore;
  std::optional<SchedAttr> sched_after, sched_restore;
  bool created = false;  // created during the move: what it came with is its creator's
};

class RollBack {
public:
  RollBack(AffinityOs& affinity, TaskOs& tasks, SchedOs& sched, const SchedRequest& request)
    : m_affinity(affinity), m_tasks(tasks), m_sched_os(sched), m_request(request), m_sched(request.any()) {}
  ~RollBack() {
    for (int fd : m_fds) m_tasks.close_fd(fd);
  }

  std::string run(const PinReport& report) {
    for (const auto& target : report.targets) {
      m_keep_cpus = target.place.keep_cpus;
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
      m_keep_cpus = target.place.keep_cpus;
      std::set<pid_t> known;
      for (const auto& p : target.processes) known.insert(p.pid);
      for (const auto& p : target.processes) {
        if (p.exited || !same(target, p)) continue;
        for (auto [tid, child] : children(p.pid)) {
          if (!known.insert(child).second) continue;
          auto at = find_thread(p, tid);
          if (at && (at->changed || at->sched_changed)) {
            Undo u = undo_of(*at);
            if (!u.after) u.after = u.restore = at->after;  // its list was as asked: the child's too
            forked(known, child, p.pid, u);
          } else {
            for (const auto& list : afters(p))
              if (forked(known, child, p.pid, inherited_undo(p, list))) break;
          }
        }
      }
    }
    return describe(std::move(m_stays));
  }

private:
  // The process the move held? For --tid, the thread by its start time: a
  // moved thread whose TID another thread has now is left to it, and named.
  bool same(const TargetReport& target, const ProcessMove& p) {
    if (target.request.scope != PinScope::Thread) return identity_of(m_tasks, p) == Identity::Same;
    auto start = m_tasks.start_time(target.request.id);
    const bool moved = std::any_of(p.threads.begin(), p.threads.end(),
                                   [](const ThreadMove& t) { return t.changed || t.sched_changed; });
    if (start && *start != p.start_time && moved)
      m_stays.push_back({target.request.id, "as it is", "it exited during the move, and its TID is another thread's now"});
    return start && *start == p.start_time;
  }

  void put_back_process(const TargetReport& target, const ProcessMove& p) {
    const bool thread_only = target.request.scope == PinScope::Thread;
    // A TID the process no longer lists is gone, or another's by now.
    bool complete = false;
    bool check = !thread_only && m_tasks.list_threads(p.pid, m_tids, complete) == 0 && complete;
    for (const auto& t : p.threads) {
      if (t.gone || (check && !listed(m_tids, t.tid))) continue;
      if (t.changed || t.sched_changed) put_back(t.tid, undo_of(t), true);
      else if (t.inherited) put_back(t.tid, inherited_undo(p, t.after, &t), true);
    }
    // Threads created since the last listing, from a creator affix had
    // moved: on one of the lists affix set (with --spread, several).
    if (thread_only || m_tasks.list_threads(p.pid, m_tids, complete) != 0) return;
    std::vector<CpuSet> lists = afters(p);
    for (pid_t tid : m_tids) {
      if (find_thread(p, tid) || m_affinity.get_affinity(tid, m_current) != 0) continue;
      if (std::find(lists.begin(), lists.end(), m_current) == lists.end()) continue;
      put_back(tid, inherited_undo(p, m_current), true);
    }
  }

  Undo undo_of(const ThreadMove& t) const {
    Undo u;
    if (t.changed) u.after = t.after, u.restore = t.restore;
    if (t.sched_changed) u.sched_after = t.sched_after, u.sched_restore = t.sched_restore;
    return u;
  }

  // A thread created during the move on `after` (from its creator): back to
  // the list and attributes every thread of its process had. Its own
  // attributes, where affix read them (`t`), else any that are as asked.
  Undo inherited_undo(const ProcessMove& p, const CpuSet& after, const ThreadMove* t = nullptr) const {
    Undo u;
    u.created = true;
    if (!m_keep_cpus) {  // (a pin that keeps the CPUs gave it no list)
      u.after = after;
      u.restore = p.common_before;
    }
    if (m_sched) {
      u.sched_after = t ? std::optional<SchedAttr>(t->sched_after) : std::nullopt;
      u.sched_restore = p.common_sched_before;
    }
    return u;
  }

  // Puts one thread's parts back where they are still those affix set.
  // False where something stays (and says why). `forked`: a thread of a
  // process found by the roll back, ours only where it is on u.after.
  bool put_back(pid_t tid, const Undo& u, bool read, bool forked = false) {
    int err = read ? m_affinity.get_affinity(tid, m_current) : 0;
    if (err == 0 && m_sched) err = m_sched_os.get_sched(tid, m_sched_now);
    if (err == ESRCH) return true;
    if (err != 0) {
      m_stays.push_back({tid, "where it is", fmt::format("its list cannot be read: {}", errno_text(err))});
      return false;
    }
    if (forked && u.after && !(m_current == *u.after)) return true;  // not from affix's list
    std::vector<std::string> why;
    const bool cpus_back = u.after && m_current == *u.after && u.restore;
    // Without a known attribute set by affix (a thread seen first here), one as asked came from its creator.
    const bool sched_ours = m_sched && (u.sched_after ? m_sched_now == *u.sched_after
                                                      : sched_satisfies(m_sched_now, m_request));
    const bool sched_back = sched_ours && u.sched_restore && !(m_sched_now == *u.sched_restore);
    if (u.after && !(m_current == *u.after)) why.push_back("changed by someone else during the move");
    else if (u.after && !u.restore && !forked) why.push_back("created during the move; no old list to put back");
    if (u.sched_after && !sched_ours) why.push_back("its policy changed by someone else during the move");
    else if (u.created && sched_ours && !u.sched_restore && !forked)
      why.push_back("created during the move; no old policy to put back");
    auto set_cpus = [&] {
      if (int e = cpus_back ? m_affinity.set_affinity(tid, *u.restore) : 0; e != 0 && e != ESRCH)
        why.push_back(fmt::format("could not be put back: {}", errno_text(e)));
    };
    auto set_sched = [&] {
      if (int e = sched_back ? m_sched_os.set_sched(tid, *u.sched_restore) : 0; e != 0 && e != ESRCH)
        why.push_back(fmt::format("its policy could not be put back: {}", errno_text(e)));
    };
    if (sched_back && cpus_first(u.sched_restore->policy)) set_cpus(), set_sched();
    else set_sched(), set_cpus();
    if (why.empty()) return !(forked && !u.restore);  // (such a process is named as a whole)
    m_stays.push_back({tid, where(tid), join(why)});
    return false;
  }

  // Where a thread that stays is now, as the kernel reads it.
  std::string where(pid_t tid) {
    if (m_affinity.get_affinity(tid, m_current) != 0) return "where it is";
    std::string out = "on CPUs " + format_cpulist(m_current);
    if (m_sched && m_sched_os.get_sched(tid, m_sched_now) == 0) out += ", policy " + sched_attr_text(m_sched_now);
    return out;
  }

  static std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
    return out;
  }

  // A child of `parent` not known to the move: held (pidfd, then its parent
  // checked), its threads on `u.after` put back, then its own children.
  // False where it is not one (gone, or none of its threads on u.after).
  bool forked(std::set<pid_t>& known, pid_t pid, pid_t parent, const Undo& u) {
    int fd = m_tasks.pidfd_open(pid);
    if (fd >= 0) m_fds.push_back(fd);
    auto info = m_tasks.process_parent(pid);  // after the pidfd: then the pidfd is of this process
    if (!info || info->ppid != parent || !u.after) return false;
    bool complete = false;
    if (m_tasks.list_threads(pid, m_tids, complete) != 0) return false;
    std::vector<pid_t> tids = m_tids;
    bool ours = false, stays = false;
    for (pid_t tid : tids) {
      if (m_affinity.get_affinity(tid, m_current) != 0 || !(m_current == *u.after)) continue;
      ours = true;
      stays = !put_back(tid, u, false, true) || stays;
    }
    if (!ours) return false;
    if (stays && !u.restore)  // (one that could not be put back is named by its threads)
      m_stays.push_back({pid, "on CPUs " + format_cpulist(*u.after), "forked during the move; no old list to put back", true});
    for (auto [tid, child] : children(pid))
      if (known.insert(child).second) forked(known, child, pid, u);
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
      if ((t.changed || t.sched_changed || t.inherited) && std::find(out.begin(), out.end(), t.after) == out.end())
        out.push_back(t.after);
    return out;
  }

  AffinityOs& m_affinity;
  TaskOs& m_tasks;
  SchedOs& m_sched_os;
  const SchedRequest& m_request;
  const bool m_sched;  // the pin set policies too
  bool m_keep_cpus = false;  // the target's pin left the CPU lists as they were (PinPlace::keep_cpus)
  std::vector<Stay> m_stays;
  std::vector<int> m_fds;  // the pidfds of forked processes, held to the end
  std::vector<pid_t> m_tids;
  CpuSet m_current;
  SchedAttr m_sched_now;
};

}  // namespace

std::string roll_back(AffinityOs& affinity, TaskOs& tasks, SchedOs& sched, const PinReport& report) {
  return RollBack(affinity, tasks, sched, report.sched).run(report);
}

}  // namespace affix
