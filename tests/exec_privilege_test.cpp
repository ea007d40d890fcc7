// run --spread and a set-user-ID, set-group-ID or file-capability program
// (exec_privilege.hpp): what a traced exec would drop, and the refusal
// before anything starts.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "error.hpp"
#include "exec_privilege.hpp"
#include "fake_os.hpp"
#include "fixtures.hpp"
#include "launch.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::FakeOs;

namespace {

constexpr std::uint64_t k_net_bind_service = 1ull << 10;
constexpr std::uint64_t k_net_raw = 1ull << 13;

Credentials user(uid_t uid, std::uint64_t permitted = 0) {
  Credentials c;
  c.euid = uid;
  c.egid = uid;
  c.permitted = permitted;
  return c;
}

}  // namespace

TEST_CASE("traced exec: what the kernel drops without CAP_SYS_PTRACE, and nothing with it") {
  FilePrivilege suid;
  suid.file = "/usr/bin/prog";
  suid.setuid = true;  // owner root
  CHECK(privilege_lost(suid, user(1001)) == "set-user-ID root");
  CHECK(privilege_lost(suid, user(0)).empty());  // root's own: no ID changes
  Credentials root = user(1001);
  root.cap_sys_ptrace = true;  // the tracer may: the kernel keeps them
  CHECK(privilege_lost(suid, root).empty());

  FilePrivilege sgid;
  sgid.setgid = true;
  sgid.group = 0;
  CHECK(privilege_lost(sgid, user(1001)) == "set-group-ID root");
  sgid.setuid = true;
  sgid.owner = 1001;  // set-user-ID to the caller itself gives nothing
  CHECK(privilege_lost(sgid, user(1001)) == "set-group-ID root");

  FilePrivilege caps;
  caps.caps = k_net_bind_service | k_net_raw;
  CHECK(privilege_lost(caps, user(1001)) == "file capabilities cap_net_bind_service,cap_net_raw");
  CHECK(privilege_lost(caps, user(1001, k_net_raw)) == "file capabilities cap_net_bind_service");
  CHECK(privilege_lost(caps, user(1001, k_net_raw | k_net_bind_service)).empty());
  Credentials bounded = user(1001);
  bounded.bounding = ~k_net_raw;
  CHECK(privilege_lost(caps, bounded) == "file capabilities cap_net_bind_service");
  suid.caps = k_net_raw;
  CHECK(privilege_lost(suid, user(1001)) == "set-user-ID root and file capabilities cap_net_raw");
  CHECK(capability_names(1ull << 40 | 1ull << 50) == "cap_checkpoint_restore,cap_50");
}

TEST_CASE("traced exec: a file's set-ID bits as stat shows them; set-group-ID without group execute is none") {
  affix::test::TempRoot root;
  root.write("prog", "#!/bin/sh\n");
  std::string file = root.path("prog");
  REQUIRE(::chmod(file.c_str(), 04755) == 0);
  auto p = read_file_privilege(file);
  REQUIRE(p);
  CHECK(p->setuid);
  CHECK(!p->setgid);
  CHECK(p->owner == ::geteuid());
  CHECK(!p->caps);
  REQUIRE(::chmod(file.c_str(), 02745) == 0);  // g-x: mandatory locking, no privilege
  CHECK(!read_file_privilege(file)->setgid);
  REQUIRE(::chmod(file.c_str(), 02755) == 0);
  CHECK(read_file_privilege(file)->setgid);
  CHECK(!read_file_privilege(root.path("none")));
  // The PATH search finds the file exec would run.
  CHECK(exec_file("prog", ("/nonexistent:" + root.path()).c_str()) == file);
  CHECK(!exec_file("nope", root.path().c_str()));
}

TEST_CASE("--spread refuses a program whose privileges a traced exec drops, before anything, also a dry run") {
  for (bool dry : {false, true}) {
    FakeOs os;
    os.exec_loss = {"/usr/bin/ping", "file capabilities cap_net_raw"};
    LaunchRequest r;
    r.argv = {"ping", "host"};
    r.spread = 1;
    r.dry_run = dry;
    std::ostringstream out, err;
    try {
      launch(os, affix::test::placement_of("0-1"), r, out, err);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Runtime);
      CHECK(std::string(e.what()) ==
            "cannot run '/usr/bin/ping' with --spread: the kernel would run it without its file capabilities "
            "cap_net_raw, as it does for a traced program (--spread follows its threads with ptrace); the command "
            "was not started");
      CHECK(e.hint() == "run it without --spread, or spread its threads once it runs: 'affix pin --spread WHERE PID'");
    }
    CHECK(os.calls.empty());
    CHECK(out.str().empty());
  }
  // Without --spread, nothing is asked and it runs.
  FakeOs os;
  os.exec_loss = {"/usr/bin/ping", "file capabilities cap_net_raw"};
  LaunchRequest r;
  r.argv = {"ping"};
  std::ostringstream out, err;
  CHECK(launch(os, affix::test::placement_of("0-1"), r, out, err) == 0);
  CHECK(os.exec_calls.size() == 1);
}
