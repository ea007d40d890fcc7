// The CPUs and memory nodes a process may use: its cgroup cpuset, found
// through proc/PID/cgroup (or the older proc/PID/cpuset) and the mount table;
// every online CPU where no hierarchy has the cpuset controller; else the
// affinity in proc/PID/status. A handful of small reads: the run
// path calls this on every launch.
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "cgroup_mounts.hpp"
#include "error.hpp"
#include "os.hpp"
#include "sysroot.hpp"
#include "text.hpp"
#include "topology.hpp"

namespace affix {

namespace {

// The cgroup path relative to the mount, or nullopt where the cgroup is not
// under that mount's root.
std::optional<std::string> under_mount(const CgroupMount& m, const std::string& path) {
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
  std::string mems_source;  // where mems came from
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
      Found f{*cpus, std::nullopt, tag + ":" + path, {}};
      for (const char* mem : mem_names)
        if ((f.mems = read_list(root, dir + "/" + mem))) {
          f.mems_source = tag + ":" + dir + "/" + mem;
          break;
        }
      return f;
    }
  }
  return std::nullopt;
}

// Where the target lives in another mount namespace (a container), the
// mount points of its mountinfo are its own, not affix's: its cgroup files
// are reached through proc/PID/root (affix(1), Selection rules). "" where
// it shares affix's namespace, or where either link cannot be read (then
// neither can proc/PID/root: the paths are read as affix sees them).
std::string own_files(const SysRoot& root, const std::string& proc) {
  if (proc == "proc/self") return {};
  auto affix_ns = root.read_link("proc/self/ns/mnt");
  auto target_ns = root.read_link(proc + "/ns/mnt");
  if (!affix_ns || !target_ns || *affix_ns == *target_ns) return {};
  return "/" + proc + "/root";
}

