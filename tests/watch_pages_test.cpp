#include <catch2/catch.hpp>

#include "temp_root.hpp"
#include "topo_builder.hpp"
#include "watch_pages.hpp"

using namespace affix;

TEST_CASE("remote pages: those on nodes where no CPU of the process ran") {
  affix::test::TopoSpec spec;  // CPUs 0-1 node 0, 2-3 node 1
  spec.sockets = 2;
  spec.cores_per_node = 2;
  Topology topo = affix::test::build(spec);
  NodePages pages{{0, 100}, {1, 7}, {2, 3}};  // node 2: memory only
  CHECK(remote_pages(pages, CpuSet::range(0, 1), topo) == 10u);
  CHECK(remote_pages(pages, CpuSet::range(1, 2), topo) == 3u);
  CHECK(remote_pages(pages, CpuSet{}, topo) == std::nullopt);
  CHECK(remote_pages(std::nullopt, CpuSet::range(0, 1), topo) == std::nullopt);
}

TEST_CASE("numa_maps is read when due; between, and where it is gone, the last reading stays") {
  affix::test::TempRoot root;
  root.write("proc/7/numa_maps", "7f00 default N0=5\n5500 default file=/bin/x mapped=2 N1=2\n");
  SysRoot sys(root.path());
  ProcessPages p;
  auto pages = [&](double time, pid_t pid = 7) {
    const auto& u = p.update(sys, pid, time);
    return u ? u->pages : NodePages{};
  };
  CHECK(pages(0.0) == NodePages{{0, 5}, {1, 2}});
  REQUIRE(p.last());
  CHECK(p.last()->anon == NodePages{{0, 5}});
  CHECK(p.last()->file == NodePages{{1, 2}});
  root.write("proc/7/numa_maps", "7f00 default N1=6\n");
  p.schedule(0.0, 0.04);  // a read that took 40 ms: the next is due at 2 s
  CHECK(pages(1.0) == NodePages{{0, 5}, {1, 2}});
  CHECK(pages(2.0) == NodePages{{1, 6}});
  CHECK(pages(3.0, 8) == NodePages{{1, 6}});  // unreadable now: the last reading
  CHECK(p.last()->anon == NodePages{{1, 6}});
  CHECK(p.last()->file.empty());
}
