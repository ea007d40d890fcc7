// What `affix watch` prints: the JSON Lines fields of affix(1) WATCH, names as
// data (JSON valid UTF-8, text escaped), rows sorted by cross-socket, then
// cross-node, then total migrations.
#include <catch2/catch.hpp>

#include "mini_json.hpp"
#include "topo_builder.hpp"
#include "watch_output.hpp"

using namespace affix;
using affix::test::parse_json;

namespace {

LevelMap levels() {
  affix::test::TopoSpec spec;
  spec.sockets = 2;
  spec.cores_per_node = 2;
  return LevelMap(affix::test::build(spec));  // CPUs 0-1 socket 0, 2-3 socket 1
}

ProcessReport process(pid_t pid, const std::string& comm, uint64_t socket, uint64_t node, uint64_t core) {
  ProcessReport p;
  p.pid = pid;
  p.comm = comm;
  p.threads = 1;
  p.cpus_ran = CpuSet::range(0, 1);
  p.ran_nodes.set(0);
  p.activity.migrations[Crossing::Socket] = socket;
  p.activity.migrations[Crossing::Node] = node;
  p.activity.migrations[Crossing::Core] = core;
  p.activity.voluntary = 12;
  p.activity.involuntary = 3;
  p.activity.cpu_ns = 930400000;
  p.activity.wait_ns = 1500000000;  // 1.5 s of run-queue wait
  p.activity.wait_read = true;
  p.pages = NodePages{{0, 1200}, {1, 7}};
  p.anon_pages = NodePages{{0, 1000}, {1, 7}};
  p.file_pages = NodePages{{0, 200}};
  p.remote_pages = 7;
  p.exact = true;
  ThreadReport t;
  t.tid = pid;
  t.comm = comm;
  t.cpu = 1;
  t.activity = p.activity;
  t.exact = true;
  p.thread_list.push_back(t);
  return p;
}

}  // namespace

TEST_CASE("watch JSON: one line per interval with the documented fields") {
  IntervalReport r;
  r.time = 1.0;
  r.interval = 1.0;
  r.exact = true;
  r.processes.push_back(process(4242, "server", 3, 0, 20));
  std::string line = watch_json_line(r);
  REQUIRE(line.back() == '\n');
  CHECK(line.find('\n') == line.size() - 1);
  auto j = parse_json(line);
  CHECK(j["time"].real == 1.0);
  CHECK(j["interval"].real == 1.0);
  CHECK(j["exact"].boolean);
  const auto& p = j["processes"][0];
  CHECK(p["pid"].number == 4242);
  CHECK(p["comm"].string == "server");
  CHECK(p["threads"].number == 1);
  CHECK(p["cpus_ran"].string == "0-1");
  CHECK(p["migrations"]["total"].number == 23);
  CHECK(p["migrations"]["socket"].number == 3);
  CHECK(p["migrations"]["core"].number == 20);
  CHECK(p["migrations"]["smt"].number == 0);
  CHECK(p["switches"]["voluntary"].number == 12);
  CHECK(p["switches"]["involuntary"].number == 3);
  CHECK(p["cpu_ms"].number == 930);
  CHECK(p["wait_ms"].number == 1500);
  CHECK_FALSE(p["wait_partial"].boolean);
  CHECK(p["memory_pages"]["0"].number == 1200);
  CHECK(p["memory_pages"]["1"].number == 7);
  CHECK(p["anon_pages"]["0"].number == 1000);
  CHECK(p["anon_pages"]["1"].number == 7);
  CHECK(p["file_pages"]["0"].number == 200);
  CHECK(p["file_pages"].object.size() == 1);
  CHECK(p["remote_pages"].number == 7);
  CHECK(p["thread_list"][0]["tid"].number == 4242);
  CHECK(p["thread_list"][0]["cpu"].number == 1);
  CHECK(p["thread_list"][0]["migrations"]["total"].number == 23);
  CHECK(p["thread_list"][0]["wait_ms"].number == 1500);
  CHECK_FALSE(p["thread_list"][0]["wait_partial"].boolean);
}

TEST_CASE("watch JSON: unknown pages are null; the summary object") {
  WatchSummary s;
  s.duration = 5.0;
  ProcessReport p = process(7, "x", 0, 0, 0);
  p.pages.reset();
  p.anon_pages.reset();
  p.file_pages.reset();
  p.remote_pages.reset();
  p.thread_list.clear();
  p.seconds = 4.5;
  s.processes.push_back(p);
  auto j = parse_json(watch_json_summary(s));
  CHECK(j["summary"]["duration"].real == 5.0);
  CHECK_FALSE(j["summary"]["exact"].boolean);
  CHECK(j["summary"]["processes"][0]["memory_pages"].is_null());
  CHECK(j["summary"]["processes"][0]["anon_pages"].is_null());
  CHECK(j["summary"]["processes"][0]["file_pages"].is_null());
  CHECK(j["summary"]["processes"][0]["remote_pages"].is_null());
  CHECK(j["summary"]["processes"][0]["seconds"].real == 4.5);
  CHECK(j["summary"]["processes"][0].object.count("thread_list") == 0);
}

