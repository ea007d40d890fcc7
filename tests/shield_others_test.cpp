// Shields among other cgroups (shield_apply.hpp, shield_ops.hpp): what
// --off undoes when other programs made cgroups of their own meanwhile.
#include <catch2/catch.hpp>

#include "fake_os.hpp"
#include "shield_apply.hpp"
#include "shield_launch.hpp"
#include "shield_ops.hpp"
#include "shield_plan.hpp"
#include "shield_world.hpp"

using namespace affix;
using affix::test::shield_cpus;
using affix::test::ShieldWorld;

namespace {

void make(ShieldWorld& w, const char* cpus, bool irqs, const std::string& name = "") {
  make_shield(w.os, plan_shield(w.machine(), ShieldRequest{shield_cpus(cpus), std::nullopt, false, irqs, name}),
              shield_cpus("0-7"));
}

}  // namespace

TEST_CASE("shield --off: cpuset stays on where a cgroup made since has its own cpuset", "[shield]") {
  ShieldWorld w;
  make(w, "6-7", false);
  REQUIRE(w.fs.files["/sys/fs/cgroup/cgroup.subtree_control"] == "cpuset\n");
  // Someone's cgroup, made while the shield stood, with CPUs of its own.
  REQUIRE(w.fs.make_dir("/sys/fs/cgroup/mine") == 0);
  REQUIRE(w.fs.write("/sys/fs/cgroup/mine/cpuset.cpus", "0-1\n") == 0);
  Removal r = remove_shield(w.os, *read_record(w.fs, "affix-shield-1"));
  CHECK(r.left.empty());
  CHECK(r.notes == std::vector<std::string>{
                       "cpuset stays on in /sys/fs/cgroup/cgroup.subtree_control: /sys/fs/cgroup/mine has its own "
                       "cpuset.cpus (0-1)"});
  CHECK(w.fs.files["/sys/fs/cgroup/cgroup.subtree_control"] == "cpuset\n");
  CHECK(w.fs.files["/sys/fs/cgroup/mine/cpuset.cpus"] == "0-1\n");
  CHECK_FALSE(w.fs.exists("/sys/fs/cgroup/affix-shield-1"));
  CHECK_FALSE(w.fs.exists("/run/affix/shields/affix-shield-1"));
}

TEST_CASE("shield --off: the undo decision on the controller, per kind of user", "[shield]") {
  struct Case {
    const char* file;
    const char* value;
    const char* user;  // "" where no one uses it
  };
  for (const Case& c : {Case{"", "", ""},
                        Case{"cpuset.mems", "1\n", "/sys/fs/cgroup/mine has its own cpuset.mems (1)"},
                        Case{"cpuset.cpus.exclusive", "2\n", "/sys/fs/cgroup/mine has its own cpuset.cpus.exclusive (2)"},
                        Case{"cpuset.cpus.partition", "root\n", "/sys/fs/cgroup/mine is a partition (root)"},
                        Case{"cgroup.subtree_control", "+cpuset", "/sys/fs/cgroup/mine gives cpuset to its own cgroups"}}) {
    ShieldWorld w;
    make(w, "6-7", false);
    w.fs.make_dir("/sys/fs/cgroup/mine");  // a cgroup made since, using cpuset or not
    w.fs.file("/sys/fs/cgroup/notes.txt", "x\n");  // a file is no cgroup
    if (*c.file) REQUIRE(w.fs.write(std::string("/sys/fs/cgroup/mine/") + c.file, c.value) == 0);
    INFO(c.file);
    // The shield's own cgroup, which --off removes first, does not count.
    CHECK(controller_user(w.fs, "/sys/fs/cgroup/cgroup.subtree_control", "cpuset", {"/sys/fs/cgroup/affix-shield-1"}) ==
          c.user);
    Removal r = remove_shield(w.os, *read_record(w.fs, "affix-shield-1"));
    CHECK(r.left.empty());
    if (*c.user) {
      CHECK(w.fs.files["/sys/fs/cgroup/cgroup.subtree_control"] == "cpuset\n");
      REQUIRE(r.notes.size() == 1);
      CHECK(r.notes[0] == std::string("cpuset stays on in /sys/fs/cgroup/cgroup.subtree_control: ") + c.user);
    } else {
      CHECK(controller_user(w.fs, "/sys/fs/cgroup/cgroup.subtree_control", "cpuset") == "");
      CHECK(w.fs.files["/sys/fs/cgroup/cgroup.subtree_control"] == "\n");  // no one used it: off again
      CHECK(r.notes.empty());
    }
  }
}

