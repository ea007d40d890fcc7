// A shield where systemd runs the machine, on fakes (no systemd here, nor
// in the VM): a runtime slice unit that systemd starts, cpuset.cpus.exclusive
// from the first cgroup below the root down to the slice's own, a remote
// partition; removal stops the slice and removes its unit.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "shield_apply.hpp"
#include "shield_launch.hpp"
#include "shield_plan.hpp"
#include "shield_world.hpp"

using namespace affix;
using affix::test::shield_cpus;
using affix::test::ShieldWorld;

namespace {

using Argv = std::vector<std::string>;
const std::string k_slice = "/sys/fs/cgroup/affix.slice/affix-shield.slice/affix-shield-1.slice";

ShieldPlan plan_for(ShieldWorld& w, const char* cpus) {
  return plan_shield(w.machine(), ShieldRequest{shield_cpus(cpus), std::nullopt, true, false, ""});
}

}  // namespace

TEST_CASE("shield systemd: the slice started by systemd, then made a partition with exclusive CPUs", "[shield]") {
  ShieldWorld w("systemd");
  make_shield(w.os, plan_for(w, "4-7"), shield_cpus("0-7"));
  CHECK(w.child.programs == std::vector<Argv>{{"systemctl", "daemon-reload"}, {"systemctl", "start", "affix-shield-1.slice"}});
  CHECK(w.fs.files["/run/systemd/system/affix-shield-1.slice"] ==
        "# Written by affix shield; 'affix shield --off affix-shield-1' removes it. In /run: a reboot keeps nothing.\n"
        "[Unit]\nDescription=affix shield affix-shield-1 (CPUs 4-7)\n\n[Slice]\nAllowedCPUs=4-7\n");
  CHECK(w.fs.files["/sys/fs/cgroup/affix.slice/cpuset.cpus.exclusive"] == "4-7\n");
  CHECK(w.fs.files["/sys/fs/cgroup/affix.slice/affix-shield.slice/cpuset.cpus.exclusive"] == "4-7\n");
  CHECK(w.fs.files[k_slice + "/cpuset.cpus.exclusive"] == "4-7\n");
  CHECK(w.fs.files[k_slice + "/cpuset.cpus.partition"] == "isolated\n");
  // systemd's own cgroups are left to it: no +cpuset written at the root.
  CHECK(w.fs.files["/sys/fs/cgroup/cgroup.subtree_control"] == "cpuset\n");

  w.child.programs.clear();
  Removal r = remove_shield(w.os, *read_record(w.fs, "affix-shield-1"));
  CHECK(r.left.empty());
  CHECK(w.child.programs == std::vector<Argv>{{"systemctl", "stop", "affix-shield-1.slice"}, {"systemctl", "daemon-reload"}});
  CHECK_FALSE(w.fs.exists("/run/systemd/system/affix-shield-1.slice"));
  CHECK_FALSE(w.fs.exists(k_slice));
  CHECK(w.fs.files["/sys/fs/cgroup/affix.slice/cpuset.cpus.exclusive"] == "\n");
  CHECK(w.fs.files["/sys/fs/cgroup/affix.slice/affix-shield.slice/cpuset.cpus.exclusive"] == "\n");
  CHECK_FALSE(w.fs.exists("/run/affix/shields/affix-shield-1"));
}

TEST_CASE("shield systemd: systemctl failing undoes the unit", "[shield]") {
  ShieldWorld w("systemd");
  w.child.program_status["systemctl start"] = 5;
  w.child.on_program = nullptr;
  try {
    make_shield(w.os, plan_for(w, "4-7"), shield_cpus("0-7"));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "'systemctl start affix-shield-1.slice' failed: exit status 5; the shield was removed, every change put back");
  }
  CHECK_FALSE(w.fs.exists("/run/systemd/system/affix-shield-1.slice"));
  CHECK(w.child.programs.back() == Argv{"systemctl", "daemon-reload"});
}

TEST_CASE("shield systemd: a slice without cpuset (systemd did not turn it on) is an error", "[shield]") {
  ShieldWorld w("systemd");
  w.child.on_program = [&](const Argv& argv) -> std::optional<int> {
    if (argv.size() == 3 && argv[1] == "start") w.fs.make_dirs(k_slice);  // plain directories
    return std::nullopt;
  };
  try {
    make_shield(w.os, plan_for(w, "4-7"), shield_cpus("0-7"));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "systemd started affix-shield-1.slice, but " + k_slice +
                                       " has no cpuset.cpus.exclusive; the shield was removed, every change put back");
  }
}

TEST_CASE("shield systemd: the command runs in a scope of the slice, through systemd-run", "[shield]") {
  ShieldWorld w("systemd");
  MadeShield made = make_shield(w.os, plan_for(w, "4-7"), shield_cpus("0-7"));
  w.child.exit_status = 7;
  ShieldRun run = run_in_shield(w.os, made.record, {"./server", "--port", "80"}, 555);
  CHECK(w.child.started == std::vector<std::string>{
                               "systemd-run --scope --quiet --collect --slice=affix-shield-1.slice -- ./server --port 80"});
  CHECK(run.status == 7);
  CHECK(run.removal.left.empty());
  CHECK_FALSE(w.fs.exists(k_slice));
}