std::optional<Found> from_cgroup(const SysRoot& root, const std::string& proc) {
  std::optional<std::string> v1_path, v2_path;
  if (auto text = root.read(proc + "/cgroup", 1u << 16)) {
    for (auto line : split(*text, '\n')) {
      auto f = split(line, ':');
      if (f.size() < 3) continue;
      std::string path(line.substr(f[0].size() + f[1].size() + 2));
      if (f[0] == "0" && f[1].empty()) v2_path = path;
      else if (mount_has_option(f[1], "cpuset")) v1_path = path;
    }
  } else if (auto cpuset = root.read(proc + "/cpuset", 1u << 16)) {
    // Kernels before cgroups (and some captures) only have proc/PID/cpuset:
    // the path of the cgroup that holds the cpuset controller, which may be
    // a cgroup1 or a cgroup2 hierarchy.
    std::string path(*cpuset);
    while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
    if (!path.empty()) v1_path = v2_path = path;
  }
  if (!v1_path && !v2_path) return std::nullopt;
  auto mounts = read_cgroup_mounts(root, proc);
  const std::string base = own_files(root, proc);
  if (v1_path) {
    for (auto& m : mounts) {
      if (!is_cpuset_v1(m)) continue;
      bool old = m.fstype == "cpuset";
      auto rel = under_mount(m, *v1_path);
      if (!rel) continue;
      std::string dir = base + join(m.mountpoint, *rel);
      std::string tag = old || mount_has_option(m.options, "noprefix") ? "cpuset" : "cgroup1";
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
        std::string dir = base + join(m.mountpoint, path);
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

// Where no hierarchy has the cpuset controller (no cgroup v1 cpuset is
// mounted, and the cgroup v2 root's cgroup.controllers does not name it:
// after a v1 cpuset is unmounted the controller returns to v2 only once the
// kernel has destroyed that hierarchy, tens of seconds later), every task
// is in the kernel's top cpuset: every online CPU. The controllers file's
// path (as the target sees it), or nullopt where that is not known.
//
// A v1 hierarchy unmounted while it still has cgroups lives on, unseen, and
// keeps the controller: a target in one of its cpusets (its cgroup file
// names the cpuset controller with a path other than "/") is not known to
// be free, nor is one whose cgroup file cannot be read.
std::optional<std::string> no_cpuset_hierarchy(const SysRoot& root, const std::string& proc) {
  auto cgroups = root.read(proc + "/cgroup", 1u << 16);
  if (!cgroups) return std::nullopt;
  for (auto line : split(*cgroups, '\n')) {
    auto f = split(line, ':');
    if (f.size() < 3 || !mount_has_option(f[1], "cpuset")) continue;
    if (line.substr(f[0].size() + f[1].size() + 2) != "/") return std::nullopt;
  }
  auto mounts = read_cgroup_mounts(root, proc);
  for (const auto& m : mounts)
    if (is_cpuset_v1(m)) return std::nullopt;
  const std::string base = own_files(root, proc);
  for (const auto& m : mounts) {
    if (m.fstype != "cgroup2" || m.root != "/") continue;
    std::string path = base + m.mountpoint;
    if (path.empty() || path.back() != '/') path += '/';
    path += "cgroup.controllers";
    auto text = root.read(path, 1u << 12);
    if (!text) continue;
    for (auto word : split(trim_space(*text), ' '))
      if (trim_space(word) == "cpuset") return std::nullopt;
    return path;
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
  return Found{*cpus, field("Mems_allowed_list:"), "status:/" + path, "status:/" + path};
}

}  // namespace

Allowed read_allowed(const SysRoot& root, const Topology& topo, AffinityOs& affinity,
                     const std::string& pid) {
  if (pid != "self" && !parse_decimal(pid, 1u << 22))
    throw Error(ErrorKind::Runtime, fmt::format("'{}' is not a process ID", pid));
  std::string proc = "proc/" + pid;
  if (pid != "self" && !root.exists(proc)) throw Error(ErrorKind::Runtime, fmt::format("no such process: {}", pid));
  std::optional<Found> found = from_cgroup(root, proc);
  if (found && !found->cpus.intersects(topo.online)) found.reset();  // an empty cpuset cannot hold a process
  if (!found) {
    if (auto controllers = no_cpuset_hierarchy(root, proc)) {
      found = Found{topo.online, std::nullopt, "no-cpuset:" + *controllers, {}};
      // Its memory nodes are the top cpuset's too, as its status says.
      if (auto status = from_status(root, proc)) {
        found->mems = status->mems;
        found->mems_source = status->mems_source;
      }
    }
  }
  if (!found) found = from_status(root, proc);
  Allowed out;
  if (found) {
    out.cpus = found->cpus & topo.online;
    out.mems = found->mems ? *found->mems & topo.node_set() : topo.node_set();
    out.source = found->source;  // paths as seen inside the root
    out.mems_source = found->mems ? found->mems_source : "all-nodes";
  } else if (root.is_default()) {
    throw Error(ErrorKind::Runtime, fmt::format("cannot read {}", root.path(proc + "/status")));
  } else {
    // A captured machine with neither: every online CPU, every node.
    out.cpus = topo.online;
    out.mems = topo.node_set();
    out.source = "all-online";
    out.mems_source = "all-nodes";
  }
  out.inherited = read_inherited(root, affinity);
  if (out.inherited) *out.inherited &= topo.online;
  return out;
}

std::optional<CpuSet> read_inherited(const SysRoot& root, AffinityOs& affinity) {
  if (root.is_default()) {
    CpuSet cpus;
    if (affinity.get_affinity(0, cpus) != 0) return std::nullopt;
    return cpus;
  }
  auto found = from_status(root, "proc/self");
  if (!found) return std::nullopt;
  return found->cpus;
}

std::optional<CpuSet> read_thread_cpuset(const SysRoot& root, const Topology& topo, pid_t pid, pid_t tid) {
  auto found = from_cgroup(root, fmt::format("proc/{}/task/{}", pid, tid));
  if (!found || !found->cpus.intersects(topo.online)) return std::nullopt;
  return found->cpus & topo.online;
}

}  // namespace affix
