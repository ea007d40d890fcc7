#include "pin.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "error.hpp"
#include "proc.hpp"
#include "sched_refusal.hpp"
#include "text.hpp"

namespace affix {

namespace {

// A thread's stat line: /proc/PID/task/TID, else /proc/TID (a TID alone).
std::optional<StatLine> thread_stat(const SysRoot& proc, pid_t pid, pid_t tid) {
  try {
    if (auto st = read_stat(proc, task_dir(pid, tid))) return st;
    return read_stat(proc, proc_dir(tid));
  } catch (const Error&) {
    return std::nullopt;
  }
}

constexpr unsigned k_listings = 3;  // listings of one pass that disagree with the count

Identity held_identity(TaskOs& os, pid_t id, int pidfd, unsigned long long start_time) {
  // A pidfd that is not readable: the process has not exited, so its PID
  // is still its own.
  if (pidfd >= 0 && os.pidfd_alive(pidfd)) return Identity::Same;
  auto start = os.start_time(id);
  if (!start) return Identity::Gone;
  if (*start != start_time) return Identity::Reused;
  return pidfd >= 0 ? Identity::Gone : Identity::Same;  // exited, not reaped yet
}

// One process being moved (with --tid, one thread).
struct Proc {
  size_t target = 0;         // index of its request
  bool thread_only = false;  // --tid: `id` is the thread
  pid_t id = 0;
  int pidfd = -1;
  unsigned long long start_time = 0;
  bool need_list = true;  // the next pass lists /proc/PID/task
  bool listed = false;    // listed at least once
  ProcessMove move;       // move.threads ascend
};

struct Target {
  PinRequest request;
  PinPlace place;
  size_t named = 0;  // index of the named process in Engine::m_procs
};

struct PassResult {
  bool proven = false;   // every thread of the process was on its list at one instant
  bool changed = false;  // a list was set
};

class Engine {
public:
  Engine(PinOs os, const SysRoot& proc, const PinOptions& options)
    : m_os(os), m_proc(proc), m_options(options), m_sched(options.sched.any()) {}
  ~Engine() { close_all(); }

  // Holds every target (pidfd, start time), then lets the caller resolve
  // each, then checks that each is still the process it held.
  void open(const std::vector<PinRequest>& requests, const PinResolver& resolve) {
    // With --tree, the fork events first: every fork that ends from here on is named.
    m_watch = m_options.forks && !m_options.dry_run &&
              std::any_of(requests.begin(), requests.end(), [](const PinRequest& r) { return r.scope == PinScope::Tree; });
    if (m_watch) m_events = m_options.forks->watch(m_no_events);
    for (const auto& request : requests) {
      bool thread_only = request.scope == PinScope::Thread;
      if (find(request.id, thread_only)) continue;  // named twice
      m_targets.push_back(Target{request, {}, m_procs.size()});
      hold_named(m_targets.size() - 1, request.id, thread_only);
    }
    for (auto& t : m_targets) t.place = resolve(t.request);
    for (auto& p : m_procs) settle_identity(p);
  }

