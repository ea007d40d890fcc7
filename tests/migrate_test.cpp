#include <catch2/catch.hpp>

#include "error.hpp"
#include "fake_os.hpp"
#include "fake_root.hpp"
#include "migrate.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::FakeRoot;

namespace {
CpuSet set(const char* list) { return *parse_cpulist(list).value; }

// The fake, with numa_maps rewritten the moment the pages move.
class MigratingOs : public FakeOs {
public:
  std::function<void()> on_migrate;
  int migrate_pages(pid_t pid, const CpuSet& from, const CpuSet& to, long& not_moved) override {
    int err = FakeOs::migrate_pages(pid, from, to, not_moved);
    if (err == 0 && on_migrate) on_migrate();
    return err;
  }
};
}  // namespace

TEST_CASE("--migrate moves pages off the other nodes and reports before and after") {
  FakeRoot root;
  root.write("proc/10/numa_maps", "1 default N0=100 N1=20 N2=5\n2 default N0=1\n");
  MigratingOs os;
  os.on_migrate = [&]() { root.write("proc/10/numa_maps", "1 default N0=3 N1=123\n2 default N1=1\n"); };
  os.migrate_not_moved = 3;
  auto r = migrate_process(os, SysRoot(root.path()), 10, set("0-2"), set("1"));
  REQUIRE(os.migrate_calls.size() == 1);
  CHECK(os.migrate_calls[0].pid == 10);
  CHECK(format_cpulist(os.migrate_calls[0].from) == "0,2");
  CHECK(format_cpulist(os.migrate_calls[0].to) == "1");
  CHECK(r.moved == 103);
  CHECK(format_migrate(r) ==
        "10: moved 103 pages (3 could not be moved)\n"
        "  pages per node before: 0:101 1:20 2:5\n"
        "  pages per node after:  0:3 1:124\n");
}

TEST_CASE("--migrate where every node is a target moves nothing") {
  FakeRoot root;
  root.write("proc/10/numa_maps", "1 default N0=7\n");
  FakeOs os;
  auto r = migrate_process(os, SysRoot(root.path()), 10, set("0"), set("0"));
  CHECK(os.migrate_calls.empty());
  CHECK(format_migrate(r) ==
        "10: moved 0 pages (every node is a target: nothing to move)\n"
        "  pages per node before: 0:7\n"
        "  pages per node after:  0:7\n");
}

TEST_CASE("--migrate refusals") {
  FakeRoot root;
  FakeOs os;
  SysRoot sys(root.path());
  os.migrate_error = EPERM;
  try {
    migrate_process(os, sys, 10, set("0-1"), set("0"));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "cannot migrate the pages of process 10: permission denied");
    CHECK(e.hint() == "moving another user's process needs CAP_SYS_NICE");
    CHECK(e.kind() == ErrorKind::Runtime);
  }
  os.cap_sys_nice = true;  // then the refusal is a policy's
  try {
    migrate_process(os, sys, 10, set("0-1"), set("0"));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.hint() ==
          "affix has CAP_SYS_NICE, so a security policy refused it: a seccomp filter or a security module (as in "
          "a container)");
  }
  os.cap_sys_nice = false;
  os.migrate_error = EINVAL;
  CHECK_THROWS_WITH(migrate_process(os, sys, 10, set("0-1"), set("0")),
                    "cannot migrate the pages of process 10 from nodes 1 to nodes 0: Invalid argument");
  os.migrate_error = ESRCH;
  auto r = migrate_process(os, sys, 10, set("0-1"), set("0"));
  CHECK(format_migrate(r) == "10: exited before its pages were moved\n");
  os.migrate_error = 0;
  CHECK(format_migrate(migrate_process(os, sys, 10, set("0-1"), set("0"))) ==
        "10: moved 0 pages\n"
        "  pages per node before: unknown (numa_maps cannot be read)\n"
        "  pages per node after:  unknown (numa_maps cannot be read)\n");
}
