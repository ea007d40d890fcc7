#include "shield_systemd.hpp"

#include <fmt/format.h>

namespace affix {

std::string shield_slice_unit(const std::string& name) {
  return (name.rfind("affix-", 0) == 0 ? name : "affix-" + name) + ".slice";
}

std::vector<std::string> slice_cgroups(const std::string& cgroup_root, const std::string& unit) {
  std::string stem = unit.substr(0, unit.size() - 6);  // without ".slice"
  std::vector<std::string> out;
  std::string dir = cgroup_root;
  for (size_t dash = stem.find('-');; dash = stem.find('-', dash + 1)) {
    dir += "/" + stem.substr(0, dash) + ".slice";
    out.push_back(dir);
    if (dash == std::string::npos) break;
  }
  return out;
}

std::string slice_cgroup(const std::string& cgroup_root, const std::string& unit) {
  return slice_cgroups(cgroup_root, unit).back();
}

std::string slice_unit_path(const std::string& unit) { return "/run/systemd/system/" + unit; }

std::string slice_unit_text(const ShieldRecord& r) {
  std::string out = fmt::format(
      "# Written by affix shield; 'affix shield --off {}' removes it. In /run: a reboot keeps nothing.\n"
      "[Unit]\nDescription=affix shield {} (CPUs {})\n\n[Slice]\nAllowedCPUs={}\n",
      r.name, r.name, format_cpulist(r.cpus), format_cpulist(r.cpus));
  if (!r.mems.empty()) out += fmt::format("AllowedMemoryNodes={}\n", format_cpulist(r.mems));
  return out;
}

std::vector<std::string> systemctl(const std::string& verb, const std::string& unit) {
  std::vector<std::string> argv{"systemctl", verb};
  if (!unit.empty()) argv.push_back(unit);
  return argv;
}

std::vector<std::string> in_slice(const std::string& unit, const std::vector<std::string>& command) {
  std::vector<std::string> argv{"systemd-run", "--scope", "--quiet", "--collect", "--slice=" + unit, "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::string systemd_shield_lines(const CpuSet& cpus, const CpuSet& rest, const CpuSet* mems) {
  std::string out;
  const std::string others = format_cpulist(rest);
  for (const char* unit : {"system.slice", "user.slice", "init.scope"}) {
    bool scope = std::string_view(unit).substr(std::string_view(unit).size() - 5) == "scope";
    out += fmt::format("# /etc/systemd/system/{}.d/50-affix-shield.conf\n[{}]\nAllowedCPUs={}\n", unit,
                       scope ? "Scope" : "Slice", others);
  }
  out += fmt::format("# the shielded service's own unit\n[Service]\nAllowedCPUs={}\n", format_cpulist(cpus));
  if (mems) out += fmt::format("AllowedMemoryNodes={}\n", format_cpulist(*mems));
  return out;
}

}  // namespace affix