  // The proof that no thread is left behind.
  //
  // A thread gets its creator's CPU list when it is created (clone copies
  // it), and only sched_setaffinity changes a list afterwards. Call a thread
  // good when its list is the one affix gave it (`after`), and a process
  // settled at an instant t when every thread it has at t is good: from then
  // on it creates only good threads and processes, so it stays settled
  // (unless someone else sets a list; a later pass then finds that thread
  // not good and sets it again, up to max_resets times).
  //
  // A pass over a process (pass) lists /proc/PID/task where the threads
  // affix knows may be incomplete, reads the kernel's thread count N at an
  // instant t right after, and then reads the list of every thread it
  // knows, those it has never read first. A thread affix has read was good
  // then (it sets any that is not, and reads back what the kernel kept), and
  // stays good. A pass that set nothing proves the process settled in
  // either of two ways:
  //
  // - by the count: each known thread that answers was listed before t and
  //   answers after it, so it was alive at t, and good. Where N equals the
  //   number that answered good, the threads at t were exactly those.
  //   Threads that exited before t are not counted: short-lived threads
  //   coming and going do not keep this proof from holding.
  // - by a listing, where the kernel walked the whole thread list (see
  //   TaskOs::list_threads): every thread alive when the walk ended is listed.
  //   Call a thread verified when affix read it on its list after it had
  //   run (TaskOs::has_run): its creation was complete, so its list can change
  //   no more except by sched_setaffinity. (Until then the kernel may still
  //   give it its creator's current list: cpuset_fork.) Where every listed
  //   thread is verified, read in this pass or before, every thread at the
  //   end of the walk was on its list, those that exited since included.
  //   Known threads exiting all the time (each exit after t leaves N above
  //   the good ones) do not keep this proof from holding. It reads a file
  //   per thread once, so it is used from the second listing on.
  //
  // With --tree, the tree is scanned for descendants after the processes
  // were visited (scan_tree): one that exists during the whole scan is
  // found (a children file the kernel walked without skipping, else /proc
  // in PID order); one created during it has a parent that the visits
  // before the scan proved settled, and is settled itself.
  //
  // The move ends at the first pass that proves every process settled, sets
  // nothing and, with --tree, finds no new process; it fails if that has
  // not come within limit_ms. One case escapes the proof: a clone that
  // copied its creator's list before affix set the creator, and that the
  // kernel makes visible (in the count and in /proc) only after the proving
  // pass. After every pass that set a list, the engine sleeps (settle_ms,
  // busy_settle_ms where threads came or went) so that such clones finish
  // first; one held inside the kernel longer keeps the old list. The man
  // page states this limit.
  //
  // With --tree (PinOptions::forks) that case is closed for the threads of
  // the tree: each thread affix set (at s) is watched until it is seen past
  // any clone it began before s (clear_forks), and the move ends only at a
  // pass and scan that begin after every such thread was: its clone has
  // then ended, so the new thread or process is in the count and in /proc
  // for that pass and scan to find. A thread is past it where, after s,
  // - the kernel's fork events (the process events connector, subscribed
  //   before the first pass) name a fork it made, sent after s: a thread
  //   forks one at a time, and that fork ended after any begun before s
  //   (and names its child, which is held at once);
  // - or /proc/PID/task/TID/syscall shows it not running and in another
  //   call than clone, fork, vfork or clone3, or in none;
  // - or it has not run since it was created (schedstat), or it is gone.
  // A thread that runs (or waits for a CPU) the whole time and forks
  // nothing cannot be told apart from one preempted inside clone: it is
  // let go after clone_wait_ms (PinReport::clone_unproven).
  PinReport run() {
    const uint64_t start = m_os.clock.now_ms();
    unsigned passes = 0;
    for (;;) {
      ++passes;
      // Before the passes: a thread cleared here is past its clone before they list.
      const bool cleared = clear_forks();
      if (m_os.clock.now_ms() - start > m_options.limit_ms) {
        fail(fmt::format("the threads of process {} kept changing for {:g} s", m_unsettled,
                         m_options.limit_ms / 1000.0),
             {});
      }
      bool proven = true, changed = false;
      for (size_t i = 0; i < m_procs.size(); ++i) {
        if (m_procs[i].move.exited) continue;
        PassResult r = pass(m_procs[i]);
        if (!r.proven && proven) m_unsettled = m_procs[i].id;
        proven = proven && r.proven;
        changed = changed || r.changed;
      }
      bool found = false;
      const size_t known = m_procs.size();
      for (size_t t = 0; t < m_targets.size(); ++t) {
        if (m_targets[t].request.scope == PinScope::Tree && scan_tree(t)) {
          if (!found && proven) m_unsettled = m_targets[t].request.id;
          found = true;
        }
      }
      // Children the fork events named that the scan did not find (yet).
      for (auto [parent, child] : m_named) {
        if (find(child, false)) continue;
        for (size_t i = 0; i < m_procs.size(); ++i) {
          const Proc& p = m_procs[i];
          if (p.id != parent || p.thread_only || m_targets[p.target].request.scope != PinScope::Tree) continue;
          if (hold_child(p.target, child, {parent})) found = true;
          break;
        }
      }
      m_named.clear();
      // Descendants found by this scan, in the order they started (their
      // threads are spread in that order at their first listing).
      std::stable_sort(m_procs.begin() + static_cast<std::ptrdiff_t>(known), m_procs.end(),
                       [](const Proc& a, const Proc& b) { return a.start_time < b.start_time; });
      if (m_options.dry_run ? !found : proven && !changed && !found && cleared) break;
      if (proven && !changed && !found && !m_pending.empty()) m_unsettled = m_pending.begin()->second.pid;
      if (changed) m_os.clock.sleep_ms(m_churn ? m_options.busy_settle_ms : m_options.settle_ms);
      else if (!cleared) m_os.clock.sleep_ms(1);
    }
    PinReport report = snapshot();
    report.passes = passes;
    report.no_fork_events = m_watch && !m_events ? m_no_events : std::string();
    report.clone_unproven = m_unproven;
    report.held = hand_over();
    return report;
  }

private:
  // One pass over one process (see run).
  PassResult pass(Proc& p) {
    PassResult result;
    auto& threads = p.move.threads;
    std::optional<size_t> count;  // N, the threads of the process at one instant
    bool complete = false;         // a listing taken in this pass that the kernel did not cut short
    const bool relisting = p.listed;
    if (p.thread_only) {
      if (threads.empty()) add_thread(p, 0, p.id);
      count = 1;
    } else {
      unsigned n = 0;
      if (!p.need_list && m_os.tasks.thread_count(p.id, n) == 0) {
        count = n;
      } else if (!list(p, count, complete)) {
        settle_identity(p);
        return {true, false};  // it exited
      }
    }
    // Still the process affix was asked for? Checked before anything is set.
    if (!settle_identity(p)) return {true, false};
    // Threads not seen before first: the newest, the likeliest to be short-lived.
    m_order.clear();
    for (size_t i = 0; i < threads.size(); ++i)
      if (!threads[i].gone && !threads[i].seen) m_order.push_back(i);
    for (size_t i = 0; i < threads.size(); ++i)
      if (!threads[i].gone && threads[i].seen) m_order.push_back(i);
    const bool verify = complete && relisting;  // see run: the proof by a listing
    Tally tally;
    for (size_t i : m_order) visit(p, threads[i], tally, result, verify);
    p.need_list = !count || *count != tally.answered;
    bool counted = count && *count == tally.good;
    result.proven = !result.changed && (counted || (verify && all_verified(threads)));
    return result;
  }

