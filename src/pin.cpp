#include "pin.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "error.hpp"
#include "proc.hpp"

namespace affix {

namespace {

enum class Identity { Same, Gone, Reused };

// One PID (or TID) being moved.
struct Tracked {
  PinTarget target;
  TargetReport report;  // report.threads is kept in ascending TID order
  int pidfd = -1;
  unsigned long long start_time = 0;
  bool listed = false;         // its /proc/PID/task was read once
  bool listed_before = false;  // ... before the listing now being walked
};

std::string errno_text(int err) { return std::strerror(err); }

constexpr unsigned k_listings = 3;  // listings of one pass that disagree with the count

class Engine {
public:
  Engine(Os& os, const SysRoot& proc, const PinOptions& options)
    : m_os(os), m_proc(proc), m_options(options) {}

  ~Engine() {
    for (auto& t : m_tracked)
      if (t.pidfd >= 0) m_os.close_fd(t.pidfd);
  }

  void open(const std::vector<PinTarget>& targets) {
    for (const auto& target : targets) {
      bool duplicate = std::any_of(m_tracked.begin(), m_tracked.end(),
                                   [&](const Tracked& t) { return t.target.id == target.id; });
      if (duplicate) continue;
      Tracked t;
      t.target = target;
      t.report.id = target.id;
      t.report.single_thread = target.single_thread;
      // A pidfd names a process; a single thread is known by its start time.
      int fd = target.single_thread ? -ENOSYS : m_os.pidfd_open(target.id);
      auto start = m_os.start_time(target.id);
      if (fd == -ESRCH || !start) {
        if (fd >= 0) m_os.close_fd(fd);
        close_all();
        throw Error(ErrorKind::Runtime,
                    fmt::format("no such {}: {}", target.single_thread ? "thread" : "process", target.id));
      }
      t.pidfd = fd >= 0 ? fd : -1;
      t.start_time = *start;
      m_tracked.push_back(std::move(t));
    }
  }

  PinReport run() {
    PinReport report;
    bool confirming = false;
    for (unsigned pass = 1;; ++pass) {
      if (pass > m_options.max_passes) {
        fail(fmt::format("the threads of {} kept changing for {} passes",
                         describe_unsettled(), m_options.max_passes), {});
      }
      report.passes = pass;
      bool quiet = true;
      bool active = false;
      for (auto& t : m_tracked) {
        if (t.report.exited) continue;
        if (!run_pass(t)) quiet = false;
        active = active || !t.report.exited;
      }
      if (!active) break;
      if (!quiet) {
        confirming = false;
        continue;
      }
      if (confirming) break;
      // A thread whose clone began before its creator moved carries the old
      // list and appears only when the clone ends: microseconds, or
      // milliseconds where the machine is busy. Where the process was seen
      // creating or ending threads during the move, wait longer for such.
      m_os.sleep_ms(m_churn ? m_options.busy_settle_ms : m_options.settle_ms);
      confirming = true;
    }
    close_all();
    for (auto& t : m_tracked) report.targets.push_back(std::move(t.report));  // threads ascend
    return report;
  }

private:
  // One pass over one target; true when it found nothing to change.
  bool run_pass(Tracked& t) {
    bool counted_quiet = false;
    if (!t.target.single_thread && t.listed && count_pass(t, counted_quiet)) return counted_quiet;
    if (t.target.single_thread) {
      m_tids.assign(1, t.target.id);
    } else {
      // A listing can miss threads: the kernel walks the thread list one
      // entry at a time, and where the thread it stands on exits, the walk
      // ends early or resumes by position and skips. So the kernel's count
      // is read after each listing, and a listing that disagrees with it is
      // taken again, up to k_listings times (a process that creates and ends
      // threads all the time may never agree; its last listing stands).
      for (unsigned attempt = 1;; ++attempt) {
        int err = m_os.list_threads(t.target.id, m_tids);
        if (err == ESRCH || (err == 0 && m_tids.empty())) {
          return settle_identity(t, false);
        }
        if (err != 0) {
          fail(fmt::format("cannot list the threads of process {}: {}", t.target.id, errno_text(err)), {});
        }
        unsigned count = 0;
        if (attempt >= k_listings || m_os.thread_count(t.target.id, count) != 0 || count == m_tids.size())
          break;
      }
      if (!std::is_sorted(m_tids.begin(), m_tids.end())) std::sort(m_tids.begin(), m_tids.end());
      t.listed_before = t.listed;
      t.listed = true;
    }
    // Both lists ascend: walk them together (a TID not seen before is
    // inserted in its place; the places already taken stay where they are).
    size_t at = 0;
    auto& threads = t.report.threads;
    m_batch_at.clear();
    m_batch_first.clear();
    for (pid_t tid : m_tids) {
      while (at < threads.size() && threads[at].tid < tid) ++at;
      bool first = at == threads.size() || threads[at].tid != tid;
      if (first) {
        add_thread(t, at, tid);
        if (t.listed_before) m_churn = true;  // created during the move
      }
      m_batch_at.push_back(at);
      m_batch_first.push_back(first);
    }
    bool quiet = move_listed(t);
    if (t.target.single_thread && t.report.threads.front().vanished) {
      t.report.exited = true;
      return false;
    }
    return settle_identity(t, quiet);
  }

