#pragma once
// pin --migrate's progress on a terminal (affix(1), --migrate): moving
// gigabytes of pages takes migrate_pages tens of seconds, so where stderr is
// a terminal, after one second, one line on stderr says how many pages have
// moved of the total, per node, rewritten in place with \r as dd
// status=progress does, and cleared at the end (the report on stdout is
// unchanged). Nothing where stderr is not a terminal.
//
//   affix: moving the pages of process 1234: 262144 of 524288 (50%; from node 0: 262144), 3 s

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace affix {

struct ProgressCounts {
  unsigned long long moved = 0;  // pages moved so far
  unsigned long long total = 0;  // pages to move
  std::map<unsigned, unsigned long long> from;  // bind: pages moved off each node
  std::map<unsigned, unsigned long long> to;    // interleave: pages moved to each node
};

// The line, without \r: "affix: moving the pages of process 1234: 262144 of
// 524288 (50%; from node 0: 262144), 3 s" (interleave: "to node 1: 65536, to
// node 2: 65536"); the percentage rounds down.
std::string format_migrate_progress(pid_t pid, const ProgressCounts& counts, uint64_t elapsed_ms);

// Writes the line where enabled, once a second has passed since start(),
// at most every 250 ms; finish() clears it ("\r", spaces, "\r") where one
// was written. update() may be called from another thread than finish().
class MigrateProgress {
public:
  MigrateProgress(std::function<uint64_t()> now_ms, std::function<void(const std::string&)> write)
      : m_now(std::move(now_ms)), m_write(std::move(write)) {}
  void start();
  void update(pid_t pid, const ProgressCounts& counts);
  void finish();
  bool shown() const { return m_width > 0; }

private:
  std::function<uint64_t()> m_now;
  std::function<void(const std::string&)> m_write;
  std::mutex m_lock;
  uint64_t m_start = 0;
  uint64_t m_last = 0;
  size_t m_width = 0;  // the longest line written
};

}  // namespace affix
