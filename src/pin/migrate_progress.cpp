#include "migrate_progress.hpp"

#include <fmt/format.h>

namespace affix {

namespace {

constexpr uint64_t k_first_ms = 1000;  // nothing shown for a move shorter than this
constexpr uint64_t k_every_ms = 250;

std::string per_node(const std::map<unsigned, unsigned long long>& pages, const char* word) {
  std::string out;
  for (const auto& [node, n] : pages) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} node {}: {}", word, node, n);
  }
  return out;
}

}  // namespace

std::string format_migrate_progress(pid_t pid, const ProgressCounts& counts, uint64_t elapsed_ms) {
  unsigned long long percent = counts.total ? counts.moved * 100 / counts.total : 100;
  std::string nodes = per_node(counts.from, "from");
  std::string to = per_node(counts.to, "to");
  if (!to.empty()) nodes += (nodes.empty() ? "" : ", ") + to;
  return fmt::format("affix: moving the pages of process {}: {} of {} ({}%{}), {} s", pid, counts.moved, counts.total,
                     percent, nodes.empty() ? "" : "; " + nodes, elapsed_ms / 1000);
}

void MigrateProgress::start() {
  std::lock_guard<std::mutex> hold(m_lock);
  m_start = m_now();
}

void MigrateProgress::update(pid_t pid, const ProgressCounts& counts) {
  std::lock_guard<std::mutex> hold(m_lock);
  uint64_t now = m_now();
  if (now - m_start < k_first_ms) return;
  if (m_width > 0 && now - m_last < k_every_ms) return;
  m_last = now;
  std::string line = format_migrate_progress(pid, counts, now - m_start);
  size_t width = line.size();
  if (width < m_width) line.append(m_width - width, ' ');  // over a longer line before
  m_width = std::max(m_width, width);
  m_write("\r" + line);
}

void MigrateProgress::finish() {
  std::lock_guard<std::mutex> hold(m_lock);
  if (m_width == 0) return;
  m_write("\r" + std::string(m_width, ' ') + "\r");
  m_width = 0;
}

}  // namespace affix