  // Whether every thread of the listing just taken (m_tids) is verified.
  bool all_verified(const std::vector<ThreadMove>& threads) const {
    size_t at = 0;
    for (pid_t tid : m_tids) {
      while (at < threads.size() && threads[at].tid < tid) ++at;
      if (at == threads.size() || threads[at].tid != tid || !threads[at].verified) return false;
    }
    return true;
  }

  struct Tally {
    size_t answered = 0;  // threads that answered (alive at the count)
    size_t good = 0;      // ...and were on their list, untouched
  };

  // Reads one thread's list (and attributes) and sets what is not as asked,
  // in the order the kernel admits (sched.hpp, cpus_first). With `verify`,
  // a thread not verified yet is checked to have run first.
  void visit(Proc& p, ThreadMove& t, Tally& tally, PassResult& result, bool verify) {
    const bool ran = verify && !t.verified && m_os.tasks.has_run(p.id, t.tid);
    int err = m_os.affinity.get_affinity(t.tid, m_current);
    if (err == 0 && m_sched) err = read_sched(p, t.tid, m_sched_now);
    if (err == ESRCH) {
      mark_gone(t);
      return;
    }
    if (err != 0) fail_thread(p, t.tid, fmt::format("cannot read its CPU list: {}", errno_text(err)), {});
    ++tally.answered;
    if (m_targets[p.target].place.keep_cpus) t.want = t.after = m_current;  // its list is as asked
    const bool sched_ok = !m_sched || sched_satisfies(m_sched_now, m_options.sched);
    if (!t.seen) {
      t.seen = true;
      t.before = m_current;
      t.sched_before = t.sched_after = m_sched_now;
      t.inherited = t.inherited && m_current == t.want && sched_ok;
      if (m_options.dry_run && !m_options.check) predict(p, t);
    }
    const bool cpus_ok = m_current == t.after;
    if ((cpus_ok && sched_ok) || m_options.dry_run) {
      tally.good += cpus_ok && sched_ok;
      t.verified = t.verified || (ran && cpus_ok && sched_ok);
      return;
    }
    if ((!cpus_ok && t.changed) || (!sched_ok && t.sched_changed)) {
      if (++t.resets > m_options.max_resets) {
        if (!cpus_ok)
          fail_thread(p, t.tid, fmt::format("its CPU list keeps changing back to {}", format_cpulist(m_current)),
                      "does the program pin its own threads?");
        fail_thread(p, t.tid, fmt::format("its scheduling policy keeps changing back to {}", sched_attr_text(m_sched_now)),
                    "does the program set its own threads' policy?");
      }
    }
    std::optional<SchedAttr> want;
    if (!sched_ok) want = sched_want_of(p, t.tid, m_sched_now);
    bool changed = false;
    if (want && !cpus_first(want->policy) && !set_sched(p, t, *want, tally, changed)) return;
    if (!cpus_ok && !set_cpus(p, t, tally, changed)) return;
    if (want && cpus_first(want->policy) && !set_sched(p, t, *want, tally, changed)) return;
    if (changed) {
      result.changed = true;
      watch_clone(p, t);
    } else {
      ++tally.good;  // the kernel's list for it is the one it had
    }
  }

