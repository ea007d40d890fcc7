#include "watch_switches.hpp"

#include <algorithm>

namespace affix {

std::map<pid_t, SwitchThread> tally_switches(std::vector<SwitchRecord> records, uint64_t from_ns, uint64_t to_ns,
                                             const LevelMap& levels) {
  std::stable_sort(records.begin(), records.end(),
                   [](const SwitchRecord& a, const SwitchRecord& b) { return a.time_ns < b.time_ns; });
  struct OnCpu {
    pid_t tid = 0;         // running there since `since` (0: none known)
    uint64_t since = 0;
    bool seen = false;     // a record of the CPU came before
  };
  std::map<unsigned, OnCpu> cpus;
  std::map<pid_t, SwitchThread> threads;
  auto clamp = [&](uint64_t t) { return std::min(std::max(t, from_ns), to_ns); };
  auto ran = [&](pid_t tid, pid_t pid, unsigned cpu, uint64_t from, uint64_t to) {
    SwitchThread& t = threads[tid];
    t.pid = pid;
    from = clamp(from);
    to = clamp(to);
    if (to > from) t.cpu_ns += to - from;
    if (cpu < k_max_id) t.ran_on.set(cpu);
    t.cpu = cpu;
  };
  std::map<pid_t, pid_t> pid_of;
  for (const SwitchRecord& r : records) {
    OnCpu& c = cpus[r.cpu];
    if (r.tid == 0) {  // the idle task
      c = OnCpu{0, 0, true};
      continue;
    }
    pid_of[r.tid] = r.pid;
    if (r.out) {
      if (c.tid == r.tid) ran(r.tid, r.pid, r.cpu, c.since, r.time_ns);
      else if (!c.seen) ran(r.tid, r.pid, r.cpu, from_ns, r.time_ns);  // running when the interval began
      c = OnCpu{0, 0, true};
    } else {
      auto known = threads.find(r.tid);
      if (known != threads.end() && known->second.cpu >= 0 && known->second.cpu != static_cast<long>(r.cpu)) {
        if (auto level = levels.crossing(static_cast<unsigned>(known->second.cpu), r.cpu))
          known->second.migrations[*level] += 1;
      }
      ran(r.tid, r.pid, r.cpu, r.time_ns, r.time_ns);  // where it is now
      c = OnCpu{r.tid, r.time_ns, true};
    }
  }
  for (const auto& [cpu, c] : cpus)
    if (c.tid != 0) ran(c.tid, pid_of[c.tid], cpu, c.since, to_ns);
  return threads;
}

}  // namespace affix