TEST_CASE("two --irqs shields removed in either order: every IRQ back as the first found it", "[shield]") {
  for (bool made_order : {true, false}) {
    ShieldWorld w;
    const auto before = w.state();
    make(w, "6-7", true);
    make(w, "4-5", true);
    CHECK(format_cpulist(w.irqs.affinity_of[24]) == "0-3");
    CHECK(format_cpulist(w.irqs.affinity_of[25]) == "0-3");
    std::vector<std::string> order = {"affix-shield-1", "affix-shield-2"};
    if (!made_order) std::swap(order[0], order[1]);
    INFO("removed in the order made: " << made_order);
    Removal one = remove_shield(w.os, *read_record(w.fs, order[0]));
    CHECK(one.left.empty());
    CHECK(one.notes.empty());  // nothing blamed on someone else
    // Only the CPUs of the shield that stands are kept free of IRQs.
    CHECK(format_cpulist(w.irqs.affinity_of[24]) == (made_order ? "6-7" : "4-5"));
    CHECK(format_cpulist(w.irqs.affinity_of[25]) == (made_order ? "0-3,6-7" : "0-5"));
    CHECK(format_cpulist(w.irqs.affinity_of[26]) == "0-3");
    Removal two = remove_shield(w.os, *read_record(w.fs, order[1]));
    CHECK(two.left.empty());
    CHECK(two.notes.empty());
    INFO(ShieldWorld::diff(before, w.state()));
    CHECK(w.state() == before);
  }
}

TEST_CASE("shield -- cmd: the command's inherited mask is replaced by every online CPU in the shield", "[shield]") {
  ShieldWorld w;
  affix::test::FakeAffinity cpus;
  cpus.affinity[w.child.child] = shield_cpus("0,6");  // forked under taskset -c 0,6
  w.os.affinity = &cpus;
  w.os.online = shield_cpus("0-7");
  MadeShield made = make_shield(
      w.os, plan_shield(w.machine(), ShieldRequest{shield_cpus("6-7"), std::nullopt, false, false, ""}), shield_cpus("0-7"));
  w.fs.cgroup_of[w.child.child] = "/sys/fs/cgroup";
  std::string seen_cgroup, seen_cpus;
  w.child.on_release = [&] {
    seen_cgroup = w.fs.cgroup_of[w.child.child];
    seen_cpus = format_cpulist(cpus.affinity[w.child.child]);
  };
  int took = 0;
  ShieldRun run = run_in_shield(w.os, made.record, {"./cmd"}, 1, [&] { ++took; });
  CHECK(seen_cgroup == "/sys/fs/cgroup/affix-shield-1");
  // Before it execs, its mask is every online CPU, not 0,6: the kernel
  // narrows it to the shield's 6-7 (and gives it 0-7 back after --off).
  CHECK(seen_cpus == "0-7");
  CHECK(cpus.set_affinity_calls == std::vector<pid_t>{w.child.child});
  CHECK(took == 1);           // the lock taken again before the removal
  CHECK(run.removal.left.empty());
}

TEST_CASE("shield -- cmd under systemd: the command's mask is every online CPU before it joins the slice", "[shield]") {
  ShieldWorld w("systemd");
  affix::test::FakeAffinity cpus;
  w.os.affinity = &cpus;
  w.os.online = shield_cpus("0-7");
  MadeShield made = make_shield(
      w.os, plan_shield(w.machine(), ShieldRequest{shield_cpus("6-7"), std::nullopt, false, false, ""}), shield_cpus("0-7"));
  std::string seen;
  w.child.on_release = [&] { seen = format_cpulist(cpus.affinity[w.child.child]); };
  run_in_shield(w.os, made.record, {"./cmd"}, 1);
  CHECK(seen == "0-7");
}

TEST_CASE("shield --off --dry-run lists only what --off will do", "[shield]") {
  ShieldWorld w;
  make(w, "6-7", true);
  make(w, "4-5", true);
  REQUIRE(w.fs.make_dir("/sys/fs/cgroup/mine") == 0);
  REQUIRE(w.fs.write("/sys/fs/cgroup/mine/cpuset.cpus", "0-1\n") == 0);
  const auto before = w.state();
  auto first = removal_plan(w.os, *read_record(w.fs, "affix-shield-1"));
  CHECK(first == std::vector<std::string>{
                     "hand over to shield affix-shield-2 (it still needs it): write 0000003f to /proc/irq/default_smp_affinity",
                     "hand over to shield affix-shield-2: IRQ 25 back to CPUs 0-7, less the CPUs of the shields that stay",
                     "hand over to shield affix-shield-2: IRQ 24 back to CPUs 4-7, less the CPUs of the shields that stay",
                     "undo: move the tasks still in /sys/fs/cgroup/affix-shield-1 out, rmdir it",
                     "hand over to shield affix-shield-2 (it still needs it): write +cpuset to "
                     "/sys/fs/cgroup/cgroup.subtree_control"});
  auto second = removal_plan(w.os, *read_record(w.fs, "affix-shield-2"));
  CHECK(second == std::vector<std::string>{
                      "hand over to shield affix-shield-1 (it still needs it): write 0000000f to "
                      "/proc/irq/default_smp_affinity",
                      "undo: write 0-5 to /proc/irq/25/smp_affinity_list",
                      "undo: write 4-5 to /proc/irq/24/smp_affinity_list",
                      "undo: move the tasks still in /sys/fs/cgroup/affix-shield-2 out, rmdir it"});
  CHECK(w.state() == before);  // nothing written
  remove_shield(w.os, *read_record(w.fs, "affix-shield-1"));
  auto last = removal_plan(w.os, *read_record(w.fs, "affix-shield-2"));
  CHECK(last.back() ==
        "leave cpuset on in /sys/fs/cgroup/cgroup.subtree_control: /sys/fs/cgroup/mine has its own cpuset.cpus (0-1)");
}
