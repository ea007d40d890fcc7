#pragma once
// A fake MigrationEvents for the watch tests: the test sets, per thread,
// the samples the next take() returns, the totals, whether the thread has
// ended, and which threads are refused; every open and close is recorded.

#include <map>
#include <set>
#include <vector>

#include "perf_events.hpp"

namespace affix::test {

class FakeMigrationEvents : public MigrationEvents {
public:
  struct Thread {
    std::vector<MigrationSample> samples;  // returned by the next take()
    bool overflowed = false;
    EventTotals totals;
  };
  std::map<pid_t, Thread> threads;  // open events
  std::set<pid_t> refuse;           // open() answers Refused
  std::vector<pid_t> opened, closed;
  int waits = 0;

  // A move of `tid` to `cpu`: a sample and one more in the count.
  void move(pid_t tid, unsigned cpu) {
    auto& t = threads.at(tid);
    t.samples.push_back(MigrationSample{++m_clock, cpu});
    ++t.totals.count;
    t.totals.run_ns += 1000;
  }

  OpenResult open(pid_t tid) override {
    if (refuse.count(tid)) return OpenResult::Refused;
    opened.push_back(tid);
    threads[tid] = Thread{};
    return OpenResult::Opened;
  }
  std::optional<EventTotals> totals(pid_t tid) override {
    auto it = threads.find(tid);
    if (it == threads.end()) return std::nullopt;
    return it->second.totals;
  }
  Drained take(pid_t tid) override {
    auto it = threads.find(tid);
    if (it == threads.end()) return {};
    Drained d{std::move(it->second.samples), it->second.overflowed};
    it->second.samples.clear();
    it->second.overflowed = false;
    return d;
  }
  void close(pid_t tid) override {
    closed.push_back(tid);
    threads.erase(tid);
  }
  bool wait_until(uint64_t) override {
    ++waits;
    return true;
  }

private:
  uint64_t m_clock = 0;
};

}  // namespace affix::test
