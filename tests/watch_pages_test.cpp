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
    const auto& u = p.update(sys, pid, pid, time);
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

TEST_CASE("weighted interleave: the pages under it per node against the kernel's weights") {
  affix::test::TempRoot root;
  root.write("proc/9/numa_maps",
             "7f00 weighted interleave:0,2 anon=4096 dirty=4096 N0=3072 N2=1024 kernelpagesize_kB=4\n"
             "5500 weighted interleave:0,2 file=/bin/x mapped=9 N0=9\n"
             "7ffd weighted interleave:0,2 stack anon=3 dirty=3 N0=2 N2=1\n"
             "7e00 default anon=5 N0=5\n");
  SysRoot sys(root.path());
  auto usage = read_numa_usage(sys, 9);
  REQUIRE(usage);
  CHECK(usage->weighted_policy == "weighted interleave:0,2");
  CHECK(usage->weighted == NodePages{{0, 3074}, {2, 1025}});  // anonymous pages only: the file's sit where first read
  InterleaveWeights w;
  w.weights = {{0, 3}, {1, 1}, {2, 1}};
  auto share = weighted_share(*usage, w);
  REQUIRE(share);
  CHECK(format_cpulist(share->nodes) == "0,2");
  CHECK(share->pages == NodePages{{0, 3074}, {2, 1025}});
  CHECK(share->weights == std::map<unsigned, unsigned>{{0, 3}, {2, 1}});
  w.weights.erase(2);  // a kernel without node 2's weight: 0, shown as unknown
  CHECK(weighted_share(*usage, w)->weights.at(2) == 0);
  root.write("proc/9/numa_maps", "7e00 interleave:0-1 anon=5 N0=5\n");
  CHECK(!weighted_share(*read_numa_usage(sys, 9), w));
}
