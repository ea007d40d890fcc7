#include "proc.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include <fmt/format.h>

#include "error.hpp"

namespace affix {

namespace {

constexpr size_t k_max_stat_size = 4096;
constexpr size_t k_max_status_size = 64 * 1024;
constexpr unsigned long long k_max_numa_maps_size = 1ull << 30;  // 1 GiB read at most
constexpr unsigned long long k_max_pages = 1ull << 60;
constexpr pid_t k_max_pid = 4194304;  // PID_MAX_LIMIT

// A signed or unsigned decimal token; nullopt where it is not one.
template <typename T> std::optional<T> to_number(std::string_view s) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// Adds one numa_maps token ("N1=42") to the totals.
void add_numa_token(std::string_view token, NodePages& pages) {
  if (token.size() < 4 || token[0] != 'N') return;
  auto eq = token.find('=');
  if (eq == std::string_view::npos || eq < 2) return;
  auto node = parse_decimal(token.substr(1, eq - 1), k_max_id);
  auto count = parse_decimal(token.substr(eq + 1), k_max_pages);
  if (!node || !count) return;
  auto& total = pages[static_cast<unsigned>(*node)];
  total = std::min(total + *count, k_max_pages);
}

}  // namespace

std::optional<StatLine> parse_stat(std::string_view text) {
  auto open = text.find('(');
  auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  StatLine st;
  auto id = to_number<int>(trim(text.substr(0, open)));
  if (!id || *id <= 0) return std::nullopt;
  st.id = *id;
  st.comm = std::string(text.substr(open + 1, close - open - 1));
  std::string_view rest = text.substr(close + 1);
  int field = 2;
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\n')) rest.remove_prefix(1);
    if (rest.empty()) break;
    auto end = rest.find_first_of(" \n");
    std::string_view token = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    ++field;
    if (field == 3) {
      if (token.size() != 1) return std::nullopt;
      st.state = token[0];
    } else if (field == 9) {
      auto v = to_number<unsigned long>(token);
      if (!v) return std::nullopt;
      st.flags = *v;
    } else if (field == 20) {
      auto v = to_number<long>(token);
      if (!v || *v < 0) return std::nullopt;
      st.num_threads = *v;
    } else if (field == 22) {
      auto v = to_number<unsigned long long>(token);
      if (!v) return std::nullopt;
      st.start_time = *v;
    } else if (field == 39) {
      auto v = to_number<long>(token);
      if (!v || *v < 0 || *v > static_cast<long>(k_max_id)) return std::nullopt;
      st.last_cpu = *v;
      break;
    }
  }
  if (field < 22) return std::nullopt;
  return st;
}

std::optional<StatusInfo> parse_status(std::string_view text) {
  StatusInfo info;
  bool have_cpus = false;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    std::string_view value = trim(line.substr(colon + 1));
    if (key == "Name") {
      info.name = std::string(value);
    } else if (key == "Tgid") {
      info.tgid = to_number<int>(value).value_or(0);
    } else if (key == "Cpus_allowed_list") {
      auto set = parse_cpulist(value, true);
      if (!set) return std::nullopt;
      info.cpus = *set.value;
      have_cpus = true;
    } else if (key == "Mems_allowed_list") {
      auto set = parse_cpulist(value, true);
      if (!set) return std::nullopt;
      info.mems = *set.value;
    }
  }
  if (!have_cpus) return std::nullopt;
  return info;
}

NodePages parse_numa_maps(std::string_view text) {
  NodePages pages;
  while (!text.empty()) {
    auto end = text.find_first_of(" \n");
    add_numa_token(text.substr(0, end), pages);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return pages;
}

std::string proc_dir(pid_t pid) { return fmt::format("proc/{}", pid); }
std::string task_dir(pid_t pid, pid_t tid) { return fmt::format("proc/{}/task/{}", pid, tid); }

std::optional<StatLine> read_stat(const SysRoot& root, const std::string& dir) {
  auto text = root.read(dir + "/stat", k_max_stat_size);
  if (!text) return std::nullopt;
  auto st = parse_stat(*text);
  if (!st) throw Error(ErrorKind::Runtime, fmt::format("{}: not a stat line", root.path(dir + "/stat")));
  return st;
}

std::optional<StatusInfo> read_status(const SysRoot& root, const std::string& dir) {
  auto text = root.read(dir + "/status", k_max_status_size);
  if (!text) return std::nullopt;
  auto info = parse_status(*text);
  if (!info) {
    throw Error(ErrorKind::Runtime,
                fmt::format("{}: no valid Cpus_allowed_list", root.path(dir + "/status")));
  }
  return info;
}

std::optional<std::vector<pid_t>> read_tasks(const SysRoot& root, pid_t pid) {
  std::string dir = proc_dir(pid) + "/task";
  if (!root.exists(dir)) return std::nullopt;
  std::vector<pid_t> out;
  for (const auto& name : root.list(dir)) {
    if (auto tid = parse_pid(name)) out.push_back(*tid);
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) return std::nullopt;  // a process without threads is gone
  return out;
}

std::optional<NodePages> read_numa_maps(const SysRoot& root, pid_t pid) {
  std::string path = root.path(proc_dir(pid) + "/numa_maps");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  NodePages pages;
  std::string token;  // a token split across chunks; dropped beyond 256 bytes
  char buf[65536];
  unsigned long long total = 0;
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    total += static_cast<unsigned long long>(n);
    if (total > k_max_numa_maps_size) {
      ::close(fd);
      throw Error(ErrorKind::Runtime, fmt::format("{}: larger than {} bytes", path, k_max_numa_maps_size));
    }
    for (ssize_t i = 0; i < n; ++i) {
      char c = buf[i];
      if (c == ' ' || c == '\n') {
        add_numa_token(token, pages);
        token.clear();
      } else if (token.size() < 256) {
        token += c;
      }
    }
  }
  ::close(fd);
  add_numa_token(token, pages);
  return pages;
}

std::vector<pid_t> list_pids(const SysRoot& root) {
  std::vector<pid_t> out;
  for (const auto& name : root.list("proc")) {
    if (auto pid = parse_pid(name)) out.push_back(*pid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

CpuNodes::CpuNodes(const SysRoot& root) {
  auto entries = root.list("sys/devices/system/node");
  bool any = false;
  for (const auto& name : entries) {
    if (name.size() < 5 || name.compare(0, 4, "node") != 0) continue;
    auto node = parse_decimal(std::string_view(name).substr(4), k_max_id);
    if (!node) continue;
    auto cpus = root.read_cpulist("sys/devices/system/node/" + name + "/cpulist");
    if (!cpus) continue;
    any = true;
    cpus->for_each([&](unsigned cpu) {
      if (cpu >= m_node.size()) m_node.resize(cpu + 1, -1);
      m_node[cpu] = static_cast<long>(*node);
    });
  }
  m_flat = !any;
}

long CpuNodes::node_of(long cpu) const {
  if (cpu < 0) return -1;
  if (m_flat) return 0;
  if (static_cast<size_t>(cpu) >= m_node.size()) return -1;
  return m_node[static_cast<size_t>(cpu)];
}

std::string format_id_list(const std::vector<pid_t>& ids) {
  std::string out;
  size_t i = 0;
  while (i < ids.size()) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids[i]);
    if (j > i) out += '-' + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

std::optional<pid_t> parse_pid(std::string_view text) {
  auto v = parse_decimal(text, static_cast<unsigned long long>(k_max_pid));
  if (!v || *v == 0) return std::nullopt;
  return static_cast<pid_t>(*v);
}

}  // namespace affix
