// pin --migrate's progress on a terminal (migrate_progress.hpp): the line,
// when it is written and cleared, and the chunks interleave's pages move in
// with it (the same pages, the same report as without).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "fake_os.hpp"
#include "migrate.hpp"
#include "migrate_progress.hpp"
#include "pin_output.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::FakeOs;
using affix::test::TempRoot;

namespace {

CpuSet set(const char* list) { return *parse_cpulist(list).value; }

struct Terminal {
  uint64_t now = 0;
  std::vector<std::string> writes;
  MigrateProgress progress{[this] { return now; }, [this](const std::string& t) { writes.push_back(t); }};
};

ProgressCounts bind_counts(unsigned long long moved, unsigned long long total) {
  ProgressCounts c;
  c.moved = moved;
  c.total = total;
  c.from[0] = moved;
  return c;
}

}  // namespace

TEST_CASE("migrate progress: the line, per node, as dd status=progress") {
  CHECK(format_migrate_progress(1234, bind_counts(262144, 524288), 3400) ==
        "affix: moving the pages of process 1234: 262144 of 524288 (50%; from node 0: 262144), 3 s");
  ProgressCounts i;
  i.moved = 3;
  i.total = 7;
  i.to = {{1, 2}, {2, 1}};
  CHECK(format_migrate_progress(10, i, 1000) ==
        "affix: moving the pages of process 10: 3 of 7 (42%; to node 1: 2, to node 2: 1), 1 s");
  CHECK(format_migrate_progress(10, ProgressCounts{}, 0) == "affix: moving the pages of process 10: 0 of 0 (100%), 0 s");
}

TEST_CASE("migrate progress: nothing in the first second, then at most every 250 ms, rewritten with \\r, cleared") {
  Terminal t;
  t.now = 5000;
  t.progress.start();
  t.now = 5999;
  t.progress.update(7, bind_counts(10, 100));
  CHECK(t.writes.empty());
  t.progress.finish();  // nothing shown: nothing to clear
  CHECK(t.writes.empty());
  t.now = 6000;
  t.progress.update(7, bind_counts(1000, 2000));
  t.now = 6100;
  t.progress.update(7, bind_counts(1100, 2000));  // too soon
  t.now = 6250;
  t.progress.update(7, bind_counts(2, 2000));  // a shorter line covers the longer one
  t.progress.finish();
  std::string first = "affix: moving the pages of process 7: 1000 of 2000 (50%; from node 0: 1000), 1 s";
  std::string second = "affix: moving the pages of process 7: 2 of 2000 (0%; from node 0: 2), 1 s";
  REQUIRE(t.writes.size() == 3);
  CHECK(t.writes[0] == "\r" + first);
  CHECK(t.writes[1] == "\r" + second + std::string(first.size() - second.size(), ' '));
  CHECK(t.writes[2] == "\r" + std::string(first.size(), ' ') + "\r");
}

TEST_CASE("migrate progress: interleave's pages move in chunks, each reported; the result is the same") {
  const unsigned n = static_cast<unsigned>(k_move_chunk) * 4 + 5;  // every other page moves
  FakeOs os;
  TempRoot root;
  for (unsigned i = 0; i < n; ++i) os.pages[10][0x10000 + 4096ull * i] = 0;
  root.write("proc/10/maps", fmt::format("{:x}-{:x} rw-p 00000000 00:00 0\n", 0x10000, 0x10000 + 4096ull * (n + 4)));
  root.write("proc/10/numa_maps", fmt::format("10000 default anon={} N0={} kernelpagesize_kB=4\n", n, n));
  auto plan = plan_migration(os, SysRoot(root.path()), 10, MemPolicy::Interleave, set("0-1"), set("0-1"));
  size_t queries = os.move_pages_calls.size();
  Terminal t;
  t.now = 0;
  // Each look at the clock is 600 ms later.
  MigrateProgress progress([&] { return t.now += 600; }, [&](const std::string& s) { t.writes.push_back(s); });
  MigrateResult r = migrate(os, SysRoot(root.path()), plan, &progress);
  REQUIRE(os.move_pages_calls.size() == queries + 3);  // two full chunks and the rest
  CHECK(os.move_pages_calls[queries].pages.size() == k_move_chunk);
  CHECK(os.move_pages_calls[queries + 2].pages.size() == plan.pages.size() - 2 * k_move_chunk);
  CHECK(r.moved == plan.pages.size());
  CHECK(r.arriving == NodePages{{1, plan.pages.size()}});
  REQUIRE(t.writes.size() == 3);
  CHECK(t.writes[0] == fmt::format("\raffix: moving the pages of process 10: {} of {} ({}%; to node 1: {}), 1 s",
                                   k_move_chunk * 2, plan.pages.size(), k_move_chunk * 2 * 100 / plan.pages.size(),
                                   k_move_chunk * 2));
  CHECK(t.writes[1] == fmt::format("\raffix: moving the pages of process 10: {} of {} (100%; to node 1: {}), 1 s",
                                   plan.pages.size(), plan.pages.size(), plan.pages.size()));
  CHECK(t.writes[2].front() == '\r');
  CHECK(t.writes[2].back() == '\r');
  CHECK(t.writes[2].find_first_not_of(" \r") == std::string::npos);
  unsigned i = 0;
  for (auto& [addr, node] : os.pages[10]) CHECK(node == static_cast<int>(i++ % 2));
}
