// The CPUs and memory nodes a process may use: its cgroup cpuset, found
// through proc/PID/cgroup (or the older proc/PID/cpuset) and the mount table,
// else the affinity in proc/PID/status. A handful of small reads: the run
// path calls this on every launch.
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "error.hpp"
#include "os.hpp"
#include "topology.hpp"

namespace affix {

namespace {

struct Mount {
  std::string root;        // the mount's root inside its filesystem ("/" from proc/mounts)
  std::string mountpoint;  // as seen inside the root directory
  std::string fstype;
  std::string options;     // super options (mountinfo) or options (mounts)
};

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

// The kernel escapes space, tab, newline and backslash in mount paths as \ooo.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Whether a mount table line can be a cpuset's mount: only those are split
// into fields (a launch reads the table every time, and a container host's
// has hundreds of overlay and proc lines). A cgroup v1 cpuset mount names
// "cpuset" in its options, the old cpuset filesystem is "cpuset", cgroup v2
// is "cgroup2".
bool may_be_cpuset(std::string_view line) {
  return line.find("cpuset") != std::string_view::npos || line.find("cgroup2") != std::string_view::npos;
}

// Calls f(line) for each line of text.
template <typename F> void for_each_line(std::string_view text, F&& f) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    f(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

std::vector<Mount> read_mounts(const SysRoot& root, const std::string& proc) {
  std::vector<Mount> out;
  if (auto text = root.read(proc + "/mountinfo", 4u << 20)) {
    for_each_line(*text, [&](std::string_view line) {
      if (!may_be_cpuset(line)) return;
      auto f = split(line, ' ');
      size_t dash = 6;
      while (dash < f.size() && f[dash] != "-") ++dash;
      if (f.size() < 5 || dash + 1 >= f.size()) return;
      Mount m{unescape(f[3]), unescape(f[4]), std::string(f[dash + 1]),
              dash + 3 < f.size() ? std::string(f[dash + 3]) : std::string()};
      out.push_back(std::move(m));
    });
    return out;
  }
  auto text = root.read("proc/mounts", 4u << 20);
  if (!text) text = root.read(proc + "/mounts", 4u << 20);
  if (!text) return out;
  for_each_line(*text, [&](std::string_view line) {
    if (!may_be_cpuset(line)) return;
    auto f = split(line, ' ');
    if (f.size() < 4) return;
    out.push_back(Mount{"/", unescape(f[1]), std::string(f[2]), std::string(f[3])});
  });
  return out;
}

bool has_option(std::string_view options, std::string_view name) {
  for (auto o : split(options, ','))
    if (o == name) return true;
  return false;
}

// The cgroup path relative to the mount, or nullopt where the cgroup is not
// under that mount's root.
std::optional<std::string> under_mount(const Mount& m, const std::string& path) {
  if (m.root == "/") return path;
  if (path.compare(0, m.root.size(), m.root) != 0) return std::nullopt;
  if (path.size() > m.root.size() && path[m.root.size()] != '/') return std::nullopt;
  return path.substr(m.root.size());
}

std::string join(const std::string& dir, const std::string& rel) {
  std::string out = dir;
  if (!rel.empty() && rel != "/") {
    if (out.empty() || out.back() != '/') out += '/';
    out += rel.front() == '/' ? rel.substr(1) : rel;
  }
  return out;
}

struct Found {
  CpuSet cpus;
  std::optional<CpuSet> mems;
  std::string source;
};

// A cpulist file under the root, or nullopt where it is missing.
std::optional<CpuSet> read_list(const SysRoot& root, const std::string& path) {
  return root.read_cpulist(path, true);
}

std::optional<Found> from_files(const SysRoot& root, const std::string& dir, const std::string& tag,
                                std::initializer_list<const char*> cpu_names,
                                std::initializer_list<const char*> mem_names) {
  for (const char* name : cpu_names) {
    std::string path = dir + "/" + name;
    if (auto cpus = read_list(root, path)) {
      Found f{*cpus, std::nullopt, tag + ":" + path};
      for (const char* mem : mem_names)
        if ((f.mems = read_list(root, dir + "/" + mem))) break;
      return f;
    }
  }
  return std::nullopt;
}

std::optional<Found> from_cgroup(const SysRoot& root, const std::string& proc) {
  std::optional<std::string> v1_path, v2_path;
  if (auto text = root.read(proc + "/cgroup", 1u << 16)) {
    for (auto line : split(*text, '\n')) {
      auto f = split(line, ':');
      if (f.size() < 3) continue;
      std::string path(line.substr(f[0].size() + f[1].size() + 2));
      if (f[0] == "0" && f[1].empty()) v2_path = path;
      else if (has_option(f[1], "cpuset")) v1_path = path;
    }
  } else if (auto cpuset = root.read(proc + "/cpuset", 1u << 16)) {
    // Kernels before cgroups (and some captures) only have proc/PID/cpuset.
    std::string path(*cpuset);
    while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
    if (!path.empty()) v1_path = path;
  }
  if (!v1_path && !v2_path) return std::nullopt;
  auto mounts = read_mounts(root, proc);
  if (v1_path) {
    for (auto& m : mounts) {
      bool old = m.fstype == "cpuset";
      if (!old && !(m.fstype == "cgroup" && has_option(m.options, "cpuset"))) continue;
      auto rel = under_mount(m, *v1_path);
      if (!rel) continue;
      std::string dir = join(m.mountpoint, *rel);
      std::string tag = old || has_option(m.options, "noprefix") ? "cpuset" : "cgroup1";
      if (auto f = from_files(root, dir, tag,
                              {"cpuset.effective_cpus", "effective_cpus", "cpuset.cpus", "cpus"},
                              {"cpuset.effective_mems", "effective_mems", "cpuset.mems", "mems"}))
        return f;
    }
  }
  if (v2_path) {
    for (auto& m : mounts) {
      if (m.fstype != "cgroup2") continue;
      auto rel = under_mount(m, *v2_path);
      if (!rel) continue;
      // Where the cpuset controller is not enabled in a cgroup, its parent's
      // effective sets apply: walk up to the mount.
      std::string path = *rel;
      while (true) {
        std::string dir = join(m.mountpoint, path);
        if (auto f = from_files(root, dir, "cgroup2", {"cpuset.cpus.effective"}, {"cpuset.mems.effective"}))
          return f;
        if (path.empty() || path == "/") break;
        size_t slash = path.find_last_of('/');
        path = slash == std::string::npos || slash == 0 ? std::string("/") : path.substr(0, slash);
      }
    }
  }
  return std::nullopt;
}

std::optional<Found> from_status(const SysRoot& root, const std::string& proc) {
  std::string path = proc + "/status";
  auto text = root.read(path, 1u << 16);
  if (!text) return std::nullopt;
  auto field = [&](std::string_view name) -> std::optional<CpuSet> {
    for (auto line : split(*text, '\n')) {
      if (line.substr(0, name.size()) != name) continue;
      auto parsed = parse_cpulist(line.substr(name.size()), true);
      if (!parsed)
        throw Error(ErrorKind::Runtime, fmt::format("{}: {}: {}", root.path(path), name, parsed.error.message));
      return *parsed.value;
    }
    return std::nullopt;
  };
  auto cpus = field("Cpus_allowed_list:");
  if (!cpus) return std::nullopt;
  return Found{*cpus, field("Mems_allowed_list:"), "status:/" + path};
}

}  // namespace

Allowed read_allowed(const SysRoot& root, const Topology& topo, const std::string& pid) {
  if (pid != "self" && !parse_decimal(pid, 1u << 22))
    throw Error(ErrorKind::Runtime, fmt::format("'{}' is not a process ID", pid));
  std::string proc = "proc/" + pid;
  if (pid != "self" && !root.exists(proc)) throw Error(ErrorKind::Runtime, fmt::format("no such process: {}", pid));
  std::optional<Found> found = from_cgroup(root, proc);
  if (found && !found->cpus.intersects(topo.online)) found.reset();  // an empty cpuset cannot hold a process
  if (!found) found = from_status(root, proc);
  Allowed out;
  if (found) {
    out.cpus = found->cpus & topo.online;
    out.mems = found->mems ? *found->mems & topo.node_set() : topo.node_set();
    out.source = found->source;  // paths as seen inside the root
  } else if (root.is_default()) {
    throw Error(ErrorKind::Runtime, fmt::format("cannot read {}", root.path(proc + "/status")));
  } else {
    // A captured machine with neither: every online CPU, every node.
    out.cpus = topo.online;
    out.mems = topo.node_set();
    out.source = "all-online";
  }
  out.inherited = read_inherited(root);
  if (out.inherited) *out.inherited &= topo.online;
  return out;
}

std::optional<CpuSet> read_inherited(const SysRoot& root) {
  if (root.is_default()) {
    CpuSet cpus;
    if (linux_os().get_affinity(0, cpus) != 0) return std::nullopt;
    return cpus;
  }
  auto found = from_status(root, "proc/self");
  if (!found) return std::nullopt;
  return found->cpus;
}

}  // namespace affix
