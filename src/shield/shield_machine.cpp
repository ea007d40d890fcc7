#include "shield_machine.hpp"

#include <fmt/format.h>

#include "cgroup_mounts.hpp"
#include "error.hpp"
#include "partition_verdict.hpp"
#include "shield_ops.hpp"
#include "text.hpp"

namespace affix {


std::vector<ShieldRecord> read_records(FilesOs& files, std::vector<std::string>& bad) {
  std::vector<ShieldRecord> out;
  for (const auto& n : files.list(k_record_dir)) {
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".part") == 0) continue;  // a record being replaced
    std::string path = record_path(n);
    auto text = files.read(path);
    if (!text) continue;  // removed meanwhile
    std::string why;
    auto r = parse_record(*text, why);
    if (!r) {
      bad.push_back(fmt::format("{}: {}", printable(path), why));
      continue;
    }
    if (r->name != n) {
      bad.push_back(fmt::format("{}: it names shield '{}'", printable(path), printable(r->name)));
      continue;
    }
    out.push_back(std::move(*r));
  }
  return out;
}

std::optional<ShieldRecord> read_record(FilesOs& files, const std::string& name) {
  std::string path = record_path(name);
  auto text = files.read(path);
  if (!text) return std::nullopt;
  std::string why;
  auto r = parse_record(*text, why);
  if (!r || r->name != name)
    throw Error(ErrorKind::Runtime, fmt::format("{} is not a shield record affix can read: {}", printable(path),
                                                r ? "it names another shield" : why),
                "it was changed by hand; remove what it lists by hand, then the file");
  return r;
}

ShieldMachine read_shield_machine(const SysRoot& root, FilesOs& files) {
  ShieldMachine m;
  if (auto online = root.read_cpulist("sys/devices/system/cpu/online")) m.online = *online;
  m.systemd = root.exists("run/systemd/system");
  m.records = read_records(files, m.bad_records);
  std::optional<CgroupMount> v2, v1;
  for (auto& mount : read_cgroup_mounts(root, "proc/self")) {
    if (mount.fstype == "cgroup2" && !v2) v2 = mount;
    if (is_cpuset_v1(mount) && !v1) v1 = mount;
  }
  if (v2 && v2->root == "/" && lists_word(files.read(v2->mountpoint + "/cgroup.controllers").value_or(""), "cpuset")) {
    m.layout = m.systemd ? ShieldLayout::Systemd : ShieldLayout::Cgroup2;
    m.cgroup_root = v2->mountpoint;
    m.cpuset_enabled = lists_word(files.read(v2->mountpoint + "/cgroup.subtree_control").value_or(""), "cpuset");
    m.has_exclusive = files.exists(v2->mountpoint + "/cpuset.cpus.isolated");
    for (const auto& child : files.list(v2->mountpoint)) {
      std::string dir = v2->mountpoint + "/" + child;
      auto state = files.read(dir + "/cpuset.cpus.partition");
      if (!state || !parse_partition(*state).valid) continue;
      auto cpus = parse_cpulist(trim_space(files.read(dir + "/cpuset.cpus.effective").value_or("")), true);
      m.partitions.emplace_back(dir, cpus ? *cpus.value : CpuSet());
    }
    return m;
  }
  if (v1 && v1->root == "/") {
    m.layout = ShieldLayout::Cgroup1;
    m.cgroup_root = v1->mountpoint;
    m.v1_prefix = v1->fstype == "cpuset" || mount_has_option(v1->options, "noprefix") ? "" : "cpuset.";
    m.v1_root_mems = std::string(trim_space(files.read(m.cgroup_root + "/" + m.v1_prefix + "mems").value_or("")));
    return m;
  }
  if ((v2 && v2->root != "/") || (v1 && v1->root != "/"))
    m.why_none = fmt::format("the cpuset hierarchy mounted at {} shows cgroup {}, not the root cgroup (a container?)",
                             printable(v2 ? v2->mountpoint : v1->mountpoint), printable(v2 ? v2->root : v1->root));
  else if (v2)
    m.why_none = fmt::format("cgroup v2 at {} has no cpuset controller (its cgroup.controllers), and no cgroup v1 "
                             "cpuset hierarchy is mounted", printable(v2->mountpoint));
  else
    m.why_none = "neither cgroup v2 nor a cgroup v1 cpuset hierarchy is mounted";
  return m;
}

}  // namespace affix
