// affix shield's plan (shield_plan.hpp) for each layout, and what it reads
// of the machine to choose one (shield_machine.hpp) on hand-made roots.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "files_os.hpp"
#include "shield_machine.hpp"
#include "shield_plan.hpp"
#include "shield_systemd.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::TempRoot;

namespace {

CpuSet cpus(const char* list) { return *parse_cpulist(list).value; }

ShieldMachine v2_machine() {
  ShieldMachine m;
  m.layout = ShieldLayout::Cgroup2;
  m.cgroup_root = "/sys/fs/cgroup";
  m.has_exclusive = true;
  m.online = cpus("0-7");
  return m;
}

std::vector<std::string> steps_of(const ShieldPlan& plan) {
  std::vector<std::string> out;
  for (const auto& s : plan.steps) out.push_back(describe_step(s));
  return out;
}

std::string error_of(const ShieldMachine& m, const ShieldRequest& r, ErrorKind* kind = nullptr) {
  try {
    plan_shield(m, r);
  } catch (const Error& e) {
    if (kind) *kind = e.kind();
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("plan cgroup2: the controller where it is off, the cgroup, its CPUs, the partition, the verdict, IRQs", "[shield]") {
  ShieldMachine m = v2_machine();
  ShieldPlan plan = plan_shield(m, ShieldRequest{cpus("4-7"), std::nullopt, true, true, ""});
  CHECK(plan.record.name == "affix-shield-1");
  CHECK(plan.record.cgroup == "/sys/fs/cgroup/affix-shield-1");
  CHECK(steps_of(plan) == std::vector<std::string>{
                              "write +cpuset to /sys/fs/cgroup/cgroup.subtree_control",
                              "mkdir /sys/fs/cgroup/affix-shield-1",
                              "write 4-7 to /sys/fs/cgroup/affix-shield-1/cpuset.cpus",
                              "write isolated to /sys/fs/cgroup/affix-shield-1/cpuset.cpus.partition",
                              "read /sys/fs/cgroup/affix-shield-1/cpuset.cpus.partition: the kernel's verdict",
                              "move every movable IRQ off CPUs 4-7 (/proc/irq/N/smp_affinity_list), and "
                              "/proc/irq/default_smp_affinity"});
  m.cpuset_enabled = true;
  m.has_exclusive = false;  // Linux 6.1
  plan = plan_shield(m, ShieldRequest{cpus("6"), cpus("1"), false, false, "db"});
  CHECK(steps_of(plan) == std::vector<std::string>{
                              "mkdir /sys/fs/cgroup/db",
                              "write 6 to /sys/fs/cgroup/db/cpuset.cpus",
                              "write 1 to /sys/fs/cgroup/db/cpuset.mems",
                              "write root to /sys/fs/cgroup/db/cpuset.cpus.partition",
                              "read /sys/fs/cgroup/db/cpuset.cpus.partition: the kernel's verdict"});
}

TEST_CASE("plan cgroup2: a partition of any program on the CPUs is refused before a write", "[shield]") {
  ShieldMachine m = v2_machine();
  m.partitions.emplace_back("/sys/fs/cgroup/rt", cpus("6-7"));
  CHECK(error_of(m, ShieldRequest{cpus("4-6"), std::nullopt, false, false, ""}) ==
        "shield affix-shield-1 (CPUs 4-6) overlaps the partition /sys/fs/cgroup/rt (CPUs 6-7): writing its CPUs would "
        "make the kernel invalidate that one for good ('Cpu list in cpuset.cpus not exclusive'); nothing was changed");
  CHECK(plan_shield(m, ShieldRequest{cpus("4-5"), std::nullopt, false, false, ""}).record.name == "affix-shield-1");
}

TEST_CASE("plan: names, the next free one, and a machine left with no CPU", "[shield]") {
  ShieldMachine m = v2_machine();
  ShieldRecord one;
  one.name = "affix-shield-1";
  one.cpus = cpus("6-7");
  m.records.push_back(one);
  CHECK(plan_shield(m, ShieldRequest{cpus("4"), std::nullopt, false, false, ""}).record.name == "affix-shield-2");
  ErrorKind kind = ErrorKind::Runtime;
  CHECK(error_of(m, ShieldRequest{cpus("4"), std::nullopt, false, false, "affix-shield-1"}, &kind) ==
        "a shield named affix-shield-1 exists");
  CHECK(kind == ErrorKind::Resolution);
  CHECK(error_of(m, ShieldRequest{cpus("0-5"), std::nullopt, false, false, ""}, &kind) ==
        "shielding CPUs 0-5 leaves no online CPU to the rest of the machine");
  CHECK(kind == ErrorKind::Resolution);
  CHECK(error_of(m, ShieldRequest{cpus("4"), std::nullopt, false, false, "a/b"}, &kind) ==
        "invalid --name 'a/b': it may hold letters, digits, '_' and '-' only");
  CHECK(kind == ErrorKind::Usage);
  CHECK(bad_shield_name("-x") == std::string("it must start with a letter or a digit"));
  CHECK(bad_shield_name("a--b") == std::string("it may not end in '-' or hold \"--\""));
  CHECK(bad_shield_name("a-") == std::string("it may not end in '-' or hold \"--\""));
  CHECK(bad_shield_name(std::string(65, 'a')) == std::string("it must have 1 to 64 characters"));
  CHECK(bad_shield_name("affix-system") == std::string("affix uses that name itself"));
  CHECK_FALSE(bad_shield_name("db_1-fast"));
}

TEST_CASE("plan systemd: a slice unit of its own, exclusive CPUs down to it, a remote partition", "[shield]") {
  ShieldMachine m = v2_machine();
  m.layout = ShieldLayout::Systemd;
  m.systemd = true;
  m.cpuset_enabled = true;
  ShieldPlan plan = plan_shield(m, ShieldRequest{cpus("4-7"), std::nullopt, true, false, ""});
  CHECK(plan.record.unit == "affix-shield-1.slice");
  CHECK(plan.record.cgroup == "/sys/fs/cgroup/affix.slice/affix-shield.slice/affix-shield-1.slice");
  CHECK(steps_of(plan) ==
        std::vector<std::string>{
            "write the unit /run/systemd/system/affix-shield-1.slice, then systemctl daemon-reload",
            "systemctl start affix-shield-1.slice",
            "add CPUs 4-7 to /sys/fs/cgroup/affix.slice/cpuset.cpus.exclusive",
            "add CPUs 4-7 to /sys/fs/cgroup/affix.slice/affix-shield.slice/cpuset.cpus.exclusive",
            "add CPUs 4-7 to /sys/fs/cgroup/affix.slice/affix-shield.slice/affix-shield-1.slice/cpuset.cpus.exclusive",
            "write isolated to /sys/fs/cgroup/affix.slice/affix-shield.slice/affix-shield-1.slice/cpuset.cpus.partition",
            "read /sys/fs/cgroup/affix.slice/affix-shield.slice/affix-shield-1.slice/cpuset.cpus.partition: the "
            "kernel's verdict"});
  CHECK(plan.steps[0].op.value ==
        "# Written by affix shield; 'affix shield --off affix-shield-1' removes it. In /run: a reboot keeps nothing.\n"
        "[Unit]\nDescription=affix shield affix-shield-1 (CPUs 4-7)\n\n[Slice]\nAllowedCPUs=4-7\n");
  plan = plan_shield(m, ShieldRequest{cpus("2"), cpus("0"), false, false, "db"});
  CHECK(plan.record.unit == "affix-db.slice");
  CHECK(plan.record.cgroup == "/sys/fs/cgroup/affix.slice/affix-db.slice");
  CHECK(plan.steps[0].op.value.find("AllowedMemoryNodes=0\n") != std::string::npos);
  m.has_exclusive = false;
  ErrorKind kind = ErrorKind::Usage;
  CHECK(error_of(m, ShieldRequest{cpus("4-7"), std::nullopt, false, false, ""}, &kind) ==
        "systemd runs this machine, and a shield below its cgroups needs cpuset.cpus.exclusive, which this kernel "
        "does not have (Linux 6.7 and later have it)");
  CHECK(kind == ErrorKind::Runtime);
}

TEST_CASE("plan cgroup1: the system cpuset, exclusive CPUs, no load balancing for --isolated", "[shield]") {
  ShieldMachine m;
  m.layout = ShieldLayout::Cgroup1;
  m.cgroup_root = "/dev/cpuset";
  m.v1_prefix = "cpuset.";
  m.v1_root_mems = "0-1";
  m.online = cpus("0-7");
  ShieldPlan plan = plan_shield(m, ShieldRequest{cpus("4-7"), cpus("1"), true, false, ""});
  CHECK(steps_of(plan) ==
        std::vector<std::string>{
            "make the system cpuset /dev/cpuset/affix-system (where it is not there) and move every movable task "
            "of the root cpuset into it",
            "take CPUs 4-7 out of /dev/cpuset/affix-system/cpuset.cpus",
            "take memory nodes 1 out of /dev/cpuset/affix-system/cpuset.mems",
            "mkdir /dev/cpuset/affix-shield-1",
            "write 4-7 to /dev/cpuset/affix-shield-1/cpuset.cpus",
            "write 1 to /dev/cpuset/affix-shield-1/cpuset.mems",
            "write 1 to /dev/cpuset/affix-shield-1/cpuset.cpu_exclusive",
            "write 1 to /dev/cpuset/affix-shield-1/cpuset.mem_exclusive",
            "write 0 to /dev/cpuset/affix-shield-1/cpuset.sched_load_balance",
            "write 0 to /dev/cpuset/cpuset.sched_load_balance"});
  m.v1_prefix = "";  // the old cpuset file system: no prefix
  plan = plan_shield(m, ShieldRequest{cpus("3"), std::nullopt, false, false, ""});
  CHECK(describe_step(plan.steps.back()) == "write 1 to /dev/cpuset/affix-shield-1/cpu_exclusive");
  CHECK(describe_step(plan.steps[4]) == "write 0-1 to /dev/cpuset/affix-shield-1/mems");
}

TEST_CASE("plan: a machine without a cpuset controller", "[shield]") {
  ShieldMachine m;
  m.why_none = "neither cgroup v2 nor a cgroup v1 cpuset hierarchy is mounted";
  CHECK(error_of(m, ShieldRequest{cpus("1"), std::nullopt, false, false, ""}) ==
        "no cpuset controller to fence CPUs off with: neither cgroup v2 nor a cgroup v1 cpuset hierarchy is mounted");
}

TEST_CASE("slices: systemd's levels, its unit, the command in a scope of it", "[shield]") {
  CHECK(shield_slice_unit("affix-shield-3") == "affix-shield-3.slice");
  CHECK(shield_slice_unit("db") == "affix-db.slice");
  CHECK(slice_cgroups("/sys/fs/cgroup", "affix-db-fast.slice") ==
        std::vector<std::string>{"/sys/fs/cgroup/affix.slice", "/sys/fs/cgroup/affix.slice/affix-db.slice",
                                 "/sys/fs/cgroup/affix.slice/affix-db.slice/affix-db-fast.slice"});
  CHECK(in_slice("affix-db.slice", {"./server", "-p", "80"}) ==
        std::vector<std::string>{"systemd-run", "--scope", "--quiet", "--collect", "--slice=affix-db.slice", "--",
                                 "./server", "-p", "80"});
  CHECK(systemd_shield_lines(cpus("4-7"), cpus("0-3"), nullptr) ==
        "# /etc/systemd/system/system.slice.d/50-affix-shield.conf\n[Slice]\nAllowedCPUs=0-3\n"
        "# /etc/systemd/system/user.slice.d/50-affix-shield.conf\n[Slice]\nAllowedCPUs=0-3\n"
        "# /etc/systemd/system/init.scope.d/50-affix-shield.conf\n[Scope]\nAllowedCPUs=0-3\n"
        "# /etc/systemd/system/shielded.slice: the shield's own slice\n[Slice]\nAllowedCPUs=4-7\n"
        "# the shielded service's own unit (or its drop-in SERVICE.service.d/50-affix-shield.conf)\n"
        "[Service]\nSlice=shielded.slice\nAllowedCPUs=4-7\n"
        "# then: systemctl daemon-reload; systemctl restart SERVICE\n"
        "# check: systemctl show -p Slice -p EffectiveCPUs SERVICE  (Slice=shielded.slice, EffectiveCPUs=4-7)\n"
        "#        affix pin --check 4-7 $(systemctl show -p MainPID --value SERVICE)\n");
  CpuSet nodes = cpus("1");
  const std::string with_nodes = systemd_shield_lines(cpus("4-7"), cpus("0-3"), &nodes);
  CHECK(with_nodes.find("[Slice]\nAllowedCPUs=4-7\nAllowedMemoryNodes=1\n") != std::string::npos);
  CHECK(with_nodes.find("[Service]\nSlice=shielded.slice\nAllowedCPUs=4-7\nAllowedMemoryNodes=1\n") != std::string::npos);
}

TEST_CASE("machine: cgroup2 with cpuset, systemd, cgroup v1, neither", "[shield]") {
  TempRoot root;
  root.write("sys/devices/system/cpu/online", "0-7\n");
  root.write("proc/self/mountinfo", "24 1 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  root.write("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory\n");
  root.write("sys/fs/cgroup/cgroup.subtree_control", "cpu memory\n");
  root.write("sys/fs/cgroup/cpuset.cpus.isolated", "\n");
  LinuxFilesOs files{SysRoot(root.path())};
  ShieldMachine m = read_shield_machine(SysRoot(root.path()), files);
  REQUIRE(m.layout);
  CHECK(*m.layout == ShieldLayout::Cgroup2);
  CHECK(m.cgroup_root == "/sys/fs/cgroup");
  CHECK_FALSE(m.cpuset_enabled);
  CHECK(m.has_exclusive);
  CHECK(format_cpulist(m.online) == "0-7");
  CHECK(m.partitions.empty());
  root.write("sys/fs/cgroup/rt/cpuset.cpus.partition", "isolated\n");
  root.write("sys/fs/cgroup/rt/cpuset.cpus.effective", "6-7\n");
  root.write("sys/fs/cgroup/bad/cpuset.cpus.partition", "root invalid (Cpu list in cpuset.cpus not exclusive)\n");
  root.write("sys/fs/cgroup/plain/cpuset.cpus.partition", "member\n");
  m = read_shield_machine(SysRoot(root.path()), files);
  REQUIRE(m.partitions.size() == 1);
  CHECK(m.partitions[0].first == "/sys/fs/cgroup/rt");
  CHECK(format_cpulist(m.partitions[0].second) == "6-7");
  root.mkdir("run/systemd/system");
  root.write("sys/fs/cgroup/cgroup.subtree_control", "cpuset cpu memory\n");
  root.remove("sys/fs/cgroup/cpuset.cpus.isolated");  // Linux 6.1
  m = read_shield_machine(SysRoot(root.path()), files);
  CHECK(*m.layout == ShieldLayout::Systemd);
  CHECK(m.cpuset_enabled);
  CHECK_FALSE(m.has_exclusive);
  // cpuset bound to cgroup v1 (this development machine's way): v2 lists no cpuset.
  root.remove("run/systemd");
  root.write("sys/fs/cgroup/cgroup.controllers", "cpu io memory\n");
  root.write("proc/self/mountinfo",
             "24 1 0:22 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
             "33 30 0:30 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n");
  root.write("sys/fs/cgroup/cpuset/cpuset.mems", "0-1\n");
  m = read_shield_machine(SysRoot(root.path()), files);
  CHECK(*m.layout == ShieldLayout::Cgroup1);
  CHECK(m.cgroup_root == "/sys/fs/cgroup/cpuset");
  CHECK(m.v1_prefix == "cpuset.");
  CHECK(m.v1_root_mems == "0-1");
  root.write("proc/self/mountinfo", "24 1 0:22 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
  m = read_shield_machine(SysRoot(root.path()), files);
  CHECK_FALSE(m.layout);
  CHECK(m.why_none == "cgroup v2 at /sys/fs/cgroup/unified has no cpuset controller (its cgroup.controllers), and no "
                      "cgroup v1 cpuset hierarchy is mounted");
  root.write("proc/self/mountinfo", "24 1 0:22 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  m = read_shield_machine(SysRoot(root.path()), files);
  CHECK_FALSE(m.layout);
  CHECK(m.why_none == "the cpuset hierarchy mounted at /sys/fs/cgroup shows cgroup /docker/abc, not the root cgroup (a container?)");
}

TEST_CASE("machine: the records there are, and one that is no record", "[shield]") {
  TempRoot root;
  root.write("run/affix/shields/a", "affix-shield-record\t1\nname\ta\ncpus\t4\n");
  root.write("run/affix/shields/b", "garbage\n");
  root.write("run/affix/shields/c", "affix-shield-record\t1\nname\td\n");
  root.write("run/affix/shields/e.part", "half written\n");
  LinuxFilesOs files{SysRoot(root.path())};
  std::vector<std::string> bad;
  auto records = read_records(files, bad);
  REQUIRE(records.size() == 1);
  CHECK(records[0].name == "a");
  CHECK(bad == std::vector<std::string>{"/run/affix/shields/b: line 1: not an affix shield record",
                                        "/run/affix/shields/c: it names shield 'd'"});
  CHECK(read_record(files, "a")->name == "a");
  CHECK_FALSE(read_record(files, "zz"));
  CHECK_THROWS_WITH(read_record(files, "b"),
                    "/run/affix/shields/b is not a shield record affix can read: line 1: not an affix shield record");
}
