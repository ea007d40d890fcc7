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
constexpr uint64_t k_max_schedstat = 1ull << 62;  // as watch's counters

// A signed or unsigned decimal token; nullopt where it is not one.
template <typename T> std::optional<T> to_number(std::string_view s) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
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

// Sums one numa_maps line into a process's usage: its pages per node, and
// the pages its policy covers (policies in the order of their first line).
struct UsageSum {
  NodePages pages, anon, file, weighted;
  std::vector<std::pair<std::string, unsigned long long>> policies;
  std::string weighted_policy;

  void add(const NumaMapping& m, bool anonymous) {
    unsigned long long total = 0;
    NodePages& kind = anonymous ? anon : file;
    bool by_weight = anonymous && m.policy.rfind("weighted interleave", 0) == 0;
    if (by_weight && weighted_policy.empty()) weighted_policy = m.policy;
    for (const auto& [node, count] : m.pages) {
      auto& sum = pages[node];
      sum = std::min(sum + count, k_max_pages);
      auto& of_kind = kind[node];
      of_kind = std::min(of_kind + count, k_max_pages);
      total = std::min(total + count, k_max_pages);
      if (by_weight) weighted[node] = std::min(weighted[node] + count, k_max_pages);
    }
    auto it = std::find_if(policies.begin(), policies.end(), [&](const auto& p) { return p.first == m.policy; });
    if (it == policies.end()) policies.emplace_back(m.policy, total);
    else it->second = std::min(it->second + total, k_max_pages);
  }

  NumaUsage finish() {
    NumaUsage out;
    out.pages = std::move(pages);
    out.anon = std::move(anon);
    out.file = std::move(file);
    out.weighted = std::move(weighted);
    out.weighted_policy = std::move(weighted_policy);
    unsigned long long most = 0;
    for (const auto& [policy, count] : policies) {
      if (out.policy.empty() || count > most) {
        out.policy = policy;
        most = count;
      }
    }
    return out;
  }
};

// numa_maps (and maps) line by line, bounded in memory by a line (the
// kernel never writes one of 16 KiB) and in size by 1 GiB.
constexpr size_t k_max_maps_line = 16 * 1024;

bool listed(const std::vector<unsigned long long>& starts, unsigned long long start) {
  return std::binary_search(starts.begin(), starts.end(), start);
}

std::optional<NumaUsage> read_usage(const SysRoot& root, const std::string& dir,
                                    const std::vector<unsigned long long>& private_writable) {
  UsageSum sum;
  bool ok = root.for_each_line(dir + "/numa_maps", [&](std::string_view line) {
    if (auto m = parse_numa_maps_line(line)) sum.add(*m, is_anonymous(*m, listed(private_writable, m->start)));
    return true;
  }, k_max_maps_line, k_max_numa_maps_size);
  if (!ok) return std::nullopt;
  return sum.finish();
}

}  // namespace

std::optional<SchedStat> parse_schedstat(std::string_view text) {
  uint64_t values[3];
  for (int i = 0; i < 3; ++i) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    auto end = text.find_first_of(" \n");
    auto v = parse_decimal(text.substr(0, end), k_max_schedstat);
    if (!v) return std::nullopt;
    values[i] = *v;
    text = end == std::string_view::npos ? std::string_view() : text.substr(end);
  }
  return SchedStat{values[0], values[1], values[2]};
}

std::optional<StatLine> parse_stat(std::string_view text) {
  auto open = text.find('(');
  auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  StatLine st;
  auto id = to_number<int>(trim_space(text.substr(0, open)));
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
    } else if (field == 4) {
      auto v = to_number<int>(token);
      if (!v || *v < 0) return std::nullopt;
      st.ppid = *v;
    } else if (field == 14 || field == 15) {
      auto v = to_number<unsigned long long>(token);
      if (!v) return std::nullopt;
      st.cpu_ticks += *v;
    } else if (field == 20) {
      auto v = to_number<unsigned long>(token);
      if (!v) return std::nullopt;
      st.num_threads = *v;
    } else if (field == 9) {
      auto v = to_number<unsigned long>(token);
      if (!v) return std::nullopt;
      st.flags = *v;
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
  bool ok = for_each_field(text, [&](std::string_view key, std::string_view value) {
    if (key == "Name") {
      info.name = std::string(value);
    } else if (key == "Tgid") {
      info.tgid = to_number<int>(value).value_or(0);
    } else if (key == "Cpus_allowed_list") {
      auto set = parse_cpulist(value, true);
      if (!set) return false;
      info.cpus = *set.value;
      have_cpus = true;
    } else if (key == "Mems_allowed_list") {
      auto set = parse_cpulist(value, true);
      if (!set) return false;
      info.mems = *set.value;
    } else if (key == "CapEff") {
      unsigned long long caps = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), caps, 16);
      if (ec == std::errc() && p == value.data() + value.size()) info.cap_eff = caps;
    } else if (key == "TracerPid") {
      info.tracer = to_number<int>(value).value_or(0);
    }
    return true;
  });
  if (!ok || !have_cpus) return std::nullopt;
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

