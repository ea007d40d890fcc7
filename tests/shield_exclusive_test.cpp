// affix shield --off under systemd where the slices above the shield's
// held exclusive CPUs before it was made (another partition's, an
// administrator's): each cpuset.cpus.exclusive reads as it did before, byte
// for byte (shield_undo.cpp, shield_ops.cpp undo_op: only the CPUs the
// shield added come out).
#include <catch2/catch.hpp>

#include "shield_apply.hpp"
#include "shield_plan.hpp"
#include "shield_world.hpp"

using namespace affix;
using affix::test::shield_cpus;
using affix::test::ShieldWorld;

namespace {

const std::string k_affix = "/sys/fs/cgroup/affix.slice";
const std::string k_shields = k_affix + "/affix-shield.slice";
const std::string k_slice = k_shields + "/affix-shield-1.slice";

// affix.slice and affix-shield.slice there before the shield, cpuset on,
// with these exclusive CPUs.
void slices_before(ShieldWorld& w, const char* affix, const char* shields) {
  for (const auto& dir : {k_affix, k_shields}) {
    REQUIRE(w.fs.make_dir(dir) == 0);
    w.fs.files[dir + "/cgroup.subtree_control"] = "cpuset\n";
  }
  w.fs.files[k_affix + "/cpuset.cpus.exclusive"] = affix;
  w.fs.files[k_shields + "/cpuset.cpus.exclusive"] = shields;
}

void make_and_remove(ShieldWorld& w, const char* affix_with, const char* shields_with) {
  const auto before = w.state();
  make_shield(w.os, plan_shield(w.machine(), ShieldRequest{shield_cpus("4-7"), std::nullopt, true, false, ""}),
              shield_cpus("0-7"));
  CHECK(w.fs.files[k_affix + "/cpuset.cpus.exclusive"] == affix_with);
  CHECK(w.fs.files[k_shields + "/cpuset.cpus.exclusive"] == shields_with);
  CHECK(w.fs.files[k_slice + "/cpuset.cpus.exclusive"] == "4-7\n");
  Removal r = remove_shield(w.os, *read_record(w.fs, "affix-shield-1"));
  CHECK(r.left.empty());
  CHECK_FALSE(w.fs.exists(k_slice));
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
}

}  // namespace

TEST_CASE("shield --off under systemd: a slice's cpuset.cpus.exclusive reads as it did before", "[shield]") {
  ShieldWorld w("systemd");
  SECTION("CPUs beside the shield's") {
    slices_before(w, "2-3\n", "2-3\n");
    make_and_remove(w, "2-7\n", "2-7\n");
    CHECK(w.fs.files[k_affix + "/cpuset.cpus.exclusive"] == "2-3\n");
    CHECK(w.fs.files[k_shields + "/cpuset.cpus.exclusive"] == "2-3\n");
  }
  SECTION("some of the shield's own CPUs: those stay") {
    slices_before(w, "2-5\n", "4-5\n");
    make_and_remove(w, "2-7\n", "4-7\n");
    CHECK(w.fs.files[k_affix + "/cpuset.cpus.exclusive"] == "2-5\n");
    CHECK(w.fs.files[k_shields + "/cpuset.cpus.exclusive"] == "4-5\n");
  }
  SECTION("none: the slices there before, their files empty") {
    slices_before(w, "\n", "\n");
    make_and_remove(w, "4-7\n", "4-7\n");
    CHECK(w.fs.files[k_affix + "/cpuset.cpus.exclusive"] == "\n");
  }
}