TEST_CASE("watch: a name is data, in JSON and in text") {
  IntervalReport r;
  r.interval = 1;
  r.processes.push_back(process(1, "\x1b[31m\xff" "evil\n", 0, 0, 0));
  std::string json = watch_json_line(r);
  CHECK(json.find("\"comm\": \"\\u001b[31m\xef\xbf\xbd" "evil\\n\"") != std::string::npos);
  CHECK(json.find('\x1b') == std::string::npos);
  WatchHeader h;
  std::string text = watch_text(h, r, levels());
  CHECK(text.find("      1 \\e[31m\\xffevil+    0") != std::string::npos);  // 16 columns escaped: cut to 15
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("\xff") == std::string::npos);
}

TEST_CASE("watch: a name longer than its column is cut in text, whole in JSON") {
  IntervalReport r;
  r.interval = 1;
  r.processes.push_back(process(8, "kworker/15:0H-events_highpri", 1, 0, 0));
  CHECK(parse_json(watch_json_line(r))["processes"][0]["comm"].string == "kworker/15:0H-events_highpri");
  WatchHeader h;
  std::string text = watch_text(h, r, levels());
  CHECK(text.find("\n      8 kworker/15:0H-+  1.0  1.0    0    0    0    0   12  3.0 1500   93\n") != std::string::npos);
  h.threads = true;
  text = watch_text(h, r, levels());
  CHECK(text.find("\n      8       8 kworker/1+   1  1.0  1.0    0    0    0    0   12  3.0 1500   93\n") != std::string::npos);
  WatchSummary s;
  s.duration = 1;
  r.processes[0].seconds = 1;
  s.processes = r.processes;
  text = watch_text_summary(h, s, levels());
  CHECK(text.find("\n      8 kworker/15:0H-+  1.0  1.0    0    0    0    0   12  3.0 1500  0.9\n") != std::string::npos);
}

TEST_CASE("watch: threads that could not be read are counted, in JSON and in text") {
  IntervalReport r;
  r.interval = 1;
  r.processes.push_back(process(9, "server", 0, 0, 0));
  r.processes[0].threads_unread = 3;
  r.processes[0].exact = false;
  CHECK(parse_json(watch_json_line(r))["processes"][0]["threads_unread"].number == 3);
  r.processes[0].threads_unread = 0;
  CHECK(parse_json(watch_json_line(r))["processes"][0]["threads_unread"].number == 0);
  r.processes[0].threads_unread = 3;
  WatchHeader h;
  h.mode = "exact: the kernel's cpu-migrations event of every thread";
  std::string text = watch_text(h, r, levels());
  CHECK(text.find("\n1 process, 1 thread (3 unread); per second:\nnot exact in this interval: 3 threads could not be "
                  "read\n") != std::string::npos);
  CHECK(text.find("\n        1 thread (3 unread), ran on ") != std::string::npos);
}

TEST_CASE("watch text: rows by cross-socket, then cross-node, then total; rates per second") {
  IntervalReport r;
  r.interval = 2.0;
  r.exact = true;
  r.processes.push_back(process(1, "many", 0, 0, 50));
  r.processes.push_back(process(2, "node", 0, 4, 0));
  r.processes.push_back(process(3, "socket", 2, 0, 0));
  r.processes.push_back(process(4, "socket+", 2, 0, 8));
  WatchHeader h;
  h.machine = "2 sockets, 2 nodes, 4 CPUs";
  h.interval = 2;
  h.mode = "exact";
  std::string text = watch_text(h, r, levels());
  CHECK(text.rfind("affix watch: 2 sockets, 2 nodes, 4 CPUs; every 2 s; at 0.0 s\nexact\n4 processes, 4 threads; per second:\n"
                   "    PID COMM             MIG SOCK NODE  LLC CORE  SMT VCSW ICSW WAIT CPU%\n", 0) == 0);
  auto at = [&](const std::string& name) { return text.find(" " + name + "  "); };  // in its 15 columns
  CHECK(at("socket+") < at("socket"));
  CHECK(at("socket") < at("node"));
  CHECK(at("node") < at("many"));
  // 50 moves in 2 s: 25 per second; 1.5 s of wait in 2 s: 750 ms per second; 0.93 s of CPU in 2 s:
  // 46.5%; every line fits in 80 columns
  CHECK(text.find("      1 many              25    0    0    0   25    0  6.0  1.5  750   47\n"
                  "        1 thread, ran on socket:0; anon 0:1000 1:7, 0.7% off node 0; file 0:200\n") != std::string::npos);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    CHECK(end - start <= 80);
    start = end + 1;
  }
  CHECK(watch_text(h, r, levels(), 4).find("(2 more rows)") != std::string::npos);  // two lines a row
}