  // With --tree: a thread just set is watched until it is past any clone
  // it began before (see run).
  void watch_clone(const Proc& p, const ThreadMove& t) {
    if (!m_watch || m_targets[p.target].request.scope != PinScope::Tree) return;
    m_pending[t.tid] = Pending{p.thread_only ? p.move.pid : p.id, m_options.forks->now_ns(), m_os.clock.now_ms()};
  }

  // Clears the threads watched that are past any clone begun before affix
  // set them (see run); true where none is left. Names the children of the
  // tree that the fork events report, for the scan.
  bool clear_forks() {
    if (!m_watch) return true;
    if (m_events) {
      m_fork_events.clear();
      m_options.forks->events(m_fork_events);
      for (const auto& e : m_fork_events) {
        if (!e.new_process()) continue;  // a thread's event names its process's parent, not its creator
        auto it = m_pending.find(e.pid);
        if (it != m_pending.end() && e.time_ns > it->second.set_ns) m_pending.erase(it);
        if (!find(e.child_pid, false) && find(e.tgid, false)) m_named.emplace_back(e.tgid, e.child_pid);  // of the tree
      }
    }
    const uint64_t now = m_os.clock.now_ms();
    for (auto it = m_pending.begin(); it != m_pending.end();) {
      CloneState state = m_options.forks->clone_state(it->second.pid, it->first);
      if (state == CloneState::Unknown && now - it->second.since_ms >= m_options.clone_wait_ms) {
        ++m_unproven;
        state = CloneState::Outside;
      }
      if (state == CloneState::Outside) it = m_pending.erase(it);
      else ++it;
    }
    return m_pending.empty();
  }

  // Sets a thread's list; false where it is gone.
  bool set_cpus(Proc& p, ThreadMove& t, Tally& tally, bool& changed) {
    int err = m_os.affinity.set_affinity(t.tid, t.want);
    // The kernel keeps what its cpuset allows.
    if (err == 0) err = m_os.affinity.get_affinity(t.tid, m_accepted);
    if (err == ESRCH) {
      mark_gone(t);
      --tally.answered;
      return false;
    }
    if (err != 0) refuse(p, t.tid, t.want, err);
    t.after = m_accepted;
    if (m_accepted == m_current) return true;
    t.restore = m_current;
    t.changed = true;
    changed = true;
    return true;
  }

  // Sets a thread's attributes and reads them back; false where it is gone.
  bool set_sched(Proc& p, ThreadMove& t, const SchedAttr& want, Tally& tally, bool& changed) {
    int err = m_os.sched.set_sched(t.tid, want);
    if (err == 0) err = m_os.sched.get_sched(t.tid, m_sched_after);
    if (err == ESRCH) {
      mark_gone(t);
      --tally.answered;
      return false;
    }
    if (err != 0) refuse_sched(p, t, want, err);
    t.sched_restore = sched_restorable(m_sched_now, m_options.sched);
    t.sched_after = m_sched_after;
    t.sched_changed = changed = true;
    if (!sched_satisfies(m_sched_after, m_options.sched))
      fail_sched(p, t.tid, fmt::format("the kernel kept {}", sched_have_text(m_sched_after, m_options.sched)), {});
    return true;
  }

  int read_sched(const Proc& p, pid_t tid, SchedAttr& out) {
    int err = m_os.sched.get_sched(tid, out);
    if (err != 0 && err != ESRCH)
      fail_thread(p, tid, fmt::format("cannot read its scheduling policy: {}", errno_text(err)), {});
    return err;
  }

  // What a thread is to get, or the failure where the request cannot apply to it.
  SchedAttr sched_want_of(const Proc& p, pid_t tid, const SchedAttr& current) {
    std::string why;
    auto want = sched_want(m_options.sched, current, why);
    if (!want) fail_sched(p, tid, why, "add --policy other (or batch) to change the policy too");
    return *want;
  }

