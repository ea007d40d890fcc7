#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "error.hpp"
#include "fake_os.hpp"
#include "temp_root.hpp"
#include "migrate.hpp"
#include "pin_output.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::TempRoot;

namespace {
CpuSet set(const char* list) { return *parse_cpulist(list).value; }

// The fake, with numa_maps rewritten the moment pages move.
class MigratingOs : public FakeOs {
public:
  std::function<void()> on_migrate;
  int migrate_pages(pid_t pid, const CpuSet& from, const CpuSet& to, long& not_moved) override {
    int err = FakeOs::migrate_pages(pid, from, to, not_moved);
    if (err == 0 && !from.empty() && on_migrate) on_migrate();
    return err;
  }
};

// A process with one mapping of `n` pages at 0x10000, all on node `node`,
// as numa_maps, maps and move_pages see it; numa_maps follows the pages.
struct Mapped {
  TempRoot root;
  pid_t pid;
  explicit Mapped(FakeOs& os, pid_t p, unsigned n, int node, const std::string& policy = "default") : pid(p) {
    for (unsigned i = 0; i < n; ++i) os.pages[pid][0x10000 + 4096ull * i] = node;
    root.write(fmt::format("proc/{}/maps", pid),
               fmt::format("{:x}-{:x} rw-p 00000000 00:00 0\n", 0x10000, 0x10000 + 4096ull * (n + 4)));
    policy_text = policy;
    refresh(os);
  }
  void refresh(FakeOs& os) {
    NodePages counts;
    for (auto& [addr, node] : os.pages[pid]) ++counts[static_cast<unsigned>(node)];
    std::string line = fmt::format("10000 {} anon={}", policy_text, os.pages[pid].size());
    for (auto& [node, count] : counts) line += fmt::format(" N{}={}", node, count);
    root.write(fmt::format("proc/{}/numa_maps", pid), line + " kernelpagesize_kB=4\n");
  }
  SysRoot sys() const { return SysRoot(root.path()); }
  std::string policy_text;
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.hint().empty() ? e.what() : std::string(e.what()) + " | " + e.hint();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("--migrate (bind) moves pages off the other nodes and reports before and after") {
  TempRoot root;
  root.write("proc/10/numa_maps", "1 default N0=100 N1=20 N2=5\n2 default N0=1\n");
  MigratingOs os;
  os.on_migrate = [&]() { root.write("proc/10/numa_maps", "1 default N0=3 N1=123\n2 default N1=1\n"); };
  os.migrate_not_moved = 3;
  auto plan = plan_migration(os, SysRoot(root.path()), 10, MemPolicy::Bind, set("1"), set("0-2"));
  CHECK(format_plan(plan) ==
        "10: would move 106 pages to node 1\n"
        "  pages per node now: 0:101 1:20 2:5\n"
        "  pages that would leave each node: 0:101 2:5\n");
  REQUIRE(os.migrate_calls.size() == 1);  // the check: from nowhere, so nothing moves
  CHECK(os.migrate_calls[0].from.empty());
  auto r = migrate(os, SysRoot(root.path()), plan);
  REQUIRE(os.migrate_calls.size() == 2);
  CHECK(os.migrate_calls[1].pid == 10);
  CHECK(format_cpulist(os.migrate_calls[1].from) == "0,2");
  CHECK(format_cpulist(os.migrate_calls[1].to) == "1");
  CHECK(r.moved == 103);
  CHECK(format_migrate(r) ==
        "10: moved 103 pages (3 could not be moved)\n"
        "  pages per node before: 0:101 1:20 2:5\n"
        "  pages per node after:  0:3 1:124\n");
}

TEST_CASE("--migrate where every node is a target moves nothing") {
  TempRoot root;
  root.write("proc/10/numa_maps", "1 default N0=7\n");
  FakeOs os;
  auto r = migrate(os, SysRoot(root.path()), plan_migration(os, SysRoot(root.path()), 10, MemPolicy::Bind, set("0"), set("0")));
  CHECK(os.migrate_calls.size() == 1);  // the check only
  CHECK(format_migrate(r) ==
        "10: moved 0 pages (every node is a target: nothing to move)\n"
        "  pages per node before: 0:7\n"
        "  pages per node after:  0:7\n");
}

TEST_CASE("--migrate with interleave spreads the pages evenly, page by page") {
  // All 10 pages on node 0, interleaved over 0-3: page i goes to node i mod 4
  // (pages 0, 4 and 8 stay). migrate_pages could only move them to one node
  // (or, with a mapping of nodes, none): that was the old result.
  FakeOs os;
  Mapped m(os, 10, 10, 0);
  auto plan = plan_migration(os, m.sys(), 10, MemPolicy::Interleave, set("0-3"), set("0-3"));
  CHECK(os.migrate_calls.empty());
  CHECK(format_plan(plan) ==
        "10: would move 7 pages to spread them over nodes 0-3\n"
        "  pages per node now: 0:10\n"
        "  pages that would leave each node: 0:7\n"
        "  pages that would arrive on each node: 1:3 2:2 3:2\n");
  // Nothing moved by the plan: only queries.
  for (auto& c : os.move_pages_calls) CHECK(c.nodes.empty());
  auto r = migrate(os, m.sys(), plan);
  m.refresh(os);
  r.after = read_numa_maps(m.sys(), 10);
  CHECK(format_migrate(r) ==
        "10: moved 7 pages\n"
        "  pages moved to each node: 1:3 2:2 3:2\n"
        "  pages per node before: 0:10\n"
        "  pages per node after:  0:3 1:3 2:2 3:2\n");
  unsigned i = 0;
  for (auto& [addr, node] : os.pages[10]) CHECK(node == static_cast<int>(i++ % 4));
}

TEST_CASE("--migrate with weighted spreads the pages by the nodes' weights, in the kernel's order") {
  // 16 pages on node 0, weights 0=3 and 2=1: the kernel's order is 0,0,0,2,
  // so every fourth page goes to node 2 and 12 stay on node 0.
  CHECK(weighted_sequence({{0, 3}, {2, 1}}) == std::vector<unsigned>{0, 0, 0, 2});
  CHECK(weighted_sequence({{1, 2}, {3, 2}}) == std::vector<unsigned>{1, 1, 3, 3});
  FakeOs os;
  Mapped m(os, 10, 16, 0);
  auto plan = plan_migration(os, m.sys(), 10, MemPolicy::Weighted, set("0,2"), set("0-2"), weighted_sequence({{0, 3}, {2, 1}}));
  CHECK(format_plan(plan) ==
        "10: would move 4 pages to spread them over nodes 0,2 by their weights\n"
        "  pages per node now: 0:16\n"
        "  pages that would leave each node: 0:4\n"
        "  pages that would arrive on each node: 2:4\n");
  auto r = migrate(os, m.sys(), plan);
  CHECK(r.moved == 4);
  unsigned i = 0;
  for (auto& [addr, node] : os.pages[10]) CHECK(node == (i++ % 4 == 3 ? 2 : 0));
}

TEST_CASE("--migrate refusals are found by the plan, before any page moves") {
  TempRoot root;
  FakeOs os;
  SysRoot sys(root.path());
  MemPolicy policy = GENERATE(MemPolicy::Bind, MemPolicy::Interleave);
  os.migrate_error = EPERM;
  CHECK(error_of([&] { plan_migration(os, sys, 10, policy, set("0"), set("0-1")); }) ==
        "cannot migrate the pages of process 10: permission denied | moving another user's process needs "
        "CAP_SYS_NICE");
  os.cap_sys_nice = true;  // then the refusal is a policy's
  CHECK(error_of([&] { plan_migration(os, sys, 10, policy, set("0"), set("0-1")); }) ==
        "cannot migrate the pages of process 10: permission denied | affix has CAP_SYS_NICE, so a security "
        "policy refused it: a seccomp filter or a security module (as in a container)");
  os.cap_sys_nice = false;
  os.migrate_error = EINVAL;
  CHECK(error_of([&] { plan_migration(os, sys, 10, policy, set("0"), set("0-1")); }) ==
        "cannot migrate the pages of process 10 to nodes 0: Invalid argument");
  os.migrate_error = ESRCH;
  auto plan = plan_migration(os, sys, 10, policy, set("0"), set("0-1"));
  CHECK(format_migrate(migrate(os, sys, plan)) == "10: exited before its pages were moved\n");
  os.migrate_error = 0;
  if (policy == MemPolicy::Bind) {
    CHECK(format_migrate(migrate(os, sys, plan_migration(os, sys, 10, policy, set("0"), set("0-1")))) ==
          "10: moved 0 pages\n"
          "  pages per node before: unknown (numa_maps cannot be read)\n"
          "  pages per node after:  unknown (numa_maps cannot be read)\n");
  }
}

TEST_CASE("every target is checked before any page moves; moved pages are said to stay moved") {
  MigratingOs os;
  Mapped a(os, 10, 4, 0);
  TempRoot& root = a.root;  // both processes under one root
  root.write("proc/20/numa_maps", "10000 default anon=4 N0=4 kernelpagesize_kB=4\n");
  bool held = true;  // whether 20 is still the process the pin held
  std::vector<MigrateTarget> targets{{10, MemPolicy::Bind, set("1"), {}},
                                     {20, MemPolicy::Bind, set("1"), [&] { return held; }}};
  SECTION("one that exited (its PID perhaps another's by now) is left alone") {
    SECTION("before its plan") { held = false; }
    SECTION("between its plan and its move") {
      os.on_migrate = [&]() { held = false; };
    }
    auto out = migrate_all(os, a.sys(), targets, set("0-1"), false);
    CHECK(out.text.find("20: exited before its pages were moved\n") != std::string::npos);
    for (auto& c : os.migrate_calls) CHECK((c.pid == 10 || c.from.empty()));  // 20's pages: never moved
  }
  SECTION("a refusal of the second: nothing moves at all") {
    os.migrate_errors[20] = EPERM;
    CHECK(error_of([&] { migrate_all(os, a.sys(), targets, set("0-1"), false); }) ==
          "cannot migrate the pages of process 20: permission denied | moving another user's process needs "
          "CAP_SYS_NICE");
    for (auto& c : os.migrate_calls) CHECK(c.from.empty());  // only checks
  }
  SECTION("a failure of the second after the first moved: the message says so") {
    os.on_migrate = [&]() { os.migrate_errors[20] = ENOMEM; };
    CHECK(error_of([&] { migrate_all(os, a.sys(), targets, set("0-1"), false); }) ==
          "cannot migrate the pages of process 20 to nodes 1: Cannot allocate memory; the pages of process 10 "
          "were moved and are not moved back");
  }
  SECTION("dry run: plans only") {
    auto out = migrate_all(os, a.sys(), targets, set("0-1"), true);
    CHECK(out.text ==
          "10: would move 4 pages to node 1\n"
          "  pages per node now: 0:4\n"
          "  pages that would leave each node: 0:4\n"
          "20: would move 4 pages to node 1\n"
          "  pages per node now: 0:4\n"
          "  pages that would leave each node: 0:4\n");
    for (auto& c : os.migrate_calls) CHECK(c.from.empty());
  }
}

TEST_CASE("a target whose own policy keeps sending memory elsewhere is warned about") {
  TempRoot root;
  root.write("proc/10/numa_maps",
             "1000 bind:2 anon=5 N2=5 kernelpagesize_kB=4\n"
             "2000 bind:2 anon=1 N2=1 kernelpagesize_kB=4\n"
             "3000 prefer (many):1,3 anon=1 N3=1 kernelpagesize_kB=4\n"
             "4000 interleave:0-3 anon=1 N3=1 kernelpagesize_kB=4\n"
             "5000 default anon=1 N3=1 kernelpagesize_kB=4\n"
             "6000 local anon=1 N3=1 kernelpagesize_kB=4\n");
  FakeOs os;
  auto plan = plan_migration(os, SysRoot(root.path()), 10, MemPolicy::Bind, set("3"), set("0-3"));
  CHECK(own_policy_warnings(plan) ==
        std::vector<std::string>{
            "10's own memory policy (bind:2) still sends new allocations to node 2; only the process itself can "
            "change it",
            "10's own memory policy (prefer (many):1,3) still sends new allocations to node 1; only the process "
            "itself can change it",
            "10's own memory policy (interleave:0-3) still sends new allocations to nodes 0-2; only the process "
            "itself can change it"});
  auto calm = plan_migration(os, SysRoot(root.path()), 10, MemPolicy::Bind, set("0-3"), set("0-3"));
  CHECK(own_policy_warnings(calm).empty());
}

TEST_CASE("nodes outside affix's own Mems_allowed are an error that names them") {
  FakeOs os;
  os.own_mems = set("0-2");
  CHECK_NOTHROW(check_own_nodes(os, set("1-2")));
  try {
    check_own_nodes(os, set("2-4"));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Resolution);
    CHECK(std::string(e.what()) == "cannot move pages to nodes 3-4: outside the memory nodes affix itself may use (0-2)");
    CHECK(e.hint() == "the kernel moves pages only to nodes its caller may use; run affix in a cpuset that has them");
  }
  os.own_mems = CpuSet();  // unknown: the kernel decides
  CHECK_NOTHROW(check_own_nodes(os, set("7")));
}
