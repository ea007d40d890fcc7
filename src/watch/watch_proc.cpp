#include "watch_proc.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "proc.hpp"

namespace affix {

namespace {

constexpr size_t k_max_sched_size = 64 * 1024;
constexpr uint64_t k_max_counter = 1ull << 62;

// "58.522316" (milliseconds, as sched prints se.sum_exec_runtime) -> ns.
std::optional<uint64_t> parse_ms_to_ns(std::string_view text) {
  auto dot = text.find('.');
  auto whole = parse_decimal(text.substr(0, dot), k_max_counter / 1000000);
  if (!whole) return std::nullopt;
  uint64_t ns = *whole * 1000000;
  if (dot == std::string_view::npos) return ns;
  std::string_view frac = text.substr(dot + 1);
  if (frac.empty() || frac.size() > 9) return std::nullopt;
  uint64_t scale = 100000;  // first decimal: 0.1 ms = 100000 ns
  for (char c : frac) {
    if (c < '0' || c > '9') return std::nullopt;
    ns += static_cast<uint64_t>(c - '0') * scale;
    scale /= 10;
  }
  return ns;
}

}  // namespace

std::optional<SchedCounters> parse_sched(std::string_view text) {
  SchedCounters out;
  unsigned found = 0;
  bool ok = for_each_field(text, [&](std::string_view key, std::string_view value) {
    uint64_t* target = nullptr;
    unsigned bit = 0;
    if (key == "se.nr_migrations") target = &out.nr_migrations, bit = 1;
    else if (key == "nr_voluntary_switches") target = &out.voluntary, bit = 2;
    else if (key == "nr_involuntary_switches") target = &out.involuntary, bit = 4;
    else if (key == "se.sum_exec_runtime") {
      auto ns = parse_ms_to_ns(value);
      if (!ns) return false;
      out.run_ns = *ns;
      found |= 8;
      return true;
    }
    if (!target) return true;
    auto v = parse_decimal(value, k_max_counter);
    if (!v) return false;
    *target = *v;
    found |= bit;
    return true;
  });
  if (!ok || found != 15) return std::nullopt;
  return out;
}

std::optional<SchedCounters> read_sched(const SysRoot& root, pid_t pid, pid_t tid) {
  auto text = root.read(task_dir(pid, tid) + "/sched", k_max_sched_size);
  if (!text) return std::nullopt;
  return parse_sched(*text);
}

std::optional<SchedStat> read_schedstat(const SysRoot& root, pid_t pid, pid_t tid) {
  auto text = root.read(task_dir(pid, tid) + "/schedstat", 256);
  if (!text) return std::nullopt;
  return parse_schedstat(*text);
}

SchedStatFile::SchedStatFile(const SysRoot& root, pid_t pid, pid_t tid)
  : m_fd(::open(root.path(task_dir(pid, tid) + "/schedstat").c_str(), O_RDONLY | O_CLOEXEC)) {
  if (m_fd >= 0 && !leaves_spare_files(m_fd)) close();  // read by path instead
}

SchedStatFile::~SchedStatFile() { close(); }

SchedStatFile& SchedStatFile::operator=(SchedStatFile&& o) noexcept {
  if (this != &o) {
    close();
    m_fd = o.m_fd;
    o.m_fd = -1;
  }
  return *this;
}

void SchedStatFile::close() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
}

std::optional<SchedStat> SchedStatFile::read() const {
  char buf[128];
  ssize_t n = ::pread(m_fd, buf, sizeof buf, 0);
  if (n <= 0 || static_cast<size_t>(n) == sizeof buf) return std::nullopt;
  return parse_schedstat(std::string_view(buf, static_cast<size_t>(n)));
}

}  // namespace affix
