// A shield where systemd runs the machine, on fakes (no systemd here, nor
// in the VM): a runtime slice unit that systemd starts, cpuset.cpus.exclusive
// from the first cgroup below the root down to the slice's own, a remote
// partition; removal stops the slice and removes its unit.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "shield_apply.hpp"
#include "shield_launch.hpp"
#include "shield_plan.hpp"
#include "shield_systemd.hpp"
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

TEST_CASE("shield systemd: names escaped as systemd-escape does, one level below affix.slice", "[shield]") {
  CHECK(systemd_escape("db-2") == "db\\x2d2");
  CHECK(systemd_escape("shield-1") == "shield\\x2d1");
  CHECK(systemd_escape("a/b") == "a-b");
  CHECK(systemd_escape(".x_y:z.w") == "\\x2ex_y:z.w");
  CHECK(systemd_escape("é") == "\\xc3\\xa9");
  CHECK(shield_slice_unit("affix-shield-1") == "affix-shield-1.slice");  // a default name
  CHECK(shield_slice_unit("db") == "affix-db.slice");
  CHECK(shield_slice_unit("db-2") == "affix-db\\x2d2.slice");
  CHECK(shield_slice_unit("shield-1") == "affix-shield\\x2d1.slice");  // not default shield 1's
  CHECK(shield_slice_unit("affix-shield-01") == "affix-affix\\x2dshield\\x2d01.slice");
  CHECK(slice_cgroup("/sys/fs/cgroup", shield_slice_unit("db-2")) == "/sys/fs/cgroup/affix.slice/affix-db\\x2d2.slice");

  // db and db-2 side by side: neither in the other.
  ShieldWorld w("systemd");
  make_shield(w.os, plan_shield(w.machine(), ShieldRequest{shield_cpus("6-7"), std::nullopt, false, false, "db"}),
              shield_cpus("0-7"));
  ShieldPlan two = plan_shield(w.machine(), ShieldRequest{shield_cpus("4-5"), std::nullopt, false, false, "db-2"});
  CHECK(two.record.unit == "affix-db\\x2d2.slice");
  CHECK(two.record.cgroup == "/sys/fs/cgroup/affix.slice/affix-db\\x2d2.slice");
}

TEST_CASE("shield systemd: a name whose slice holds another shield's is refused", "[shield]") {
  ShieldWorld w("systemd");
  make_shield(w.os, plan_for(w, "6-7"), shield_cpus("0-7"));
  try {
    plan_shield(w.machine(), ShieldRequest{shield_cpus("4-5"), std::nullopt, false, false, "shield"});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    CHECK(std::string(e.what()) ==
          "invalid --name 'shield': under systemd its slice, affix-shield.slice, is the one every default shield's slice "
          "is in (systemd reads each '-' of a slice's name as a level)");
  }
  // A record from before the escaping, whose slice is affix-db.slice/affix-db-2.slice: db would hold it.
  ShieldRecord old;
  old.name = "old";
  old.layout = ShieldLayout::Systemd;
  old.cgroup = "/sys/fs/cgroup/affix.slice/affix-db.slice/affix-db-2.slice";
  old.unit = "affix-db-2.slice";
  old.cpus = shield_cpus("3");
  old.made = 9;
  w.fs.file("/run/affix/shields/old", record_text(old));
  std::vector<std::string> bad;
  REQUIRE(read_records(w.fs, bad).size() == 2);
  try {
    plan_shield(w.machine(), ShieldRequest{shield_cpus("4-5"), std::nullopt, false, false, "db"});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) ==
          "invalid --name 'db': under systemd its slice, affix-db.slice, and shield old's, affix-db-2.slice, would be "
          "one in the other (systemd reads each '-' of a slice's name as a level)");
  }
}

TEST_CASE("shield systemd: --off moves the slice's processes out before it stops the slice", "[shield]") {
  ShieldWorld w("systemd");
  make_shield(w.os, plan_for(w, "4-7"), shield_cpus("0-7"));
  w.fs.make_dir(k_slice + "/run-r1.scope");
  w.fs.cgroup_of[700] = k_slice + "/run-r1.scope";
  w.fs.cgroup_of[701] = k_slice;
  std::vector<std::string> at_stop;
  w.child.on_program = [&](const Argv& argv) -> std::optional<int> {
    if (argv.size() == 3 && argv[1] == "stop")
      at_stop = {w.fs.cgroup_of[700], w.fs.cgroup_of[701]};
    return w.systemd(argv);
  };
  Removal r = remove_shield(w.os, *read_record(w.fs, "affix-shield-1"));
  // systemd would kill what is in the slice when it stops: nothing is.
  CHECK(at_stop == std::vector<std::string>{"/sys/fs/cgroup", "/sys/fs/cgroup"});
  CHECK(r.notes == std::vector<std::string>{"2 processes still in " + k_slice + " moved out to the rest of the machine"});
}

TEST_CASE("shield systemd: a slice unit affix did not write is left alone", "[shield]") {
  ShieldWorld w("systemd");
  w.fs.file("/run/systemd/system/affix-db.slice", "[Slice]\n");
  try {
    make_shield(w.os, plan_shield(w.machine(), ShieldRequest{shield_cpus("6-7"), std::nullopt, false, false, "db"}),
                shield_cpus("0-7"));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "cannot write /run/systemd/system/affix-db.slice: a unit of that name is there "
                                   "already; the shield was removed, every change put back");
  }
  CHECK(w.fs.files["/run/systemd/system/affix-db.slice"] == "[Slice]\n");
}
