// show --shield and pin --check's reading of a shield (shield_status.hpp),
// on a hand-made root: what the kernel says of the partition, who is
// inside, the launcher, and per CPU the kernel threads, IRQs and other
// tasks; text and JSON.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "files_os.hpp"
#include "irq.hpp"
#include "mini_json.hpp"
#include "proc.hpp"
#include "shield_machine.hpp"
#include "shield_output.hpp"
#include "shield_status.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::Json;
using affix::test::JsonReader;
using affix::test::TempRoot;

namespace {

// One single-threaded process: its stat (flags, start time), status
// (Cpus_allowed_list) and cgroup, and its task directory with the same.
void task(const TempRoot& root, pid_t pid, const std::string& comm, unsigned long flags, const std::string& cpus,
          const std::string& cgroup, unsigned long long start = 100) {
  std::string stat = fmt::format("{} ({}) S 1 {} {} 0 -1 {} 0 0 0 0 0 0 0 0 20 0 1 0 {} 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n",
                                 pid, comm, pid, pid, flags, start);
  std::string status = fmt::format("Name:\t{}\nTgid:\t{}\nCpus_allowed_list:\t{}\nMems_allowed_list:\t0\n", comm, pid, cpus);
  for (std::string dir : {fmt::format("proc/{}", pid), fmt::format("proc/{}/task/{}", pid, pid)}) {
    root.write(dir + "/stat", stat);
    root.write(dir + "/status", status);
    root.write(dir + "/cgroup", "0::" + cgroup + "\n");
  }
}

void machine(const TempRoot& root, const std::string& partition) {
  root.write("proc/self/mountinfo", "24 1 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  root.write("sys/fs/cgroup/cpuset.cpus.isolated", "6-7\n");
  root.write("sys/fs/cgroup/affix-shield-1/cpuset.cpus.partition", partition + "\n");
  root.write("sys/fs/cgroup/affix-shield-1/cpuset.cpus.effective", "6-7\n");
  root.write("sys/fs/cgroup/affix-shield-1/cgroup.procs", "300\n");
  root.write("sys/devices/virtual/workqueue/cpumask", "3f\n");
  root.write("run/affix/shields/affix-shield-1",
             "affix-shield-record\t1\nname\taffix-shield-1\nlayout\tcgroup2\ncgroup\t/sys/fs/cgroup/affix-shield-1\n"
             "cpus\t6-7\nmems\t\nmode\tisolated\nirqs\tyes\nlauncher\t250\t777\t300\n");
  task(root, 1, "init", 0, "0-5", "/");
  task(root, 2, "kthreadd", k_pf_kthread, "0-7", "/");  // a kernel thread cgroup v1 will not move
  task(root, 40, "migration/6", k_pf_kthread | k_pf_no_setaffinity, "6", "/");
  task(root, 41, "kworker/u16:2", k_pf_kthread | k_pf_no_setaffinity, "0-5", "/");
  task(root, 250, "affix", 0, "0-5", "/", 777);
  task(root, 300, "server", 0, "6-7", "/affix-shield-1");
  task(root, 400, "sshd\x1b", 0, "0-7", "/system.slice/ssh.service");
  root.write("proc/interrupts", "      CPU0 CPU1 CPU2 CPU3 CPU4 CPU5 CPU6 CPU7\n"
                                " 40:   0 0 0 0 0 0 0 9  PCI-MSI 1-edge  nvme0q7\n"
                                " 41:   0 0 0 0 0 0 0 0  PCI-MSI 2-edge  eth0\n");
  root.write("proc/irq/40/smp_affinity_list", "7\n");
  root.write("proc/irq/40/effective_affinity_list", "7\n");
  root.write("proc/irq/41/smp_affinity_list", "0-5\n");
  root.write("proc/irq/41/effective_affinity_list", "1\n");
}

std::vector<ShieldStatus> statuses(const TempRoot& root) {
  SysRoot sys(root.path());
  LinuxFilesOs files(sys);
  LinuxIrqOs irqs(sys);
  std::vector<std::string> bad;
  return read_shield_status(sys, files, irqs, read_records(files, bad));
}

}  // namespace

TEST_CASE("status: the kernel's partition, who is inside, and per CPU what may still run there", "[shield]") {
  TempRoot root;
  machine(root, "isolated");
  auto all = statuses(root);
  REQUIRE(all.size() == 1);
  const ShieldStatus& s = all[0];
  CHECK(s.exists);
  CHECK(s.holds);
  CHECK(format_cpulist(*s.effective) == "6-7");
  CHECK(format_cpulist(*s.isolated) == "6-7");
  CHECK(format_cpulist(*s.workqueue) == "0-5");
  CHECK(s.launcher == LauncherState::Running);
  REQUIRE(s.inside.size() == 1);
  CHECK(s.inside[0].first == 300);
  REQUIRE(s.cpus.size() == 2);
  CHECK(s.cpus[0].cpu == 6);
  REQUIRE(s.cpus[0].kernel.size() == 2);
  CHECK(s.cpus[0].kernel[0].comm == "kthreadd");
  CHECK_FALSE(s.cpus[0].kernel[0].bound);
  CHECK(s.cpus[0].kernel[1].comm == "migration/6");
  CHECK(s.cpus[0].kernel[1].bound);
  REQUIRE(s.cpus[0].others.size() == 1);
  CHECK(s.cpus[0].others[0].pid == 400);
  CHECK(s.cpus[0].irqs.empty());
  REQUIRE(s.cpus[1].irqs.size() == 1);
  CHECK(s.cpus[1].irqs[0].irq == 40);
  CHECK(shield_problems(s) ==
        std::vector<std::string>{"thread 400 (sshd\\e) of process 400, in cgroup /system.slice/ssh.service, may run on CPUs 6-7"});

  CHECK(format_shields_text(all, {}) ==
        "affix-shield-1  CPUs 6-7  isolated partition  cgroup2 /sys/fs/cgroup/affix-shield-1\n"
        "  kernel    isolated (cpuset.cpus.partition); effective CPUs 6-7; isolated CPUs 6-7 (cpuset.cpus.isolated); "
        "unbound workqueues 0-5\n"
        "  inside    1 process: 300 (server)\n"
        "  launcher  affix 250 runs command 300 in it; the shield goes when that ends\n"
        "  CPU 6     kernel threads that cannot move: migration/6 (40)\n"
        "            other kernel threads: kthreadd (2)\n"
        "            IRQs: none\n"
        "            other tasks: sshd\\e (400, cgroup /system.slice/ssh.service)\n"
        "  CPU 7     kernel threads that cannot move: none\n"
        "            other kernel threads: kthreadd (2)\n"
        "            IRQs: 40 (nvme0q7)\n"
        "            other tasks: sshd\\e (400, cgroup /system.slice/ssh.service)\n");

  std::string json = format_shields_json(all);
  CHECK(json.find("\"comm\": \"sshd\\u001b\"") != std::string::npos);
  Json j = JsonReader(json).parse();
  REQUIRE(j.array.size() == 1);
  CHECK(j[0]["name"].string == "affix-shield-1");
  CHECK(j[0]["layout"].string == "cgroup2");
  CHECK(j[0]["mode"].string == "isolated");
  CHECK(j[0]["kernel"]["holds"].boolean);
  CHECK(j[0]["kernel"]["partition"].string == "isolated");
  CHECK(j[0]["kernel"]["reason"].is_null());
  CHECK(j[0]["kernel"]["isolated"].string == "6-7");
  CHECK(j[0]["kernel"]["workqueue"].string == "0-5");
  CHECK(j[0]["launcher"]["state"].string == "running");
  CHECK(j[0]["launcher"]["pid"].number == 250);
  CHECK(j[0]["inside"][0]["comm"].string == "server");
  CHECK(j[0]["per_cpu"][0]["others"][0]["pid"].number == 400);
  CHECK(j[0]["per_cpu"][0]["kernel_threads"][1]["tid"].number == 40);
  CHECK(j[0]["per_cpu"][0]["kernel_threads"][1]["bound"].boolean);
  CHECK_FALSE(j[0]["per_cpu"][0]["kernel_threads"][0]["bound"].boolean);
  CHECK(j[0]["per_cpu"][1]["irqs"][0]["name"].string == "nvme0q7");
  CHECK(j[0]["per_cpu"][1]["irqs"][0]["managed"].is_null());
  CHECK(j[0]["problems"].array.size() == 1);
}

TEST_CASE("status: a partition the kernel made invalid, a launcher gone, a cgroup gone", "[shield]") {
  TempRoot root;
  machine(root, "isolated invalid (Cpu list in cpuset.cpus not exclusive)");
  root.write("proc/250/stat", "250 (affix) S 1 250 250 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 778 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n");
  auto all = statuses(root);
  REQUIRE(all.size() == 1);
  CHECK_FALSE(all[0].holds);
  CHECK(all[0].launcher == LauncherState::Gone);  // the PID names another process now
  auto problems = shield_problems(all[0]);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0] == "the kernel does not hold it: cpuset.cpus.partition reads 'isolated invalid (Cpu list in cpuset.cpus not exclusive)'");
  std::string text = format_shields_text(all, {});
  CHECK(text.find("  kernel    NOT HELD: isolated invalid (Cpu list in cpuset.cpus not exclusive) (cpuset.cpus.partition);") !=
        std::string::npos);
  CHECK(text.find("  launcher  affix 250 is gone (killed?); the shield stays until 'affix shield --off affix-shield-1'\n") !=
        std::string::npos);
  root.remove("sys/fs/cgroup/affix-shield-1");
  all = statuses(root);
  CHECK_FALSE(all[0].exists);
  CHECK(shield_problems(all[0]) == std::vector<std::string>{"its cgroup /sys/fs/cgroup/affix-shield-1 is gone"});
}

TEST_CASE("status: no shields", "[shield]") {
  TempRoot root;
  CHECK(statuses(root).empty());
  CHECK(format_shields_text({}, {}) == "no shields\n");
  CHECK(format_shields_json({}) == "[]\n");
}
