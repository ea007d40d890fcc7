// roll_back: puts back what a pin changed, where the list is still the one
// affix set, and says which threads stay where (pin.hpp).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "pin.hpp"
#include "proc.hpp"

namespace affix {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

// What stays where after a rollback, for the message.
struct Stay {
  pid_t tid;
  std::string where;  // "on CPUs 1", or "where it is" where it cannot be read
  std::string why;
};

std::string describe(std::vector<Stay> stays) {
  // Grouped by place and reason, in the order first met; TIDs ascending.
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<pid_t>>> groups;
  for (auto& s : stays) {
    auto key = std::make_pair(s.where, s.why);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) groups.push_back({key, {s.tid}});
    else it->second.push_back(s.tid);
  }
  std::string out;
  for (auto& [key, tids] : groups) {
    std::sort(tids.begin(), tids.end());
    bool one = tids.size() == 1;
    out += fmt::format("{}thread{} {} stay{} {} ({})", out.empty() ? "" : "; ", one ? "" : "s",
                       format_id_list(tids), one ? "s" : "", key.first, key.second);
  }
  return out;
}

}  // namespace

std::string roll_back(Os& os, const PinReport& report) {
  std::vector<Stay> stays;
  CpuSet current;
  std::vector<pid_t> tids;
  // Puts one thread back on `restore` where it is still on `after`.
  auto put_back = [&](pid_t tid, const CpuSet& after, const std::optional<CpuSet>& restore, bool read) {
    int err = read ? os.get_affinity(tid, current) : 0;
    if (err == ESRCH) return;
    if (err != 0) {
      stays.push_back({tid, "where it is", fmt::format("its list cannot be read: {}", errno_text(err))});
      return;
    }
    std::string where = "on CPUs " + format_cpulist(current);
    if (!(current == after)) {
      stays.push_back({tid, where, "changed by someone else during the move"});
    } else if (!restore) {
      stays.push_back({tid, where, "created during the move; no old list to put back"});
    } else if (int e = os.set_affinity(tid, *restore); e != 0 && e != ESRCH) {
      stays.push_back({tid, where, fmt::format("could not be put back: {}", errno_text(e))});
    }
  };
  for (const auto& target : report.targets) {
    for (const auto& p : target.processes) {
      if (p.exited) continue;  // its IDs may belong to someone else now
      for (const auto& t : p.threads) {
        if (t.gone) continue;
        if (t.changed) put_back(t.tid, t.after, t.restore, true);
        else if (t.inherited) put_back(t.tid, t.after, p.common_before, true);
      }
      // Threads created since the last listing, from a creator affix had
      // moved: on the new list (not with --spread, whose lists differ).
      if (target.request.scope == PinScope::Thread || !target.place.spread.empty()) continue;
      bool complete = false;
      if (os.list_threads(p.pid, tids, complete) != 0) continue;
      for (pid_t tid : tids) {
        auto at = std::lower_bound(p.threads.begin(), p.threads.end(), tid,
                                   [](const ThreadMove& m, pid_t id) { return m.tid < id; });
        bool known = at != p.threads.end() && at->tid == tid;
        if (known || os.get_affinity(tid, current) != 0 || !(current == target.place.cpus)) continue;
        put_back(tid, target.place.cpus, p.common_before, false);
      }
    }
  }
  return describe(std::move(stays));
}

}  // namespace affix
