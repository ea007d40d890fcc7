// The remote share of a process's memory says what it is of: its anonymous
// pages off the one node it ran on; where its threads ran on two nodes, the
// share is not defined (a thread on node 0 reaches node 3's pages across,
// one on node 3 node 0's, and numa_maps does not say whose pages are
// whose): text and JSON say so instead of "0.0% remote".
#include <catch2/catch.hpp>

#include "fake_os.hpp"
#include "mini_json.hpp"
#include "watch_fake_proc.hpp"
#include "watch_output.hpp"
#include "watch_tracker.hpp"

using namespace affix;
using namespace affix::test;

TEST_CASE("remote share: one node, of anon pages off it; two nodes, not defined") {
  FakeProc f;
  two_threads(f);  // both on CPU 0, node 0
  f.root.write("proc/100/numa_maps", "7f00 default anon=200 N0=100 N3=100\n");
  FakeAffinity lists;  // never asked: the root is not this machine's
  Topology topo = machine();
  LevelMap levels(topo);
  WatchTracker w(SysRoot(f.root.path()), topo, lists, nullptr, {100}, false);
  w.start();
  WatchHeader header;
  header.machine = "2 sockets, 4 nodes, 32 CPUs";
  header.interval = 1;

  IntervalReport r = w.sample(1.0, 1.0);
  const ProcessReport& one = process_of(r, 100);
  CHECK(format_cpulist(one.ran_nodes) == "0");
  CHECK(one.remote_share() == Approx(50.0));
  std::string text = watch_text(header, r, levels);
  CHECK(text.find("anon 0:100 3:100, 50.0% off node 0; file") != std::string::npos);
  auto j = parse_json(watch_json_line(r));
  CHECK(j["processes"][0]["ran_on_nodes"].string == "0");
  CHECK(j["processes"][0]["remote_share"].real == Approx(50.0));
  CHECK(j["processes"][0]["remote_pages"].number == 100);

  // Thread 101 now runs on CPU 24, node 3: the process spans nodes 0 and 3.
  f.thread(100, 101, 24, {1, 20, 2, 8000000});
  f.thread(100, 100, 0, {0, 11, 1, 6000000}, "server");
  r = w.sample(2.0, 1.0);
  const ProcessReport& two = process_of(r, 100);
  CHECK(format_cpulist(two.cpus_ran) == "0,24");
  CHECK(format_cpulist(two.ran_nodes) == "0,3");
  CHECK(two.remote_pages == 0u);
  CHECK(two.remote_share() == std::nullopt);
  text = watch_text(header, r, levels);
  CHECK(text.find("0.0%") == std::string::npos);
  CHECK(text.find("remote") == text.find("remote share not defined"));
  CHECK(text.find("anon 0:100 3:100, ran on nodes 0,3: remote share not defined; file") != std::string::npos);
  j = parse_json(watch_json_line(r));
  CHECK(j["processes"][0]["ran_on_nodes"].string == "0,3");
  CHECK(j["processes"][0]["remote_share"].is_null());

  // The summary: the last reading, against the nodes it ran on then.
  WatchSummary s = w.summary(2.0);
  text = watch_text_summary(header, s, levels);
  CHECK(text.find("0.0%") == std::string::npos);
  CHECK(text.find("ran on nodes 0,3: remote share not defined") != std::string::npos);
  j = parse_json(watch_json_summary(s));
  CHECK(j["summary"]["processes"][0]["remote_share"].is_null());
  CHECK(j["summary"]["processes"][0]["ran_on_nodes"].string == "0,3");
}

TEST_CASE("remote share: pages off every node it ran on, where it spans two") {
  FakeProc f;
  f.process(100, "server", 2);
  f.thread(100, 100, 0, {0, 10, 1, 5000000}, "server");
  f.thread(100, 101, 24, {0, 20, 2, 7000000});
  f.root.write("proc/100/numa_maps", "7f00 default anon=200 N0=100 N1=50 N3=50\n");
  FakeAffinity lists;
  Topology topo = machine();
  LevelMap levels(topo);
  WatchTracker w(SysRoot(f.root.path()), topo, lists, nullptr, {100}, false);
  w.start();
  f.thread(100, 100, 0, {0, 11, 1, 6000000}, "server");
  f.thread(100, 101, 24, {0, 21, 2, 8000000});
  IntervalReport r = w.sample(1.0, 1.0);
  WatchHeader header;
  header.machine = "m";
  header.interval = 1;
  std::string text = watch_text(header, r, levels);
  // Too wide for one line: broken between words, each line indented.
  for (size_t at; (at = text.find("\n        ")) != std::string::npos;) text.replace(at, 9, " ");
  CHECK(text.find("ran on nodes 0,3: 25.0% off them all, remote share of the rest not defined") !=
        std::string::npos);
  CHECK(process_of(r, 100).remote_pages == 50u);
}
