// affix shield WHERE COMMAND on fakes (shield_launch.hpp): the command is
// in the shield before it execs, its status comes back, and the shield goes
// after it, however it ended.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "shield_launch.hpp"
#include "shield_plan.hpp"
#include "shield_world.hpp"

using namespace affix;
using affix::test::shield_cpus;
using affix::test::ShieldWorld;

namespace {

MadeShield make(ShieldWorld& w) {
  return make_shield(w.os, plan_shield(w.machine(), ShieldRequest{shield_cpus("4-7"), std::nullopt, true, true, ""}),
                     shield_cpus("0-7"));
}

}  // namespace

TEST_CASE("launch: the command is moved into the shield held, then runs, then the shield goes", "[shield]") {
  ShieldWorld w;
  const auto before = w.state();
  MadeShield made = make(w);
  w.fs.cgroup_of[w.child.child] = "/sys/fs/cgroup";  // forked where affix runs
  std::string seen_cgroup, seen_record;
  w.child.on_release = [&] {
    seen_cgroup = w.fs.cgroup_of[w.child.child];
    seen_record = w.fs.files["/run/affix/shields/affix-shield-1"];
  };
  w.child.exit_status = 137;  // killed with SIGKILL
  ShieldRun run = run_in_shield(w.os, made.record, {"./server"}, 98765);
  CHECK(w.child.calls == std::vector<std::string>{"start", "release", "wait"});
  CHECK(w.child.started == std::vector<std::string>{"./server"});
  CHECK(seen_cgroup == "/sys/fs/cgroup/affix-shield-1");
  CHECK(seen_record.find("launcher\t4000\t98765\t4321\n") != std::string::npos);
  CHECK(run.status == 137);
  CHECK(run.exec_error == 0);
  CHECK(run.removal.left.empty());
  w.fs.cgroup_of.erase(w.child.child);  // it has exited
  auto now = w.state();
  CHECK(now == before);
}

TEST_CASE("launch: a command not found removes the shield; affix says so with 127", "[shield]") {
  ShieldWorld w;
  const auto before = w.state();
  MadeShield made = make(w);
  w.fs.cgroup_of[w.child.child] = "/sys/fs/cgroup";
  w.child.exec_error = ENOENT;
  w.child.on_release = [&] { w.fs.cgroup_of.erase(w.child.child); };
  ShieldRun run = run_in_shield(w.os, made.record, {"nosuchcommand"}, 1);
  CHECK(run.exec_error == ENOENT);
  CHECK(w.child.calls == std::vector<std::string>{"start", "release"});
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
}

TEST_CASE("launch: processes the command left in the shield are moved out with a note", "[shield]") {
  ShieldWorld w;
  MadeShield made = make(w);
  w.fs.cgroup_of[w.child.child] = "/sys/fs/cgroup";
  w.child.on_release = [&] {
    w.fs.cgroup_of.erase(w.child.child);
    w.fs.cgroup_of[5000] = "/sys/fs/cgroup/affix-shield-1";  // a daemon it started
  };
  ShieldRun run = run_in_shield(w.os, made.record, {"./start-daemon"}, 1);
  CHECK(run.status == 0);
  CHECK(run.removal.left.empty());
  CHECK(run.removal.notes ==
        std::vector<std::string>{"1 process still in /sys/fs/cgroup/affix-shield-1 moved out to the rest of the machine"});
  CHECK(w.fs.cgroup_of[5000] == "/sys/fs/cgroup");
}

TEST_CASE("launch: a command the kernel will not put into the shield is never started", "[shield]") {
  ShieldWorld w;
  const auto before = w.state();
  MadeShield made = make(w);
  w.fs.refuse["/sys/fs/cgroup/affix-shield-1/cgroup.procs"] = EBUSY;
  try {
    run_in_shield(w.os, made.record, {"./server"}, 1);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "cannot put the command into /sys/fs/cgroup/affix-shield-1/cgroup.procs: Device or resource busy; the "
          "shield was removed, every change put back");
  }
  CHECK(w.child.calls == std::vector<std::string>{"start", "abandon"});
  INFO(ShieldWorld::diff(before, w.state()));
  CHECK(w.state() == before);
}
