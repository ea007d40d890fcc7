#include "migrate.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "error.hpp"
#include "pin_output.hpp"
#include "text.hpp"

namespace affix {

namespace {

constexpr size_t k_query_chunk = 4096;  // pages per move_pages call that asks where pages are

unsigned long long pages_on(const std::optional<NodePages>& pages, const CpuSet& nodes) {
  unsigned long long total = 0;
  if (!pages) return 0;
  for (const auto& [node, count] : *pages) {
    if (nodes.test(node)) total += count;
  }
  return total;
}

// Throws for an errno of migrate_pages or move_pages; true where the
// process is gone.
bool refused(CapabilityOs& os, const SysRoot& root, pid_t pid, const CpuSet& to, int err) {
  if (err == 0) return false;
  if (err == ESRCH) return true;
  if (err == EPERM) {
    throw Error(ErrorKind::Runtime, fmt::format("cannot migrate the pages of process {}: permission denied", pid),
                eperm_hint(os));
  }
  if (err == EINVAL) {
    // The kernel finds a process's memory through its main thread; one that
    // has exited (a zombie while the other threads run) has none to give.
    std::optional<StatLine> main;
    try {
      main = read_stat(root, task_dir(pid, pid));
    } catch (const Error&) {
    }
    if (main && main->state == 'Z') {
      throw Error(ErrorKind::Runtime,
                  fmt::format("cannot migrate the pages of process {}: its main thread has exited, and Linux "
                              "reaches a process's pages only through its main thread",
                              pid));
    }
  }
  throw Error(ErrorKind::Runtime, fmt::format("cannot migrate the pages of process {} to nodes {}: {}", pid,
                                              format_cpulist(to), std::strerror(err)));
}

bool one_by_one(MemPolicy policy) { return policy == MemPolicy::Interleave || policy == MemPolicy::Weighted; }

// Interleave and weighted: where every present page is, in address order
// (the mappings numa_maps counts pages in; a mapping's pages are looked for
// until as many as it counts are found), and where each goes: the nodes in
// turn (weighted: the plan's sequence).
void plan_interleave(MigrateOs os, const SysRoot& root, MigratePlan& plan,
                     const std::vector<NumaMapping>& mappings) {
  auto ranges = read_maps(root, plan.pid);
  if (!ranges) {
    plan.exited = true;
    return;
  }
  std::vector<unsigned> to = plan.sequence;
  if (to.empty()) plan.to.for_each([&](unsigned n) { to.push_back(n); });
  size_t next = 0;  // the round-robin over `to`
  std::vector<uint64_t> chunk;
  std::vector<int> status;
  for (const auto& m : mappings) {
    unsigned long long counted = 0;
    for (const auto& [node, count] : m.pages) counted += count;
    auto range = std::lower_bound(ranges->begin(), ranges->end(), m.start,
                                  [](const AddressRange& r, unsigned long long a) { return r.start < a; });
    if (counted == 0 || range == ranges->end() || range->start != m.start) continue;
    const uint64_t step = m.page_kb * 1024ull;
    unsigned long long found = 0;
    for (uint64_t a = range->start; a < range->end && found < counted;) {
      chunk.clear();
      for (; a < range->end && chunk.size() < k_query_chunk; a += step) chunk.push_back(a);
      int err = os.pages.move_pages(plan.pid, chunk, nullptr, status);
      if (refused(os.caps, root, plan.pid, plan.to, err)) {
        plan.exited = true;
        return;
      }
      for (size_t i = 0; i < chunk.size(); ++i) {
        if (status[i] < 0) continue;  // no page there
        ++found;
        int dest = static_cast<int>(to[next++ % to.size()]);
        if (status[i] == dest) continue;
        plan.pages.push_back(chunk[i]);
        plan.nodes.push_back(dest);
        ++plan.leaving[static_cast<unsigned>(status[i])];
        ++plan.arriving[static_cast<unsigned>(dest)];
      }
    }
  }
}

}  // namespace

void check_own_nodes(PagesOs& os, const CpuSet& to) {
  CpuSet mine;
  if (os.mems_allowed(mine) != 0 || mine.empty()) return;  // unknown: the kernel decides
  CpuSet outside = to - mine;
  if (outside.empty()) return;
  throw Error(ErrorKind::Resolution,
              fmt::format("cannot move pages to {}: outside the memory nodes affix itself may use ({})",
                          nodes_text(outside), format_cpulist(mine)),
              "the kernel moves pages only to nodes its caller may use; run affix in a cpuset that has them");
}

std::vector<unsigned> weighted_sequence(const std::map<unsigned, unsigned>& weights) {
  std::vector<unsigned> out;
  for (const auto& [node, weight] : weights) out.insert(out.end(), weight, node);
  return out;
}

MigratePlan plan_migration(MigrateOs os, const SysRoot& root, pid_t pid, MemPolicy policy, const CpuSet& to,
                           const CpuSet& nodes, const std::vector<unsigned>& sequence) {
  MigratePlan plan;
  plan.pid = pid;
  plan.policy = policy;
  plan.to = to;
  plan.sequence = sequence;
  auto mappings = read_numa_mappings(root, pid);
  if (mappings) {
    plan.before = NodePages{};
    for (const auto& m : *mappings) {
      for (const auto& [node, count] : m.pages) (*plan.before)[node] += count;
      if (m.policy.rfind("default", 0) == 0 || m.policy.rfind("local", 0) == 0) continue;
      auto own = policy_nodes(m.policy);
      if (!own || (*own - to).empty()) continue;
      bool known = std::any_of(plan.own_policies.begin(), plan.own_policies.end(),
                               [&](const auto& p) { return p.first == m.policy; });
      if (!known) plan.own_policies.emplace_back(m.policy, *own - to);
    }
  }
  // May affix move them? An empty call checks without moving anything.
  std::vector<int> status;
  long not_moved = 0;
  int err = one_by_one(policy) ? os.pages.move_pages(pid, {}, nullptr, status)
                                            : os.pages.migrate_pages(pid, CpuSet(), to, not_moved);
  if (refused(os.caps, root, pid, to, err)) {
    plan.exited = true;
    return plan;
  }
  if (one_by_one(policy)) {
    if (mappings) plan_interleave(os, root, plan, *mappings);
    return plan;
  }
  plan.from = nodes - to;
  if (plan.before) {
    for (const auto& [node, count] : *plan.before)
      if (plan.from.test(node) && count > 0) plan.leaving[node] = count;
  }
  return plan;
}

namespace {

// Watches a migrate_pages call from a second thread (migrate, with
// progress): the pages gone from `from` since the plan read them.
class PageWatch {
public:
  PageWatch(const SysRoot& root, const MigratePlan& plan, MigrateProgress* progress)
      : m_root(root), m_plan(plan), m_progress(progress) {
    if (!m_progress || !plan.before) return;
    m_progress->start();
    m_thread = std::thread([this] { run(); });
  }
  ~PageWatch() {
    if (!m_thread.joinable()) return;
    {
      std::lock_guard<std::mutex> hold(m_lock);
      m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
    m_progress->finish();
  }
  PageWatch(const PageWatch&) = delete;
  PageWatch& operator=(const PageWatch&) = delete;

private:
  void run() {
    ProgressCounts c;
    c.total = pages_on(m_plan.before, m_plan.from);
    std::unique_lock<std::mutex> hold(m_lock);
    while (!m_wake.wait_for(hold, std::chrono::milliseconds(250), [this] { return m_stop; })) {
      hold.unlock();
      std::optional<NodePages> now = read_numa_maps(m_root, m_plan.pid);
      if (now) {
        c.moved = 0;
        c.from.clear();
        m_plan.from.for_each([&](unsigned n) {
          unsigned long long was = pages_on(m_plan.before, CpuSet::range(n, n));
          unsigned long long is = pages_on(now, CpuSet::range(n, n));
          c.from[n] = was > is ? was - is : 0;
          c.moved += c.from[n];
        });
        m_progress->update(m_plan.pid, c);
      }
      hold.lock();
    }
  }
  const SysRoot& m_root;
  const MigratePlan& m_plan;
  MigrateProgress* m_progress;
  std::mutex m_lock;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace

MigrateResult migrate(MigrateOs os, const SysRoot& root, const MigratePlan& plan, MigrateProgress* progress) {
  MigrateResult r;
  r.pid = plan.pid;
  r.before = plan.before;
  r.interleave = one_by_one(plan.policy);
  r.exited = plan.exited;
  if (r.exited) return r;
  if (r.interleave) {
    std::vector<int> status;
    if (!plan.pages.empty()) {
      // One call without progress; with it, chunks, each reported. The
      // plan's empty call checked that affix may move them: a later
      // refusal is the process gone.
      size_t chunk = progress ? k_move_chunk : plan.pages.size();
      if (progress) progress->start();
      ProgressCounts counts;
      counts.total = plan.pages.size();
      for (size_t at = 0; at < plan.pages.size(); at += chunk) {
        size_t n = std::min(chunk, plan.pages.size() - at);
        std::vector<uint64_t> pages(plan.pages.begin() + static_cast<std::ptrdiff_t>(at),
                                    plan.pages.begin() + static_cast<std::ptrdiff_t>(at + n));
        int err = os.pages.move_pages(plan.pid, pages, plan.nodes.data() + at, status);
        if (refused(os.caps, root, plan.pid, plan.to, err)) {
          if (progress) progress->finish();
          r.exited = true;
          return r;
        }
        for (size_t i = 0; i < n; ++i) {
          if (status[i] == plan.nodes[at + i]) {
            ++r.moved;
            ++r.arriving[static_cast<unsigned>(plan.nodes[at + i])];
          } else {
            ++r.not_moved;
          }
        }
        if (progress) {
          counts.moved = r.moved;
          counts.to = r.arriving;
          progress->update(plan.pid, counts);
        }
      }
      if (progress) progress->finish();
    }
    r.after = read_numa_maps(root, plan.pid);
    return r;
  }
  r.nothing_to_move = plan.from.empty();
  if (!r.nothing_to_move) {
    int err = 0;
    {
      PageWatch watch(root, plan, progress);
      err = os.pages.migrate_pages(plan.pid, plan.from, plan.to, r.not_moved);
    }
    if (refused(os.caps, root, plan.pid, plan.to, err)) {
      r.exited = true;
      return r;
    }
  }
  r.after = read_numa_maps(root, plan.pid);
  unsigned long long was = pages_on(r.before, plan.from);
  unsigned long long is = pages_on(r.after, plan.from);
  r.moved = was > is ? was - is : 0;
  return r;
}

MigrateOutput migrate_all(MigrateOs os, const SysRoot& root, const std::vector<MigrateTarget>& targets,
                          const CpuSet& nodes, bool dry_run, MigrateProgress* progress) {
  MigrateOutput out;
  // A target the pin no longer holds exited: what was read of it may be
  // another's, and nothing of it is moved.
  auto gone = [&](size_t i) { return targets[i].held && !targets[i].held(); };
  std::vector<MigratePlan> plans;
  for (size_t i = 0; i < targets.size(); ++i) {
    const auto& t = targets[i];
    MigratePlan plan;
    if (!gone(i)) plan = plan_migration(os, root, t.pid, t.policy, t.to, nodes, t.sequence);
    if (gone(i)) {
      plan = MigratePlan{};
      plan.pid = t.pid;
      plan.policy = t.policy;
      plan.to = t.to;
      plan.exited = true;
    }
    plans.push_back(std::move(plan));
  }
  std::vector<pid_t> done;
  for (size_t i = 0; i < plans.size(); ++i) {
    auto& plan = plans[i];
    if (!plan.exited && !dry_run && gone(i)) plan.exited = true;
    for (auto& w : own_policy_warnings(plan)) out.warnings.push_back(std::move(w));
    if (dry_run) {
      out.text += format_plan(plan);
      continue;
    }
    try {
      out.text += format_migrate(migrate(os, root, plan, progress));
    } catch (const Error& e) {
      if (done.empty()) throw;
      std::sort(done.begin(), done.end());
      throw Error(e.kind(),
                  fmt::format("{}; the pages of process{} {} were moved and are not moved back", e.what(),
                              done.size() == 1 ? "" : "es", format_id_list(done)),
                  e.hint());
    }
    if (!plan.exited) done.push_back(plan.pid);
  }
  return out;
}

}  // namespace affix