  // Reads and moves every listed thread (m_tids, at m_batch_at) in one
  // batch, which the Os may spread over CPUs, then takes in what happened in
  // TID order, as visit would have: every move is recorded before the first
  // failure (in TID order) throws, so that the rollback covers them all.
  // True when nothing was changed.
  bool move_listed(Tracked& t) {
    auto& threads = t.report.threads;
    m_batch_want.clear();
    for (size_t i : m_batch_at) m_batch_want.push_back(&threads[i].after);
    m_os.move_affinities(m_tids, m_batch_want, m_moves);
    bool quiet = true;
    size_t failed = m_moves.size();
    bool keeps_changing = false;
    for (size_t k = 0; k < m_moves.size(); ++k) {
      const auto& r = m_moves[k];
      auto& move = threads[m_batch_at[k]];
      if (!r.reached) continue;
      move.vanished = false;  // listed again: its TID came back
      if (r.read_error == ESRCH || (r.tried_set && r.set_error == ESRCH)) {
        move.vanished = true;
        m_churn = true;
        quiet = false;
        continue;
      }
      if (r.read_error != 0) {
        failed = std::min(failed, k);
        continue;
      }
      if (m_batch_first[k]) move.before = r.before;
      if (!r.tried_set) continue;  // already on its list
      quiet = false;
      if (r.set_error != 0) {
        failed = std::min(failed, k);
        continue;
      }
      if (move.changed && ++move.resets > m_options.max_resets && failed > k) {
        failed = k;
        keeps_changing = true;
      }
      move.restore = r.before;
      move.changed = true;
    }
    if (failed < m_moves.size()) {
      const auto& r = m_moves[failed];
      const auto& move = threads[m_batch_at[failed]];
      if (keeps_changing) {
        fail_thread(t, move.tid, fmt::format("its CPU list keeps changing back to {}", format_cpulist(r.before)),
                    "does the program pin its own threads?");
      }
      if (r.read_error != 0) {
        fail_thread(t, move.tid, fmt::format("cannot read its CPU list: {}", errno_text(r.read_error)), {});
      }
      refuse(t, move.tid, move.after, r.set_error);
    }
    return quiet;
  }