NumaUsage parse_numa_usage(std::string_view text, const std::vector<unsigned long long>& private_writable) {
  UsageSum sum;
  while (!text.empty()) {
    auto nl = text.find('\n');
    auto m = parse_numa_maps_line(text.substr(0, nl));
    if (m) sum.add(*m, is_anonymous(*m, listed(private_writable, m->start)));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return sum.finish();
}

std::optional<NumaMapping> parse_numa_maps_line(std::string_view line) {
  while (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  auto sp = line.find(' ');
  if (sp == 0 || sp == std::string_view::npos) return std::nullopt;
  NumaMapping m;
  auto [p, ec] = std::from_chars(line.data(), line.data() + sp, m.start, 16);
  if (ec != std::errc() || p != line.data() + sp) return std::nullopt;
  std::string_view rest = line.substr(sp + 1);
  // The policy is one word, except the two modes the kernel spells with a
  // space; flags ("=static") and nodes (":0-1") follow without one.
  size_t end = 0;
  for (std::string_view two : {"prefer (many)", "weighted interleave"}) {
    if (rest.substr(0, two.size()) == two) end = two.size();
  }
  end = rest.find(' ', end);
  m.policy = std::string(rest.substr(0, end));
  if (end == std::string_view::npos) return m;
  rest = rest.substr(end + 1);
  m.pages = parse_numa_maps(rest);
  // A file's path is one token: numa_maps escapes its blanks and '='.
  for (std::string_view tokens = rest; !tokens.empty();) {
    auto blank = tokens.find(' ');
    std::string_view token = tokens.substr(0, blank);
    if (token.substr(0, 5) == "file=") m.file = true;
    if (token.substr(0, 5) == "anon=") m.anon = true;
    tokens = blank == std::string_view::npos ? std::string_view() : tokens.substr(blank + 1);
  }
  constexpr std::string_view key = "kernelpagesize_kB=";
  if (auto at = rest.find(key); at != std::string_view::npos) {
    auto kb = parse_decimal(rest.substr(at + key.size(), rest.find(' ', at) - at - key.size()), 1ull << 30);
    if (kb && *kb >= 4) m.page_kb = *kb;
  }
  return m;
}

bool is_anonymous(const NumaMapping& m, bool private_writable) { return !m.file || m.anon || private_writable; }

std::optional<CpuSet> policy_nodes(std::string_view policy) {
  auto colon = policy.rfind(':');
  if (colon == std::string_view::npos) return CpuSet();
  auto set = parse_cpulist(policy.substr(colon + 1), false);
  if (!set) return std::nullopt;
  return *set.value;
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
  auto usage = read_usage(root, proc_dir(pid), {});
  if (!usage) return std::nullopt;
  return std::move(usage->pages);
}

std::optional<NumaUsage> read_numa_usage(const SysRoot& root, pid_t pid) {
  return read_numa_usage(root, pid, pid);
}

std::optional<NumaUsage> read_numa_usage(const SysRoot& root, pid_t pid, pid_t tid) {
  std::string dir = tid == pid ? proc_dir(pid) : task_dir(pid, tid);
  std::vector<unsigned long long> private_writable;
  if (auto maps = read_maps_in(root, dir)) {
    for (const auto& r : *maps)
      if (r.private_writable) private_writable.push_back(r.start);  // ascending, as read_maps sorts them
  }
  return read_usage(root, dir, private_writable);
}

std::optional<std::vector<NumaMapping>> read_numa_mappings(const SysRoot& root, pid_t pid) {
  std::vector<NumaMapping> out;
  bool ok = root.for_each_line(proc_dir(pid) + "/numa_maps", [&](std::string_view line) {
    if (auto m = parse_numa_maps_line(line)) out.push_back(std::move(*m));
    return true;
  }, k_max_maps_line, k_max_numa_maps_size);
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::vector<AddressRange>> read_maps(const SysRoot& root, pid_t pid) {
  return read_maps_in(root, proc_dir(pid));
}

std::optional<std::vector<AddressRange>> read_maps_in(const SysRoot& root, const std::string& dir) {
  std::vector<AddressRange> out;
  bool ok = root.for_each_line(dir + "/maps", [&](std::string_view line) {
    // "55d0c0de1000-55d0c0de3000 r--p 00000000 08:01 1234  /usr/bin/cat"
    auto dash = line.find('-');
    auto sp = line.find(' ');
    if (dash == std::string_view::npos || sp == std::string_view::npos || dash > sp) return true;
    AddressRange r;
    std::string_view perms = line.substr(sp + 1, 4);
    r.private_writable = perms.size() == 4 && perms[1] == 'w' && perms[3] == 'p';
    auto a = std::from_chars(line.data(), line.data() + dash, r.start, 16);
    auto b = std::from_chars(line.data() + dash + 1, line.data() + sp, r.end, 16);
    if (a.ec != std::errc() || a.ptr != line.data() + dash || b.ec != std::errc() ||
        b.ptr != line.data() + sp || r.end <= r.start)
      return true;
    out.push_back(r);
    return true;
  }, k_max_maps_line, k_max_numa_maps_size);
  if (!ok) return std::nullopt;
  std::sort(out.begin(), out.end(), [](const AddressRange& x, const AddressRange& y) { return x.start < y.start; });
  return out;
}

std::vector<pid_t> list_pids(const SysRoot& root) {
  std::vector<pid_t> out;
  for (const auto& name : root.list("proc")) {
    if (auto pid = parse_pid(name)) out.push_back(*pid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string join_cmdline(std::string_view raw, bool cut) {
  if (cut) {
    // Not in the middle of a UTF-8 character: drop the lead byte of one
    // the cut left incomplete, and its continuation bytes.
    size_t back = 0;
    while (back < 3 && back < raw.size() && (static_cast<unsigned char>(raw[raw.size() - 1 - back]) & 0xc0) == 0x80)
      ++back;
    if (back < raw.size()) {
      auto lead = static_cast<unsigned char>(raw[raw.size() - 1 - back]);
      size_t need = (lead & 0xe0) == 0xc0 ? 2 : (lead & 0xf0) == 0xe0 ? 3 : (lead & 0xf8) == 0xf0 ? 4 : 1;
      if (need > back + 1) raw.remove_suffix(back + 1);
    }
  } else {
    while (!raw.empty() && raw.back() == '\0') raw.remove_suffix(1);
  }
  std::string out(raw);
  std::replace(out.begin(), out.end(), '\0', ' ');
  if (cut) out += "...";
  return out;
}

std::optional<std::string> read_cmdline(const SysRoot& root, pid_t pid) {
  bool more = false;
  auto raw = root.read_head(proc_dir(pid) + "/cmdline", k_max_cmdline, more);
  if (!raw) return std::nullopt;
  return join_cmdline(*raw, more);
}

namespace {

// One read of a seq_file returns at most a page (4096 bytes; more on
// machines with larger pages); a children file shorter than a page less
// the longest entry ("4194304 ") came whole in one.
constexpr size_t k_one_read = 4096 - 8;

}  // namespace

std::optional<std::vector<pid_t>> read_children(const SysRoot& root, pid_t pid) {
  auto tids = read_tasks(root, pid);
  if (!tids) return std::vector<pid_t>{};  // gone: no children left in the tree
  std::vector<pid_t> out;
  for (pid_t tid : *tids) {
    std::optional<std::string> text;
    try {
      text = root.read(task_dir(pid, tid) + "/children");
    } catch (const Error&) {
      return std::nullopt;  // larger than any file we read whole
    }
    if (!text || text->size() >= k_one_read) return std::nullopt;
    std::string_view rest = *text;
    while (!rest.empty()) {
      auto end = rest.find_first_of(" \n");
      std::string_view word = rest.substr(0, end);
      if (!word.empty()) {
        auto child = parse_pid(word);
        if (!child) return std::nullopt;  // not what the kernel writes
        out.push_back(*child);
      }
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 1);
    }
  }
  for (pid_t child : out)
    if (!root.exists(proc_dir(child))) return std::nullopt;
  auto again = read_tasks(root, pid);
  if (again && *again != *tids) return std::nullopt;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<pid_t> parse_pid(std::string_view text) {
  auto v = parse_decimal(text, static_cast<unsigned long long>(k_max_pid));
  if (!v || *v == 0) return std::nullopt;
  return static_cast<pid_t>(*v);
}

}  // namespace affix
