#include "shield_systemd.hpp"

#include <fmt/format.h>

namespace affix {

std::string systemd_escape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '/') out += '-';
    else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' || c == '_' ||
             (c == '.' && i > 0))
      out += static_cast<char>(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

bool default_shield_name(std::string_view name) {
  constexpr std::string_view prefix = "affix-shield-";
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return false;
  for (char c : name.substr(prefix.size()))
    if (c < '0' || c > '9') return false;
  return name[prefix.size()] != '0';
}

std::string shield_slice_unit(const std::string& name) {
  // The default names keep their slice below affix-shield.slice; every
  // other name is one level below affix.slice, escaped as systemd-escape
  // escapes it: no '-' left to read as a level, so no name aliases another.
  if (default_shield_name(name)) return name + ".slice";
  return "affix-" + systemd_escape(name) + ".slice";
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
  // The service goes into a slice of the shield's CPUs: left in
  // system.slice it would be fenced off them (a cgroup gets no CPU its
  // parent lacks), its AllowedCPUs= reading back as the others.
  const std::string shield = format_cpulist(cpus);
  const std::string nodes = mems ? fmt::format("AllowedMemoryNodes={}\n", format_cpulist(*mems)) : std::string();
  out += fmt::format("# /etc/systemd/system/{}: the shield's own slice\n[Slice]\nAllowedCPUs={}\n{}", k_recipe_slice,
                     shield, nodes);
  out += fmt::format("# the shielded service's own unit (or its drop-in SERVICE.service.d/50-affix-shield.conf)\n"
                     "[Service]\nSlice={}\nAllowedCPUs={}\n{}", k_recipe_slice, shield, nodes);
  out += fmt::format("# then: systemctl daemon-reload; systemctl restart SERVICE\n"
                     "# check: systemctl show -p Slice -p EffectiveCPUs SERVICE  (Slice={}, EffectiveCPUs={})\n"
                     "#        affix pin --check {} $(systemctl show -p MainPID --value SERVICE)\n",
                     k_recipe_slice, shield, shield);
  return out;
}

}  // namespace affix