  // --dry-run: what the kernel would keep of the list (the part inside the
  // thread's cpuset) and of the policy, and the refusals the real run would
  // meet, with its words (affix(1), GUARANTEES).
  void predict(const Proc& p, ThreadMove& t) {
    if (m_options.cpuset_of) {
      if (auto cpuset = m_options.cpuset_of(p.thread_only ? p.move.pid : p.id, t.tid)) t.after = t.want & *cpuset;
    }
    if (m_sched && !sched_satisfies(t.sched_before, m_options.sched)) {
      t.sched_after = sched_want_of(p, t.tid, t.sched_before);
      if (t.sched_after.policy == SchedPolicy::Deadline) {
        if (!m_facts || !(m_facts->cpus == t.after)) m_facts = m_os.sched.sched_facts(t.after);  // once per list
        if (auto r = predict_deadline_refusal(t.after, *m_facts)) fail_sched(p, t.tid, r->reason, r->hint);
      }
    }
    if (t.after == m_current) return;  // the real run would not set it
    auto st = thread_stat(m_proc, p.thread_only ? t.tid : p.id, t.tid);
    if (t.after.empty() || (st && (st->flags & k_pf_no_setaffinity))) refuse(p, t.tid, t.want, EINVAL);
  }

  // Lists the threads of a process into p.move.threads and sets `count`.
  // A listing can miss threads: the kernel walks the thread list one entry
  // at a time, and where the thread it stands on exits, the walk ends early.
  // So the count is read after each listing, and a listing that disagrees
  // with it is taken again, up to k_listings times (a process that keeps
  // creating and ending threads may never agree; then the pass proves
  // nothing and the next one lists again). False where the process is gone.
  bool list(Proc& p, std::optional<size_t>& count, bool& complete) {
    for (unsigned attempt = 1;; ++attempt) {
      int err = m_os.tasks.list_threads(p.id, m_tids, complete);
      if (err == ESRCH || (err == 0 && m_tids.empty())) return false;
      if (err != 0) fail(fmt::format("cannot list the threads of process {}: {}", p.id, errno_text(err)), {});
      unsigned n = 0;
      if (m_os.tasks.thread_count(p.id, n) != 0) {
        count = m_tids.size();  // no count to check it against: the listing stands
        break;
      }
      count = n;
      if (n == m_tids.size() || attempt >= k_listings) break;
    }
    if (!std::is_sorted(m_tids.begin(), m_tids.end())) std::sort(m_tids.begin(), m_tids.end());
    // Both ascend: a TID not known is inserted in its place.
    auto& threads = p.move.threads;
    size_t at = 0;
    for (pid_t tid : m_tids) {
      while (at < threads.size() && threads[at].tid < tid) ++at;
      if (at < threads.size() && threads[at].tid == tid) {
        if (threads[at].gone) revive(p, threads[at]);
        continue;
      }
      add_thread(p, at, tid);
    }
    p.listed = true;
    return true;
  }

  ThreadMove fresh_thread(Proc& p, pid_t tid) {
    auto& target = m_targets[p.target];
    ThreadMove t;
    t.tid = tid;
    const auto& spread = target.place.spread;
    const bool tree_root = target.request.scope == PinScope::Tree && !p.thread_only && p.id == target.request.id;
    if (spread.empty() || tree_root) {
      t.want = target.place.cpus;
    } else {  // one round over every target (PinPlace)
      size_t per_cpu = std::max(1u, target.place.per_cpu);
      t.want.set(spread[(m_spread_next++ / per_cpu) % spread.size()]);
    }
    t.after = t.want;
    t.inherited = p.listed;  // created during the move: on `want` at first sight means from its creator
    if (p.listed) m_churn = true;
    return t;
  }

  // A TID that answered "No such process" is listed again: a new thread
  // with the same TID, one would think; but where it keeps happening, the
  // kernel refuses live threads with ESRCH (a seccomp filter can).
  void revive(Proc& p, ThreadMove& t) {
    unsigned revivals = t.resets + 1;
    if (revivals > m_options.max_resets) {
      fail_thread(p, t.tid, "the kernel answers \"No such process\" for it, yet /proc still lists it",
                  "a seccomp filter or a security module may refuse sched_setaffinity that way");
    }
    t = fresh_thread(p, t.tid);
    t.resets = revivals;
  }