TEST_CASE("watch: the run-queue wait, null where unread, a lower bound where partly read") {
  IntervalReport r;
  r.interval = 0.5;
  r.processes.push_back(process(5, "server", 0, 0, 0));
  ProcessReport& p = r.processes[0];
  p.activity.wait_ns = 333400000;  // 333.4 ms in 0.5 s: 667 ms per second
  ThreadReport t = p.thread_list[0];
  t.tid = 6;
  t.activity.wait_ns = 0;
  t.activity.wait_read = false;  // its schedstat keeps no wait
  t.activity.wait_unread = true;
  p.thread_list.push_back(t);
  p.thread_list[0].activity.wait_ns = 333400000;
  p.activity.wait_unread = true;  // thread 6's is missing: a lower bound
  p.threads = 2;
  auto j = parse_json(watch_json_line(r));
  const auto& jp = j["processes"][0];
  CHECK(jp["wait_ms"].number == 333);
  CHECK(jp["wait_partial"].boolean);
  CHECK(jp["thread_list"][0]["wait_ms"].number == 333);
  CHECK_FALSE(jp["thread_list"][0]["wait_partial"].boolean);
  CHECK(jp["thread_list"][1]["wait_ms"].is_null());
  CHECK_FALSE(jp["thread_list"][1]["wait_partial"].boolean);  // null says it: nothing read
  WatchHeader h;
  h.threads = true;
  std::string text = watch_text(h, r, levels());
  CHECK(text.find("    PID     TID COMM       CPU  MIG SOCK NODE  LLC CORE  SMT VCSW ICSW WAIT CPU%\n") !=
        std::string::npos);
  CHECK(text.find("\n      5       5 server       1    0    0    0    0    0    0   24  6.0  667  186\n") !=
        std::string::npos);
  CHECK(text.find("\n      5       6 server       1    0    0    0    0    0    0   24  6.0    -  186\n") !=
        std::string::npos);
  h.threads = false;
  text = watch_text(h, r, levels());
  CHECK(text.find("\n      5 server             0    0    0    0    0    0   24  6.0 666+  186\n") != std::string::npos);
  p.activity.wait_ns = 4000000;  // 8 ms per second, at least
  CHECK(watch_text(h, r, levels()).find("  6.0 7.9+  186\n") == std::string::npos);
  CHECK(watch_text(h, r, levels()).find("  6.0 8.0+  186\n") != std::string::npos);
  p.activity.wait_ns = 1000000000;  // 2000 ms per second, at least: 2k+
  CHECK(watch_text(h, r, levels()).find("  6.0  2k+  186\n") != std::string::npos);
  p.activity.wait_read = false;  // none read
  CHECK(watch_text(h, r, levels()).find("  6.0    -  186\n") != std::string::npos);
  CHECK(parse_json(watch_json_line(r))["processes"][0]["wait_ms"].is_null());
  CHECK_FALSE(parse_json(watch_json_line(r))["processes"][0]["wait_partial"].boolean);
  // Every row of both tables in the title's 80 columns or fewer.
  for (bool threads : {false, true}) {
    h.threads = threads;
    text = watch_text(h, r, levels());
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      CHECK(end - start <= 80);
      start = end + 1;
    }
  }
}

TEST_CASE("watch: a weighted process's pages against its weights, in text and JSON") {
  IntervalReport r;
  r.interval = 1.0;
  ProcessReport p = process(77, "vmload", 0, 0, 0);
  WeightedShare w;
  w.nodes = CpuSet::range(0, 0);
  w.nodes.set(2);
  w.pages = NodePages{{0, 3072}, {2, 1024}};
  w.weights = {{0, 3}, {2, 1}};
  p.weighted = w;
  r.processes.push_back(p);
  WatchHeader h;
  h.machine = "2 sockets";
  h.mode = "exact";
  std::string text = watch_text(h, r, levels());
  CHECK(text.find("\n        weighted 0:3 2:1 = 75.0% 25.0%; pages 0:3072 2:1024 = 75.0% 25.0%\n") != std::string::npos);
  auto j = parse_json(watch_json_line(r));
  const auto& weighted = j["processes"][0]["weighted"];
  CHECK(weighted["nodes"].string == "0,2");
  CHECK(weighted["pages"]["0"].number == 3072);
  CHECK(weighted["weights"]["2"].number == 1);
  // A row of three lines: a row of two more does not fit in four lines.
  r.processes.push_back(process(78, "other", 0, 0, 0));
  CHECK(watch_text(h, r, levels(), 4).find("(1 more rows)") != std::string::npos);
  p.weighted->weights.erase(2);
  r.processes[0] = p;
  CHECK(watch_text(h, r, levels()).find("\n        weighted 0:3 2:? = 100.0% ?; pages 0:3072 2:1024 = 75.0% 25.0%\n") !=
        std::string::npos);
  CHECK(parse_json(watch_json_line(r))["processes"][1]["weighted"].is_null());
}
