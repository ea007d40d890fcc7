// The v1 way (as cset shield) on a fake cgroup v1 cpuset hierarchy: the
// rest of the machine moved into a system cpuset, the shield an exclusive
// cpuset, load balancing off for --isolated; and back.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "shield_apply.hpp"
#include "shield_plan.hpp"
#include "shield_world.hpp"

using namespace affix;
using affix::test::shield_cpus;
using affix::test::ShieldWorld;

namespace {

MadeShield make(ShieldWorld& w, const char* cpus, bool isolated, std::optional<CpuSet> mems = std::nullopt) {
  return make_shield(w.os, plan_shield(w.machine(), ShieldRequest{shield_cpus(cpus), mems, isolated, false, ""}),
                     shield_cpus("0-7"));
}

}  // namespace

TEST_CASE("shield cgroup1: system cpuset with every movable task, an exclusive shield, no load balancing", "[shield]") {
  ShieldWorld w("cgroup1");
  const auto before = w.state();
  make(w, "4-7", true);
  auto& f = w.fs.files;
  CHECK(f["/dev/cpuset/affix-system/cpuset.cpus"] == "0-3\n");
  CHECK(f["/dev/cpuset/affix-system/cpuset.mems"] == "0-1\n");
  CHECK(w.fs.procs("/dev/cpuset/affix-system") == std::vector<pid_t>{1, 2, 300});
  CHECK(w.fs.procs("/dev/cpuset") == std::vector<pid_t>{10});  // a bound kernel thread cannot move
  CHECK(f["/dev/cpuset/affix-shield-1/cpuset.cpus"] == "4-7\n");
  CHECK(f["/dev/cpuset/affix-shield-1/cpuset.mems"] == "0-1\n");
  CHECK(f["/dev/cpuset/affix-shield-1/cpuset.cpu_exclusive"] == "1\n");
  CHECK(f["/dev/cpuset/affix-shield-1/cpuset.sched_load_balance"] == "0\n");
  CHECK(f["/dev/cpuset/cpuset.sched_load_balance"] == "0\n");
  Removal r = remove_shield(w.os, *read_record(w.fs, "affix-shield-1"));
  CHECK(r.left.empty());
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
  CHECK_FALSE(w.fs.exists("/dev/cpuset/affix-system"));
}

TEST_CASE("shield cgroup1: --mem makes the nodes exclusive and takes them from the system cpuset", "[shield]") {
  ShieldWorld w("cgroup1");
  const auto before = w.state();
  make(w, "4-7", false, shield_cpus("1"));
  CHECK(w.fs.files["/dev/cpuset/affix-system/cpuset.mems"] == "0\n");
  CHECK(w.fs.files["/dev/cpuset/affix-shield-1/cpuset.mems"] == "1\n");
  CHECK(w.fs.files["/dev/cpuset/affix-shield-1/cpuset.mem_exclusive"] == "1\n");
  CHECK(w.fs.files["/dev/cpuset/cpuset.sched_load_balance"] == "1\n");
  remove_shield(w.os, *read_record(w.fs, "affix-shield-1"));
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
}

TEST_CASE("shield cgroup1: an overlapping shield is refused by the kernel, the first stays whole", "[shield]") {
  ShieldWorld w("cgroup1");
  make(w, "4-7", true);
  const auto with_one = w.state();
  try {
    make(w, "5-6", false);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "cannot write 5-6 to /dev/cpuset/affix-shield-2/cpuset.cpus: Invalid argument; the shield was removed, every "
          "change put back");
    CHECK(e.hint() ==
          "the kernel refused it: in cgroup v1 an exclusive cpuset may not share a CPU with a sibling, nor a cpuset "
          "take CPUs its parent lacks; 'affix show --shield' lists the shields");
  }
  INFO(ShieldWorld::diff(with_one, w.state()));
  CHECK(w.state() == with_one);
}

TEST_CASE("shield cgroup1: two shields share the system cpuset, in either order of removal", "[shield]") {
  for (bool first_goes_first : {true, false}) {
    ShieldWorld w("cgroup1");
    const auto before = w.state();
    make(w, "4-5", true);
    make(w, "6-7", false);
    CHECK(w.fs.files["/dev/cpuset/affix-system/cpuset.cpus"] == "0-3\n");
    std::string first = first_goes_first ? "affix-shield-1" : "affix-shield-2";
    std::string second = first_goes_first ? "affix-shield-2" : "affix-shield-1";
    CHECK(remove_shield(w.os, *read_record(w.fs, first)).left.empty());
    CHECK(w.fs.files["/dev/cpuset/affix-system/cpuset.cpus"] == (first_goes_first ? "0-5\n" : "0-3,6-7\n"));
    CHECK(w.fs.procs("/dev/cpuset/affix-system") == std::vector<pid_t>{1, 2, 300});
    CHECK(remove_shield(w.os, *read_record(w.fs, second)).left.empty());
    INFO("first shield removed first: " << first_goes_first);
    INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
  }
}

TEST_CASE("shield cgroup1: a failure while the rest of the machine moves puts every task back", "[shield]") {
  ShieldWorld w("cgroup1");
  const auto before = w.state();
  w.fs.refuse["/dev/cpuset/affix-shield-1/cpuset.cpu_exclusive"] = EPERM;
  try {
    make(w, "4-7", false);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "cannot write 1 to /dev/cpuset/affix-shield-1/cpuset.cpu_exclusive: Operation not permitted; the shield was "
          "removed, every change put back");
    CHECK(e.hint() == "affix shield needs root (affix(1), PERMISSIONS)");
  }
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
}