  void add_thread(Proc& p, size_t at, pid_t tid) {
    auto& threads = p.move.threads;
    threads.insert(threads.begin() + static_cast<std::ptrdiff_t>(at), fresh_thread(p, tid));
  }

  void mark_gone(ThreadMove& t) {
    t.gone = true;
    m_churn = true;
  }

  // With --tree: adds the descendants of the target's processes that are
  // not tracked yet. True where it found one. The children of each process
  // come from its threads' children files, so a scan costs what the tree
  // holds; where one of them cannot be trusted to be whole
  // (list_tree_children), every process's parent is read from /proc.
  bool scan_tree(size_t target) {
    std::set<pid_t> tree;
    std::vector<size_t> queue;
    for (size_t i = 0; i < m_procs.size(); ++i) {
      if (m_procs[i].target != target) continue;
      tree.insert(m_procs[i].id);
      if (!m_procs[i].move.exited) queue.push_back(i);
    }
    bool found = false;
    for (size_t q = 0; q < queue.size(); ++q) {
      if (!list_tree_children(m_os.tasks, m_procs[queue[q]].id, m_children))
        return scan_all(target, tree) || found;
      for (const auto& [tid, child] : m_children) {
        if (!tree.insert(child).second || find(child, false)) continue;
        if (hold_child(target, child, tree)) {
          found = true;
          queue.push_back(m_procs.size() - 1);  // to the grandchildren and beyond
        }
      }
    }
    return found;
  }

  // The same from every process's parent in /proc: /proc lists processes
  // in PID order, so one that exists during the whole scan is found.
  bool scan_all(size_t target, std::set<pid_t>& tree) {
    int err = m_os.tasks.list_processes(m_entries);
    if (err != 0) fail(fmt::format("cannot read the list of processes in /proc: {}", errno_text(err)), {});
    bool found = false;
    for (bool grew = true; grew;) {  // to the grandchildren and beyond
      grew = false;
      for (const auto& e : m_entries) {
        if (tree.count(e.pid) || !tree.count(e.ppid)) continue;
        tree.insert(e.pid);
        grew = true;
        if (!find(e.pid, false) && hold_child(target, e.pid, tree)) found = true;
      }
    }
    return found;
  }

  // A descendant found by a scan; false where it is gone already, or its
  // PID names a process whose parent is not in the tree by the time the
  // pidfd is open (the child exited and its PID went to another).
  bool hold_child(size_t target, pid_t pid, const std::set<pid_t>& tree) {
    Proc p;
    p.target = target;
    p.id = pid;
    p.move.pid = pid;
    int fd = m_os.tasks.pidfd_open(pid);
    auto info = m_os.tasks.process_parent(pid);  // after the pidfd: then the pidfd is of this process
    if (!info || !tree.count(info->ppid)) {
      if (fd >= 0) m_os.tasks.close_fd(fd);
      return false;
    }
    p.pidfd = fd >= 0 ? fd : -1;
    p.start_time = info->start_time;
    m_procs.push_back(std::move(p));
    return true;
  }

  void hold_named(size_t target, pid_t id, bool thread_only) {
    Proc p;
    p.target = target;
    p.thread_only = thread_only;
    p.id = id;
    p.move.pid = id;
    p.need_list = !thread_only;
    if (!thread_only) {
      int fd = m_os.tasks.pidfd_open(id);
      if (fd == -ESRCH) throw Error(ErrorKind::Runtime, fmt::format("no such process: {}", id));
      p.pidfd = fd >= 0 ? fd : -1;
      m_procs.push_back(p);  // closed by close_all from here on
      if (fd < 0) {  // EINVAL: a thread that is not a main thread; ENOSYS: no pidfd here
        auto st = status_of(id);
        if (st && st->tgid > 0 && st->tgid != id) {
          throw Error(ErrorKind::Usage, fmt::format("{} is a thread of process {}", id, st->tgid),
                      fmt::format("'--tid {}' moves only that thread; '{}' moves the whole process", id, st->tgid));
        }
      }
    } else {
      if (auto st = status_of(id); st && st->tgid > 0) p.move.pid = st->tgid;
      m_procs.push_back(p);
    }
    auto start = m_os.tasks.start_time(id);
    if (!start) {
      throw Error(ErrorKind::Runtime, fmt::format("no such {}: {}", thread_only ? "thread" : "process", id));
    }
    m_procs.back().start_time = *start;
  }