  // A pass that proves the thread list unchanged instead of reading it
  // again (at 10,000 threads a listing of /proc/PID/task costs the kernel
  // ~8 ms; the count, one small read): the kernel's thread count is read
  // first, then every thread known alive is checked. When each of those K
  // threads answers (so it was alive when the count was read: it was listed
  // before) and the count is K, the process had exactly these threads at
  // that moment: what a listing then would have shown. Returns false, having
  // done nothing, when the count differs (or cannot be read): the caller
  // then lists. Otherwise sets `quiet` and returns true.
  bool count_pass(Tracked& t, bool& quiet) {
    size_t alive = 0;
    for (const auto& move : t.report.threads) alive += !move.vanished;
    unsigned count = 0;
    if (m_os.thread_count(t.target.id, count) != 0 || count != alive) return false;
    // Every thread on its list is quiet, as visit would find; the others go
    // through visit (which reads again and moves or marks it vanished).
    m_batch_tids.clear();
    m_batch_want.clear();
    m_batch_at.clear();
    auto& threads = t.report.threads;
    for (size_t i = 0; i < threads.size(); ++i) {
      if (threads[i].vanished) continue;
      m_batch_tids.push_back(threads[i].tid);
      m_batch_want.push_back(&threads[i].after);
      m_batch_at.push_back(i);
    }
    m_os.check_affinities(m_batch_tids, m_batch_want, m_batch_result);
    quiet = true;
    for (size_t k = 0; k < m_batch_at.size(); ++k) {
      if (m_batch_result[k] == 0) continue;
      if (!visit(t, threads[m_batch_at[k]], false)) quiet = false;
    }
    quiet = settle_identity(t, quiet);
    return true;
  }

  // Checks that the target is still the process it was; a gone process is
  // marked exited, a reused PID fails the move.
  bool settle_identity(Tracked& t, bool quiet) {
    switch (identity(t)) {
      case Identity::Same: return quiet;
      case Identity::Gone: t.report.exited = true; return false;
      case Identity::Reused:
        fail(fmt::format("process {} exited and its PID was reused during the move", t.target.id), {});
    }
    return quiet;
  }

  Identity identity(const Tracked& t) {
    // A live pidfd holds the PID: it cannot have been reused. (Reading the
    // start time costs the kernel a walk over every thread.)
    if (t.pidfd >= 0 && m_os.pidfd_alive(t.pidfd)) return Identity::Same;
    bool alive = t.pidfd < 0;
    auto start = m_os.start_time(t.target.id);
    if (!start) return Identity::Gone;
    if (*start != t.start_time) return Identity::Reused;
    return alive ? Identity::Same : Identity::Gone;
  }

  void add_thread(Tracked& t, size_t at, pid_t tid) {
    ThreadMove move;
    move.tid = tid;
    if (t.target.spread.empty()) {
      move.after = t.target.cpus;
    } else {
      move.after.set(t.target.spread[m_spread_next++ % t.target.spread.size()]);
    }
    t.report.threads.insert(t.report.threads.begin() + static_cast<std::ptrdiff_t>(at), std::move(move));
  }

  // Checks one thread, moves it where needed; true when nothing changed.
  bool visit(Tracked& t, ThreadMove& move, bool first) {
    const pid_t tid = move.tid;
    move.vanished = false;  // listed again: its TID came back
    int err = m_os.get_affinity(tid, m_current);
    if (err == ESRCH) {
      move.vanished = true;
      m_churn = true;
      return false;
    }
    if (err != 0) fail_thread(t, tid, fmt::format("cannot read its CPU list: {}", errno_text(err)), {});
    if (first) move.before = m_current;
    if (m_current == move.after) return true;
    if (move.changed && ++move.resets > m_options.max_resets) {
      fail_thread(t, tid, fmt::format("its CPU list keeps changing back to {}", format_cpulist(m_current)),
                  "does the program pin its own threads?");
    }
    err = m_os.set_affinity(tid, move.after);
    if (err == ESRCH) {
      move.vanished = true;
      m_churn = true;
      return false;
    }
    if (err != 0) refuse(t, tid, move.after, err);
    move.restore = m_current;
    move.changed = true;
    return false;
  }

