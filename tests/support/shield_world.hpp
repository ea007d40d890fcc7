#pragma once
// A machine for affix shield's tests on fakes: cgroup files (FakeCgroupFs),
// IRQs (FakeIrqOs) and programs (FakeChildOs) behind one ShieldOs, with a
// few processes and IRQs, and its state before anything is changed, so a
// test can check that removing a shield (or failing to make one) puts
// back every file byte for byte.

#include <cerrno>
#include <map>
#include <set>
#include <string>

#include "fake_cgroup_fs.hpp"
#include "fake_child_os.hpp"
#include "fake_irq_os.hpp"
#include "shield_apply.hpp"
#include "shield_machine.hpp"

namespace affix::test {

inline CpuSet shield_cpus(const char* list) { return *parse_cpulist(list).value; }

struct ShieldWorld {
  FakeCgroupFs fs;
  FakeIrqOs irqs;
  FakeChildOs child;
  ShieldOs os{fs, irqs, child};
  std::string root;

  // layout: "cgroup2" (cpuset off in the root's subtree_control), "systemd"
  // or "cgroup1" (mounted at /dev/cpuset).
  explicit ShieldWorld(const std::string& layout = "cgroup2") {
    fs.v1 = layout == "cgroup1";
    root = fs.v1 ? "/dev/cpuset" : "/sys/fs/cgroup";
    fs.cgroup_root(root, "0-7", "0-1");
    if (layout == "systemd") {
      fs.files[root + "/cgroup.subtree_control"] = "cpuset\n";
      fs.dirs.insert("/run/systemd/system");
      child.on_program = [this](const std::vector<std::string>& argv) -> std::optional<int> { return systemd(argv); };
    }
    fs.file("/proc/irq/default_smp_affinity", "ff\n");
    fs.file("/proc/interrupts",
            "           CPU0  CPU1  CPU2  CPU3  CPU4  CPU5  CPU6  CPU7\n"
            "  0:  9 0 0 0 0 0 0 0  IO-APIC   2-edge      timer\n"
            " 24:  0 0 0 0 3 0 0 0  PCI-MSI 8192-edge      eth0-rx\n"
            " 25:  0 0 0 0 0 0 0 0  PCI-MSI 8193-edge      eth0-tx\n"
            " 26:  0 0 0 0 0 0 0 0  PCI-MSI 8194-edge      ahci\n"
            " 27:  0 0 0 0 0 5 0 0  PCI-MSI 8195-edge      nvme0q2\n");
    for (unsigned irq : {0u, 24u, 25u, 26u, 27u}) fs.file("/proc/irq/" + std::to_string(irq) + "/smp_affinity_list", "");
    irqs.affinity_of = {{0, shield_cpus("0-7")}, {24, shield_cpus("4-7")}, {25, shield_cpus("0-7")},
                        {26, shield_cpus("0-3")}, {27, shield_cpus("5")}};
    irqs.effective_of = {{24, shield_cpus("4")}, {25, shield_cpus("6")}, {26, shield_cpus("1")}};
    irqs.refuse = {{0, EPERM}, {27, EIO}};  // the timer; a managed NVMe queue
    fs.cgroup_of = {{1, root}, {2, root}, {10, root}, {300, root}};
    fs.unmovable = {10};  // a kernel thread bound to its CPU
  }

  ShieldMachine machine() {
    ShieldMachine m;
    m.layout = fs.v1 ? ShieldLayout::Cgroup1 : fs.dirs.count("/run/systemd/system") ? ShieldLayout::Systemd : ShieldLayout::Cgroup2;
    m.cgroup_root = root;
    m.v1_prefix = fs.v1 ? "cpuset." : "";
    m.v1_root_mems = "0-1";
    m.systemd = m.layout == ShieldLayout::Systemd;
    auto control = fs.files.find(root + "/cgroup.subtree_control");
    m.cpuset_enabled = control != fs.files.end() && control->second.find("cpuset") != std::string::npos;
    m.has_exclusive = fs.exclusive;
    m.online = shield_cpus("0-7");
    if (!fs.v1)
      for (const auto& name : fs.list(root)) {
        auto p = fs.read(root + "/" + name + "/cpuset.cpus.partition");
        if (p && (*p == "root\n" || *p == "isolated\n"))
          m.partitions.emplace_back(root + "/" + name, *parse_cpulist(fs.files[root + "/" + name + "/cpuset.cpus"], true).value);
      }
    std::vector<std::string> bad;
    m.records = read_records(fs, bad);
    return m;
  }

  // Every file and IRQ list, as they are now.
  struct State {
    std::map<std::string, std::string> files;
    std::map<unsigned, CpuSet> irqs;
    std::map<pid_t, std::string> cgroups;
    bool operator==(const State& o) const { return files == o.files && irqs == o.irqs && cgroups == o.cgroups; }
  };
  State state() const { return State{fs.files, irqs.affinity_of, fs.cgroup_of}; }
  // What differs between two states, one line each (for a test's INFO).
  static std::string diff(const State& a, const State& b) {
    std::string out;
    std::set<std::string> paths;
    for (auto& [p, c] : a.files) paths.insert(p);
    for (auto& [p, c] : b.files) paths.insert(p);
    for (auto& p : paths) {
      auto x = a.files.find(p), y = b.files.find(p);
      std::string l = x == a.files.end() ? "(none)" : x->second, r = y == b.files.end() ? "(none)" : y->second;
      if (l != r) out += p + ": [" + l + "] -> [" + r + "]\n";
    }
    for (auto& [irq, c] : a.irqs)
      if (!b.irqs.count(irq) || !(b.irqs.at(irq) == c)) out += "IRQ " + std::to_string(irq) + " differs\n";
    for (auto& [pid, cg] : a.cgroups)
      if (!b.cgroups.count(pid) || b.cgroups.at(pid) != cg) out += "process " + std::to_string(pid) + ": " + cg + " -> " +
                                                                   (b.cgroups.count(pid) ? b.cgroups.at(pid) : "(none)") + "\n";
    return out;
  }

  // A fake systemd: starting a slice makes its cgroups with cpuset on along
  // the path; stopping it removes the slice's own.
  std::optional<int> systemd(const std::vector<std::string>& argv) {
    if (argv.size() != 3 || argv[0] != "systemctl") return std::nullopt;
    std::string unit = argv[2], stem = unit.substr(0, unit.size() - 6), dir = root;
    std::vector<std::string> dirs;
    for (size_t dash = stem.find('-');; dash = stem.find('-', dash + 1)) {
      dir += "/" + stem.substr(0, dash) + ".slice";
      dirs.push_back(dir);
      if (dash == std::string::npos) break;
    }
    if (argv[1] == "start") {
      for (const auto& d : dirs) {
        fs.make_dir(d);
        fs.files[d + "/cgroup.subtree_control"] = "cpuset\n";
      }
      fs.files[dirs.back() + "/cpuset.cpus"] = "4-7\n";
    } else if (argv[1] == "stop") {
      fs.remove_dir(dirs.back());
    }
    return std::nullopt;
  }
};

}  // namespace affix::test
