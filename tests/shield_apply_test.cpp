// Making and removing a cgroup v2 shield on fakes (shield_apply.hpp): the
// files written, the kernel's verdict, the IRQs, and every failure undone:
// nothing half made, and the message says so.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "shield_apply.hpp"
#include "shield_plan.hpp"
#include "shield_world.hpp"

using namespace affix;
using affix::test::shield_cpus;
using affix::test::ShieldWorld;

namespace {

ShieldPlan plan_for(ShieldWorld& w, const char* cpus, bool isolated, bool irqs, const std::string& name = "") {
  return plan_shield(w.machine(), ShieldRequest{shield_cpus(cpus), std::nullopt, isolated, irqs, name});
}

std::string failure(ShieldWorld& w, const ShieldPlan& plan) {
  try {
    make_shield(w.os, plan, shield_cpus("0-7"));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("shield cgroup2: the partition made, IRQs off its CPUs, then every file put back", "[shield]") {
  ShieldWorld w;
  const auto before = w.state();
  ShieldPlan plan = plan_for(w, "4-7", true, true);
  MadeShield made = make_shield(w.os, plan, shield_cpus("0-7"));
  auto& f = w.fs.files;
  CHECK(f["/sys/fs/cgroup/cgroup.subtree_control"] == "cpuset\n");
  CHECK(f["/sys/fs/cgroup/affix-shield-1/cpuset.cpus"] == "4-7\n");
  CHECK(f["/sys/fs/cgroup/affix-shield-1/cpuset.cpus.partition"] == "isolated\n");
  // 24 had only shielded CPUs: the rest of the machine; 25 keeps its others;
  // 26 was off them; the timer and the managed queue stay, named.
  CHECK(format_cpulist(w.irqs.affinity_of[24]) == "0-3");
  CHECK(format_cpulist(w.irqs.affinity_of[25]) == "0-3");
  CHECK(format_cpulist(w.irqs.affinity_of[26]) == "0-3");
  CHECK(format_cpulist(w.irqs.affinity_of[27]) == "5");
  CHECK(f["/proc/irq/default_smp_affinity"] == "0000000f\n");
  CHECK(made.default_affinity == "0000000f");
  CHECK(made.warnings == std::vector<std::string>{
                             "IRQ 0 (timer) stays on CPUs 0-7: the kernel will not move it (Operation not permitted: a "
                             "managed, per-CPU or fixed IRQ)",
                             "IRQ 27 (nvme0q2) stays on CPUs 5: the kernel will not move it (Input/output error: a "
                             "managed, per-CPU or fixed IRQ)"});
  // The record lists what changed, and not the IRQs that stayed.
  std::string record = f["/run/affix/shields/affix-shield-1"];
  CHECK(record.find("op\tcontroller\t/sys/fs/cgroup/cgroup.subtree_control\tcpuset\t\n") != std::string::npos);
  CHECK(record.find("op\tirq\t24\t0-3\t4-7\n") != std::string::npos);
  CHECK(record.find("op\tirq\t25\t0-3\t0-7\n") != std::string::npos);
  CHECK(record.find("op\tirq\t27") == std::string::npos);
  CHECK(record.find("op\tshared\t/proc/irq/default_smp_affinity\t0000000f\tff\\n\n") != std::string::npos);

  auto rec = read_record(w.fs, "affix-shield-1");
  REQUIRE(rec);
  Removal removal = remove_shield(w.os, *rec);
  CHECK(removal.left.empty());
  CHECK(removal_phrase(removal) == "; the shield was removed, every change put back");
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
  CHECK_FALSE(w.fs.exists("/sys/fs/cgroup/affix-shield-1"));
}

TEST_CASE("shield cgroup2: a failure at any write leaves nothing behind, and says so", "[shield]") {
  ShieldWorld probe;
  make_shield(probe.os, plan_for(probe, "4-7", true, true), shield_cpus("0-7"));
  const int writes = probe.fs.writes;
  REQUIRE(writes >= 5);
  for (int k = 1; k <= writes; ++k) {
    ShieldWorld w;
    const auto before = w.state();
    ShieldPlan plan = plan_for(w, "4-7", true, true);
    w.fs.fail_write_at = k;
    w.fs.fail_errno = EBUSY;
    std::string what = failure(w, plan);
    INFO("write " << k << ": " << what);
    if (what == "no error") continue;  // the write that failed was affix's own record's, rewritten
    CHECK(what.find("Device or resource busy") != std::string::npos);
    const std::string tail = "; the shield was removed, every change put back";
    CHECK(what.size() > tail.size());
    CHECK(what.substr(what.size() - tail.size()) == tail);
    INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
  }
}

TEST_CASE("shield cgroup2: the kernel's verdict is the error, and everything is undone", "[shield]") {
  ShieldWorld w;
  const auto before = w.state();
  ShieldPlan plan = plan_for(w, "0-6", false, false);
  w.fs.verdict["/sys/fs/cgroup/affix-shield-1/cpuset.cpus.partition"] = "root invalid (Parent unable to distribute cpu downstream)";
  CHECK(failure(w, plan) ==
        "the kernel refused shield affix-shield-1 (CPUs 0-6): its parent would be left without a CPU for the tasks "
        "it holds; the shield was removed, every change put back");
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
}

TEST_CASE("shield cgroup2: a second shield on a partition's CPUs is refused before any write; the first stays", "[shield]") {
  ShieldWorld w;
  make_shield(w.os, plan_for(w, "4-7", true, false), shield_cpus("0-7"));
  const auto with_one = w.state();
  try {
    plan_for(w, "5-6", false, false);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "shield affix-shield-2 (CPUs 5-6) overlaps the partition /sys/fs/cgroup/affix-shield-1 (CPUs 4-7): writing "
          "its CPUs would make the kernel invalidate that one for good ('Cpu list in cpuset.cpus not exclusive'); "
          "nothing was changed");
    CHECK(e.kind() == ErrorKind::Runtime);
  }
  INFO(ShieldWorld::diff(with_one, w.state()));
  CHECK(w.state() == with_one);
}

TEST_CASE("shield cgroup2: another program's cgroup on the CPUs: the kernel's verdict, every change undone", "[shield]") {
  ShieldWorld w;
  w.fs.files["/sys/fs/cgroup/cgroup.subtree_control"] = "cpuset\n";
  w.fs.make_dir("/sys/fs/cgroup/other");
  w.fs.write("/sys/fs/cgroup/other/cpuset.cpus", "5");
  w.fs.verdict["/sys/fs/cgroup/affix-shield-1/cpuset.cpus.partition"] = "isolated invalid (Cpu list in cpuset.cpus not exclusive)";
  const auto before = w.state();
  CHECK(failure(w, plan_for(w, "4-7", true, true)) ==
        "the kernel refused shield affix-shield-1 (CPUs 4-7): its CPUs are not exclusive: another partition or "
        "exclusive cpuset holds some of them; the shield was removed, every change put back");
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
}

TEST_CASE("shield cgroup2: an IRQ write refused otherwise puts back the IRQs and the shield", "[shield]") {
  ShieldWorld w;
  const auto before = w.state();
  w.irqs.refuse[25] = EINVAL;
  CHECK(failure(w, plan_for(w, "4-7", false, true)) ==
        "IRQ 25 (eth0-tx): the kernel refused CPUs 0-3: Invalid argument; the 1 IRQ already moved was put back; "
        "the shield was removed, every change put back");
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
}

TEST_CASE("shield: a name taken by a record being made, and a cgroup affix did not make", "[shield]") {
  ShieldWorld w;
  ShieldPlan plan = plan_for(w, "4-7", false, false);
  w.fs.file("/run/affix/shields/affix-shield-1", "");
  CHECK(failure(w, plan) == "cannot make the shield's record /run/affix/shields/affix-shield-1: File exists; nothing was changed");
  w.fs.files.erase("/run/affix/shields/affix-shield-1");
  w.fs.make_dir("/sys/fs/cgroup/affix-shield-1");  // someone else's
  const auto before = w.state();
  CHECK(failure(w, plan) ==
        "cannot make /sys/fs/cgroup/affix-shield-1: File exists; the shield was removed, every change put back");
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
  CHECK(w.fs.exists("/sys/fs/cgroup/affix-shield-1/cgroup.procs"));  // not removed: not affix's
}

TEST_CASE("shields share the controller and default_smp_affinity: whichever goes last puts them back", "[shield]") {
  for (bool first_goes_first : {true, false}) {
    ShieldWorld w;
    const auto before = w.state();
    make_shield(w.os, plan_for(w, "6-7", false, true), shield_cpus("0-7"));
    make_shield(w.os, plan_for(w, "2-3", false, true), shield_cpus("0-7"));
    CHECK(w.fs.files["/proc/irq/default_smp_affinity"] == "00000033\n");
    std::vector<std::string> order = {"affix-shield-1", "affix-shield-2"};
    if (!first_goes_first) std::swap(order[0], order[1]);
    Removal one = remove_shield(w.os, *read_record(w.fs, order[0]));
    CHECK(one.left.empty());
    // The other still holds its CPUs: cpuset stays on.
    CHECK(w.fs.files["/sys/fs/cgroup/cgroup.subtree_control"] == "cpuset\n");
    Removal two = remove_shield(w.os, *read_record(w.fs, order[1]));
    CHECK(two.left.empty());
    INFO("first shield removed first: " << first_goes_first);
    CHECK(w.fs.files["/proc/irq/default_smp_affinity"] == "ff\n");
    CHECK(w.fs.files["/sys/fs/cgroup/cgroup.subtree_control"] == "\n");
    auto now = w.state();
    CHECK(now.files == before.files);
    CHECK(now.cgroups == before.cgroups);
  }
}

TEST_CASE("removal: what cannot be put back is named and kept in the record for another --off", "[shield]") {
  ShieldWorld w;
  make_shield(w.os, plan_for(w, "4-7", false, false), shield_cpus("0-7"));
  w.fs.cgroup_of[555] = "/sys/fs/cgroup/affix-shield-1";
  w.fs.unmovable.insert(555);  // cannot leave: rmdir refused
  Removal r = remove_shield(w.os, *read_record(w.fs, "affix-shield-1"));
  REQUIRE(r.left.size() == 1);
  CHECK(r.left[0] == "/sys/fs/cgroup/affix-shield-1 stays (Device or resource busy)");
  CHECK(removal_phrase(r) == "; not everything was put back: /sys/fs/cgroup/affix-shield-1 stays (Device or resource busy)");
  auto kept = read_record(w.fs, "affix-shield-1");
  REQUIRE(kept);
  REQUIRE(kept->ops.size() == 2);  // the directory and the controller it needs
  CHECK(kept->ops[0].kind == OpKind::Controller);
  CHECK(kept->ops[1].kind == OpKind::Mkdir);
  w.fs.unmovable.erase(555);
  Removal again = remove_shield(w.os, *kept);
  CHECK(again.left.empty());
  CHECK(again.notes == std::vector<std::string>{"1 process still in /sys/fs/cgroup/affix-shield-1 moved out to the rest of the machine"});
  CHECK(w.fs.cgroup_of[555] == "/sys/fs/cgroup");
  CHECK_FALSE(w.fs.exists("/run/affix/shields/affix-shield-1"));
}

TEST_CASE("removal: an IRQ someone moved since is left as they set it", "[shield]") {
  ShieldWorld w;
  make_shield(w.os, plan_for(w, "4-7", false, true), shield_cpus("0-7"));
  w.irqs.affinity_of[24] = shield_cpus("1");
  Removal r = remove_shield(w.os, *read_record(w.fs, "affix-shield-1"));
  CHECK(r.left.empty());
  CHECK(r.notes == std::vector<std::string>{"IRQ 24 was moved by someone else since (now CPUs 1): left as it is"});
  CHECK(format_cpulist(w.irqs.affinity_of[24]) == "1");
  CHECK(format_cpulist(w.irqs.affinity_of[25]) == "0-7");
}