  std::optional<StatusInfo> status_of(pid_t id) const {
    try {
      return read_status(m_proc, proc_dir(id));
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  bool find(pid_t id, bool thread_only) const {
    return std::any_of(m_procs.begin(), m_procs.end(),
                       [&](const Proc& p) { return p.id == id && p.thread_only == thread_only; });
  }

  // False where the process exited (marked so); throws where its PID was reused.
  bool settle_identity(Proc& p) {
    switch (identity(p)) {
      case Identity::Same: return true;
      case Identity::Gone: p.move.exited = true; return false;
      case Identity::Reused:
        p.move.exited = true;  // its TIDs are someone else's now: the rollback leaves them
        fail(fmt::format("process {} exited and its PID was reused during the move", p.id), {});
    }
    return true;
  }

  Identity identity(const Proc& p) { return held_identity(m_os.tasks, p.id, p.pidfd, p.start_time); }

  [[noreturn]] void refuse(const Proc& p, pid_t tid, const CpuSet& cpus, int err) {
    if (err == EPERM) fail_thread(p, tid, "permission denied", eperm_hint(m_os.caps));
    if (err == EBUSY) {  // a SCHED_DEADLINE thread, narrowed below its root domain
      SchedRefusal r = explain_deadline_cpus(cpus, m_os.sched.sched_facts(m_current));
      fail_thread(p, tid, r.reason, r.hint);
    }
    if (err == EINVAL) {
      auto st = thread_stat(m_proc, p.thread_only ? tid : p.id, tid);
      if (st && (st->flags & k_pf_no_setaffinity))
        fail_thread(p, tid, "it is a kernel thread that cannot be moved (PF_NO_SETAFFINITY)", {});
      fail_thread(p, tid, fmt::format("the kernel refused CPUs {}: {}", format_cpulist(cpus), errno_text(err)),
                  "the CPUs must be in the target's own cpuset");
    }
    fail_thread(p, tid, errno_text(err), {});
  }

  [[noreturn]] void fail_thread(const Proc& p, pid_t tid, const std::string& reason, const std::string& hint,
                                const std::string& what = "move") {
    std::string who = "thread " + thread_name(m_proc, p.thread_only ? tid : p.id, tid);
    if (!p.thread_only) who += fmt::format(" of process {}", p.id);
    fail(fmt::format("cannot {} {}: {}", what, who, reason), hint);
  }

  // "cannot set policy fifo:50 on thread 12 (worker) of process 10: ..."
  [[noreturn]] void fail_sched(const Proc& p, pid_t tid, const std::string& reason, const std::string& hint) {
    fail_thread(p, tid, reason, hint, "set " + sched_request_text(m_options.sched) + " on");
  }

  // The kernel refused `want` on a thread whose CPUs are now t.after (set
  // first) or still m_current.
  [[noreturn]] void refuse_sched(const Proc& p, const ThreadMove& t, const SchedAttr& want, int err) {
    const CpuSet& cpus = cpus_first(want.policy) ? t.after : m_current;
    SchedRefusal r = explain_sched_refusal(want, m_sched_now, err, m_os.sched.sched_facts(cpus));
    fail_sched(p, t.tid, r.reason, r.hint);
  }

  // Puts back what was changed, then throws.
  [[noreturn]] void fail(const std::string& what, const std::string& hint) {
    std::string stays = m_options.dry_run ? std::string() : roll_back(m_os.affinity, m_os.tasks, m_os.sched, snapshot());
    close_all();
    if (stays.empty()) throw Error(ErrorKind::Runtime, what + "; nothing was changed", hint);
    throw Error(ErrorKind::Runtime, what + "; not every thread was put back",
                hint.empty() ? stays : hint + "; " + stays);
  }

  PinReport snapshot() {
    PinReport report;
    report.sched = m_options.sched;
    for (size_t i = 0; i < m_targets.size(); ++i) {
      TargetReport t;
      t.request = m_targets[i].request;
      t.place = m_targets[i].place;
      t.exited = m_procs[m_targets[i].named].move.exited;
      for (auto& p : m_procs) {
        if (p.target != i) continue;
        ProcessMove move = p.move;
        move.pidfd = p.pidfd;
        move.start_time = p.start_time;
        // The list (and attributes) every thread had when the process was first read.
        bool first = true, same_cpus = true, same_sched = m_sched;
        for (const auto& th : move.threads) {
          if (!th.seen || th.inherited) continue;
          if (first) {
            move.common_before = th.before;
            move.common_sched_before = sched_restorable(th.sched_before, m_options.sched);
            first = false;
            continue;
          }
          same_cpus = same_cpus && *move.common_before == th.before;
          same_sched = same_sched && *move.common_sched_before == sched_restorable(th.sched_before, m_options.sched);
        }
        if (!same_cpus) move.common_before.reset();
        if (!same_sched) move.common_sched_before.reset();
        t.processes.push_back(std::move(move));
      }
      std::sort(t.processes.begin(), t.processes.end(),
                [](const ProcessMove& a, const ProcessMove& b) { return a.pid < b.pid; });
      report.targets.push_back(std::move(t));
    }
    return report;
  }

  // The pidfds, for the report: closed when its last copy goes.
  std::shared_ptr<void> hand_over() {
    auto fds = std::make_shared<std::vector<int>>();
    for (auto& p : m_procs) {
      if (p.pidfd >= 0) fds->push_back(p.pidfd);
      p.pidfd = -1;
    }
    TaskOs* tasks = &m_os.tasks;
    return std::shared_ptr<void>(nullptr, [tasks, fds](void*) {
      for (int fd : *fds) tasks->close_fd(fd);
    });
  }

  void close_all() {
    for (auto& p : m_procs) {
      if (p.pidfd >= 0) m_os.tasks.close_fd(p.pidfd);
      p.pidfd = -1;
    }
  }

  PinOs m_os;
  const SysRoot& m_proc;
  PinOptions m_options;
  const bool m_sched;       // a scheduling request: every thread's attributes too
  std::vector<Target> m_targets;
  std::vector<Proc> m_procs;
  bool m_churn = false;     // threads came or went during the move
  size_t m_spread_next = 0; // --spread: the threads given a CPU so far, over every target
  pid_t m_unsettled = 0;    // the first process the last pass did not prove settled
  std::vector<pid_t> m_tids;               // reused between listings
  std::vector<size_t> m_order;             // the order of a pass's visits
  std::vector<ProcessParent> m_entries;    // reused between scans
  std::vector<std::pair<pid_t, pid_t>> m_children;  // reused between scans
  CpuSet m_current, m_accepted;
  SchedAttr m_sched_now, m_sched_after;
  std::optional<SchedFacts> m_facts;  // --dry-run: the facts of the last list a deadline policy was foreseen on
  // With --tree and PinOptions::forks (see run).
  struct Pending {
    pid_t pid;         // its process
    uint64_t set_ns;   // the forks' clock, read after affix set it
    uint64_t since_ms; // m_os.clock then
  };
  bool m_watch = false;   // threads set are watched past their clones
  bool m_events = false;  // the kernel's fork events are had
  std::string m_no_events;  // why not
  std::map<pid_t, Pending> m_pending;  // by TID: the threads set that are not past a clone yet
  std::vector<ProcEvent> m_fork_events;               // reused between passes
  std::vector<std::pair<pid_t, pid_t>> m_named;       // (parent process, child) from the events
  size_t m_unproven = 0;  // let go after clone_wait_ms
};

}  // namespace

PinReport pin_threads(PinOs os, const SysRoot& proc, const std::vector<PinRequest>& requests,
                      const PinResolver& resolve, const PinOptions& options) {
  Engine engine(os, proc, options);
  engine.open(requests, resolve);
  return engine.run();
}

Identity identity_of(TaskOs& os, const ProcessMove& p) {
  return held_identity(os, p.pid, p.pidfd, p.start_time);
}

bool list_tree_children(TaskOs& os, pid_t pid, std::vector<std::pair<pid_t, pid_t>>& out) {
  out.clear();
  std::vector<pid_t> tids, children;
  bool complete = false;
  int err = os.list_threads(pid, tids, complete);
  if (err == ESRCH) return true;  // gone: its children are no longer in the tree
  if (err != 0 || !complete) return false;
  for (pid_t tid : tids) {
    err = os.list_children(pid, tid, children, complete);
    if (err != 0 || !complete) return false;
    for (pid_t child : children) out.emplace_back(tid, child);
  }
  unsigned n = 0;
  err = os.thread_count(pid, n);
  return err == ESRCH || (err == 0 && n == tids.size());
}

std::string thread_name(const SysRoot& proc, pid_t pid, pid_t tid) {
  auto st = thread_stat(proc, pid, tid);
  return st ? fmt::format("{} ({})", tid, printable(st->comm)) : std::to_string(tid);
}

}  // namespace affix
