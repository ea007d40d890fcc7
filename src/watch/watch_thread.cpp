#include "watch_thread.hpp"

#include "proc.hpp"

namespace affix {

namespace {

uint64_t delta(uint64_t now, uint64_t before) { return now > before ? now - before : 0; }

void mark(CpuSet& set, long cpu) {
  if (cpu >= 0 && cpu < static_cast<long>(k_max_id)) set.set(static_cast<unsigned>(cpu));
}

}  // namespace

Migrations estimate_moves(const LevelMap& levels, uint64_t count, long before, long now,
                          const CpuSet& thread_seen, const CpuSet& process_seen) {
  Migrations m;
  if (count == 0) return m;
  if (before >= 0 && now >= 0 && before != now) {
    if (auto c = levels.crossing(static_cast<unsigned>(before), static_cast<unsigned>(now))) {
      m[*c] += 1;
      --count;
    }
  }
  CpuSet seen = thread_seen;
  mark(seen, before);
  mark(seen, now);
  auto level = levels.narrowest(seen);
  if (!level) level = levels.narrowest(process_seen | seen);
  m[level.value_or(Crossing::Core)] += count;
  return m;
}

std::optional<ThreadInterval> ThreadWatch::begin(const WatchContext& cx, pid_t pid, bool since_creation,
                                                 const CpuSet& process_seen) {
  m_since_creation = since_creation;
  if (cx.events) {
    OpenResult opened = cx.events->open(m_tid);
    if (opened == OpenResult::Gone) return std::nullopt;
    m_has_event = opened == OpenResult::Opened;
  }
  // After the event is open: a move from here on is a sample, and the CPU
  // read below is the one the first sample moves from.
  auto gate = read_schedstat(cx.root, pid, m_tid);
  auto st = read_stat(cx.root, task_dir(pid, m_tid));
  auto sched = read_sched(cx.root, pid, m_tid);
  // Sampled mode needs schedstat (its check whether the thread ran); exact
  // mode only its wait, which is then unknown.
  // A zombie (a main thread that exited while others run) is no thread to
  // watch: as gone.
  if (st && (st->state == 'Z' || st->state == 'X')) {
    close(cx);
    m_has_event = false;
    return std::nullopt;
  }
  if ((!gate && !m_has_event) || !st || !sched) {
    close(cx);
    m_has_event = false;
    if (!there(cx, pid)) return std::nullopt;
    ThreadInterval out;  // there, but not readable: tried again at the next sample
    out.unread = true;
    return out;
  }
  m_begun = true;
  m_comm = st->comm;
  m_cpu = st->last_cpu;
  mark(m_seen, m_cpu);
  if (gate) {
    m_gate = *gate;
    m_wait_kept = wait_kept(*gate, sched->run_ns);
    if (m_wait_kept) m_wait = gate->wait_ns;
  }
  m_sched = *sched;
  if (!m_has_event) m_gate_file = SchedStatFile(cx.root, pid, m_tid);  // where none can open: read by path
  ThreadInterval out;
  out.cpu = m_cpu;
  out.exact = m_has_event;
  if (since_creation) {
    // Everything it did since it was created; its moves before its event
    // was opened are the scheduler's count, their levels an estimate.
    Activity& a = out.activity;
    uint64_t moves = sched->nr_migrations;
    if (moves > 0) {
      a.migrations += estimate_moves(cx.levels, moves, -1, m_cpu, m_seen, process_seen);
      out.exact = false;
    }
    a.voluntary = sched->voluntary;
    a.involuntary = sched->involuntary;
    a.cpu_ns = sched->run_ns;  // se.sum_exec_runtime, as schedstat's RUN_NS
    if (m_wait) a.wait_ns = *m_wait, a.wait_read = true;
    else a.wait_unread = true;
    out.active = !a.idle();
    // It ran where its run time or its switches say so: the run time of a
    // thread that ran once, briefly, can read 0 (see SchedStat::has_run).
    if (sched->run_ns > 0 || sched->voluntary + sched->involuntary > 0 || (gate && gate->has_run()))
      mark(out.ran_on, m_cpu);
  }
  return out;
}

ThreadInterval ThreadWatch::update(const WatchContext& cx, pid_t pid, const CpuSet& process_seen, bool gone) {
  ThreadInterval out;
  if (m_exited) return out;
  if (!m_begun) {
    // Not read yet. A thread that was there before cannot say what it did
    // until now: from here on only, and this interval is not exact.
    auto first = gone ? std::nullopt : begin(cx, pid, m_since_creation, process_seen);
    if (!first) {
      out.unread = true;
      out.exited = m_exited = true;
      return out;
    }
    if (!m_since_creation) {
      first->late = true;
      first->activity = Activity{};
      first->activity.wait_unread = true;  // its wait until now is not known either
      first->ran_on = CpuSet{};
    }
    first->exact = first->exact && m_since_creation && !first->unread;
    first->active = !first->activity.idle();
    return *first;
  }
  if (m_has_event) update_exact(cx, pid, process_seen, gone, out);
  else update_sampled(cx, pid, process_seen, gone, out);
  out.cpu = m_cpu;
  out.active = out.active || !out.activity.idle();
  out.exited = m_exited;
  if (m_exited) close(cx);
  return out;
}

bool ThreadWatch::there(const WatchContext& cx, pid_t pid) const {
  return cx.root.exists(task_dir(pid, m_tid));
}

void ThreadWatch::count_wait(const std::optional<SchedStat>& now, Activity& a) {
  if (!now || !m_wait_kept) {
    a.wait_unread = true;
    return;
  }
  if (m_wait) {
    a.wait_ns += delta(now->wait_ns, *m_wait);
    a.wait_read = true;
  } else {
    a.wait_unread = true;  // the first reading: the wait before it is not known
  }
  m_wait = now->wait_ns;
}

void ThreadWatch::count_no_wait(Activity& a) const {
  if (m_wait && m_wait_kept) a.wait_read = true;
  else a.wait_unread = true;
}

bool ThreadWatch::read_after_run(const WatchContext& cx, pid_t pid, ThreadInterval& out, long* stat_cpu) {
  auto st = read_stat(cx.root, task_dir(pid, m_tid));
  auto sched = read_sched(cx.root, pid, m_tid);
  if (!st || !sched) return false;
  m_comm = st->comm;
  *stat_cpu = st->last_cpu;
  out.activity.voluntary = delta(sched->voluntary, m_sched.voluntary);
  out.activity.involuntary = delta(sched->involuntary, m_sched.involuntary);
  m_sched = *sched;
  return true;
}

void ThreadWatch::update_exact(const WatchContext& cx, pid_t pid, const CpuSet& process_seen, bool gone,
                               ThreadInterval& out) {
  out.exact = true;
  Drained drained = cx.events->take(m_tid);
  auto totals = cx.events->totals(m_tid);
  for (const auto& s : drained.samples) {
    long to = static_cast<long>(s.cpu);
    mark(m_seen, to);
    mark(out.ran_on, to);
    if (m_cpu >= 0 && to != m_cpu) {
      if (auto c = cx.levels.crossing(static_cast<unsigned>(m_cpu), s.cpu)) out.activity.migrations[*c] += 1;
    }
    m_cpu = to;
  }
  m_samples += drained.samples.size();
  if (!totals) {  // the event cannot be read: this interval is what the ring had
    out.exact = false;
    m_exited = gone;
    if (!gone) out.activity.wait_unread = true;
    return;
  }
  if (drained.overflowed && totals->count > m_samples) {
    // The ring was full: the moves it dropped are counted, at an estimated level.
    // The moves the ring kept already span where it was to m_cpu.
    out.activity.migrations +=
        estimate_moves(cx.levels, totals->count - m_samples, m_cpu, m_cpu, m_seen, process_seen);
    m_samples = totals->count;
    out.exact = false;
  }
  if (drained.overflowed) out.exact = false;
  out.activity.cpu_ns = delta(totals->run_ns, m_event.run_ns);
  bool ran = totals->count != m_event.count || totals->run_ns != m_event.run_ns || !drained.samples.empty();
  m_event = *totals;
  if (ran) mark(out.ran_on, m_cpu);  // where it ran after its last move (or without one)
  if (totals->ended || gone) {
    m_exited = true;  // its last switches and wait are not known: the thread's files are gone
    return;
  }
  if (!ran) return count_no_wait(out.activity);
  long stat_cpu = -1;
  const uint64_t run_before = m_sched.run_ns;
  if (read_after_run(cx, pid, out, &stat_cpu)) {
    // Its CPU time by the scheduler's own count (se.sum_exec_runtime), as the
    // process's total in /proc/PID/stat is: the event's enabled-and-running
    // time leaves out the context switches around it (a busy VM showed 16%
    // less), which read as threads that came and went (WatchTracker).
    if (m_run_synced) out.activity.cpu_ns = delta(m_sched.run_ns, run_before);
    m_run_synced = true;
    // A wait ends when the thread gets a CPU: read where it ran, by path
    // (exact mode keeps no schedstat open).
    auto now = read_schedstat(cx.root, pid, m_tid);
    if (now && !wait_kept(*now, m_sched.run_ns)) m_wait_kept = false;
    count_wait(now, out.activity);
  } else if (there(cx, pid)) {
    out.activity.wait_unread = true;  // unreadable but there: its switches and wait are counted at the next read
    m_run_synced = false;             // its CPU time is the event's here, and from the next read on the scheduler's
  } else {
    m_exited = true;
  }
  if (m_cpu < 0) m_cpu = stat_cpu;
}

void ThreadWatch::update_sampled(const WatchContext& cx, pid_t pid, const CpuSet& process_seen, bool gone,
                                 ThreadInterval& out) {
  std::optional<SchedStat> gate;
  if (!gone) gate = m_gate_file.is_open() ? m_gate_file.read() : read_schedstat(cx.root, pid, m_tid);
  // Unreadable but there: what it did is counted at the next read.
  auto unreadable = [&] {
    if (!gone && there(cx, pid)) out.unread = true;
    else m_exited = true;
  };
  if (!gate) return unreadable();
  if (!gate->ran_since(m_gate)) {
    // It did not run: nothing else changed, but a wait can end without it
    // running (moved to another CPU's queue while it waited).
    count_wait(gate, out.activity);
    m_gate.wait_ns = gate->wait_ns;
    return;
  }
  long now = -1;
  SchedCounters before = m_sched;
  if (!read_after_run(cx, pid, out, &now)) return unreadable();
  if (!wait_kept(*gate, m_sched.run_ns)) m_wait_kept = false;
  count_wait(gate, out.activity);
  uint64_t moves = delta(m_sched.nr_migrations, before.nr_migrations);
  out.activity.migrations += estimate_moves(cx.levels, moves, m_cpu, now, m_seen, process_seen);
  out.activity.cpu_ns = delta(gate->run_ns, m_gate.run_ns);
  out.active = true;
  m_gate = *gate;
  if (moves > 0) mark(out.ran_on, m_cpu);  // it ran there, then moved
  mark(out.ran_on, now);
  mark(m_seen, now);
  if (now >= 0) m_cpu = now;
}

void ThreadWatch::close(const WatchContext& cx) {
  m_gate_file.close();
  if (m_has_event && cx.events) cx.events->close(m_tid);
}

}  // namespace affix