  [[noreturn]] void refuse(const Tracked& t, pid_t tid, const CpuSet& cpus, int err) {
    if (err == EPERM) {
      fail_thread(t, tid, "permission denied", eperm_hint(m_os));
    }
    auto st = thread_stat(t, tid);
    if (err == EINVAL && st && (st->flags & k_pf_no_setaffinity)) {
      fail_thread(t, tid, "it is a kernel thread that cannot be moved (PF_NO_SETAFFINITY)", {});
    }
    if (err == EINVAL) {
      fail_thread(t, tid, fmt::format("the kernel refused CPUs {}: {}", format_cpulist(cpus), errno_text(err)),
                  "the CPUs must be in the target's own cpuset");
    }
    fail_thread(t, tid, errno_text(err), {});
  }

  std::optional<StatLine> thread_stat(const Tracked& t, pid_t tid) {
    try {
      if (!t.target.single_thread) {
        if (auto st = read_stat(m_proc, task_dir(t.target.id, tid))) return st;
      }
      return read_stat(m_proc, proc_dir(tid));
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  [[noreturn]] void fail_thread(const Tracked& t, pid_t tid, const std::string& reason,
                                const std::string& hint) {
    auto st = thread_stat(t, tid);
    std::string who = st ? fmt::format("thread {} ({})", tid, st->comm) : fmt::format("thread {}", tid);
    if (!t.target.single_thread) who += fmt::format(" of process {}", t.target.id);
    fail(fmt::format("cannot move {}: {}", who, reason), hint);
  }

  // Rolls every moved thread back, then throws.
  [[noreturn]] void fail(const std::string& what, const std::string& hint) {
    PinReport moved;
    for (const auto& t : m_tracked) moved.targets.push_back(t.report);
    auto stuck = roll_back(m_os, moved);
    close_all();
    if (stuck.empty()) throw Error(ErrorKind::Runtime, what + "; nothing was changed", hint);
    std::string h = fmt::format("{} thread(s) could not be put back: {}", stuck.size(), stuck.front());
    if (!hint.empty()) h = hint + "; " + h;
    throw Error(ErrorKind::Runtime, what, h);
  }

  std::string describe_unsettled() const {
    for (const auto& t : m_tracked)
      if (!t.report.exited) return fmt::format("process {}", t.target.id);
    return "the processes";
  }

  void close_all() {
    for (auto& t : m_tracked) {
      if (t.pidfd >= 0) m_os.close_fd(t.pidfd);
      t.pidfd = -1;
    }
  }

  Os& m_os;
  const SysRoot& m_proc;
  PinOptions m_options;
  std::vector<Tracked> m_tracked;
  std::vector<pid_t> m_tids;  // reused between passes
  CpuSet m_current;
  size_t m_spread_next = 0;
  bool m_churn = false;  // threads came or went during the move
  // count_pass's batch, reused between passes
  std::vector<pid_t> m_batch_tids;
  std::vector<const CpuSet*> m_batch_want;
  std::vector<size_t> m_batch_at;
  std::vector<int> m_batch_result;
  std::vector<char> m_batch_first;   // move_listed: first seen in this listing
  std::vector<AffinityMove> m_moves;
};

}  // namespace

PinReport pin_threads(Os& os, const SysRoot& proc, const std::vector<PinTarget>& targets,
                      const PinOptions& options) {
  Engine engine(os, proc, options);
  engine.open(targets);
  return engine.run();
}

std::vector<std::string> roll_back(Os& os, const PinReport& report) {
  std::vector<std::string> stuck;
  for (const auto& target : report.targets) {
    if (target.exited) continue;  // its IDs may belong to someone else now
    for (const auto& move : target.threads) {
      if (!move.changed || move.vanished) continue;
      int err = os.set_affinity(move.tid, move.restore);
      if (err != 0 && err != ESRCH) stuck.push_back(fmt::format("{}: {}", move.tid, errno_text(err)));
    }
  }
  return stuck;
}

}  // namespace affix
