#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "error.hpp"
#include "root_builders.hpp"
#include "temp_root.hpp"
#include "process_view.hpp"
#include "show_output.hpp"

using namespace affix;
using affix::test::TempRoot;

namespace {

std::string stat_line(pid_t id, const std::string& comm, int last_cpu, unsigned long flags = 4194560) {
  return fmt::format("{} ({}) S 1 {} {} 0 -1 {} 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 {} 0 0\n",
                     id, comm, id, id, flags, last_cpu);
}

std::string status(const std::string& cpus, const std::string& mems = "0-1") {
  return "Name:\tx\nCpus_allowed_list:\t" + cpus + "\nMems_allowed_list:\t" + mems + "\n";
}

void add_thread(TempRoot& root, pid_t pid, pid_t tid, const std::string& comm, const std::string& cpus,
                int last_cpu) {
  root.write(fmt::format("proc/{}/task/{}/stat", pid, tid), stat_line(tid, comm, last_cpu));
  root.write(fmt::format("proc/{}/task/{}/status", pid, tid), status(cpus));
}

// A two-node machine (CPUs 0-1 node 0, 2-3 node 1) with:
//   100 "server": 100 on 0-3, 101-103 "worker" on 2, 104 "io" on 0-3
//   200 "idle":   200 on 0-3
//   300 a kernel thread on 1
void machine(TempRoot& root) {
  write_node(root, 0, "0-1");
  write_node(root, 1, "2-3");
  root.write("proc/100/stat", stat_line(100, "server", 3));
  root.write("proc/100/status", status("0-3"));
  root.write("proc/100/numa_maps", "1000 default anon=5 N0=4 N1=1\n2000 default file=/srv/server mapped=10 N1=10\n");
  add_thread(root, 100, 100, "server", "0-3", 3);
  add_thread(root, 100, 101, "worker", "2", 2);
  add_thread(root, 100, 102, "worker", "2", 2);
  add_thread(root, 100, 103, "worker", "2", 2);
  add_thread(root, 100, 104, "io", "0-3", 0);
  root.write("proc/200/stat", stat_line(200, "idle", 1));
  root.write("proc/200/status", status("0-3"));
  add_thread(root, 200, 200, "idle", "0-3", 1);
  root.write("proc/300/stat", stat_line(300, "kworker/1:0", 1, 69238880));
  root.write("proc/300/status", status("1"));
  add_thread(root, 300, 300, "kworker/1:0", "1", 1);
}

}  // namespace

TEST_CASE("read_process reads every thread and the pages per node") {
  TempRoot root;
  machine(root);
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  auto v = read_process(sys, nodes, 100);
  CHECK(v.comm == "server");
  CHECK(format_cpulist(v.cpus) == "0-3");
  CHECK(format_cpulist(v.mems) == "0-1");
  REQUIRE(v.threads.size() == 5);
  CHECK(v.threads[1].comm == "worker");
  CHECK(v.threads[1].last_cpu == 2);
  CHECK(v.threads[1].last_node == 1);
  CHECK(v.threads[4].last_node == 0);
  REQUIRE(v.pages);
  CHECK(*v.pages == NodePages{{0, 4}, {1, 11}});
  CHECK(*v.anon_pages == NodePages{{0, 4}, {1, 1}});
  CHECK(*v.file_pages == NodePages{{1, 10}});
  // Without numa_maps the pages are unknown; a thread whose files are gone is left out.
  std::filesystem::remove(root.path() + "/proc/100/numa_maps");
  std::filesystem::remove_all(root.path() + "/proc/100/task/102");
  root.write("proc/100/task/103/stat", "");  // vanished mid-read: the directory stays, empty
  std::filesystem::remove(root.path() + "/proc/100/task/103/stat");
  auto w = read_process(sys, nodes, 100);
  CHECK_FALSE(w.pages);
  CHECK_FALSE(w.anon_pages);
  CHECK_FALSE(w.file_pages);
  CHECK(w.threads.size() == 3);
}

TEST_CASE("a process that does not exist or vanishes is a clean error") {
  TempRoot root;
  machine(root);
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  CHECK_THROWS_WITH(read_process(sys, nodes, 999), "no such process: 999");
  // Vanished between the status and the thread list: no thread left.
  root.write("proc/400/stat", stat_line(400, "gone", 0));
  root.write("proc/400/status", status("0"));
  CHECK_THROWS_WITH(read_process(sys, nodes, 400), "no such process: 400");
  try {
    read_process(sys, nodes, 999);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
  }
}

TEST_CASE("show text groups threads that share a CPU list") {
  TempRoot root;
  machine(root);
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  CHECK(format_show_text({read_process(sys, nodes, 100), read_process(sys, nodes, 200)}) ==
        "100 server  cpus 0-3 (mixed)  cpuset nodes 0-1  mem policy default  anon 0:4 1:1; file 1:10\n"
        "  CPUS  THREADS  TIDS     LAST CPUS  NODES  COMM\n"
        "  0-3   2        100,104  0,3        0-1    io,server\n"
        "  2     3        101-103  2          1      worker\n"
        "200 idle  cpus 0-3  cpuset nodes 0-1  mem policy unknown  pages unknown\n"
        "  CPUS  THREADS  TIDS  LAST CPUS  NODES  COMM\n"
        "  0-3   1        200   1          0      idle\n");
}

TEST_CASE("show JSON carries the documented fields") {
  TempRoot root;
  machine(root);
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  CHECK(format_show_json({read_process(sys, nodes, 200)}) ==
        "[{\"pid\": 200, \"comm\": \"idle\", \"cpus\": \"0-3\", \"mems\": \"0-1\", \"mem_policy\": null, \"threads\": "
        "[{\"tid\": 200, \"comm\": \"idle\", \"cpus\": \"0-3\", \"last_cpu\": 1, \"last_cpu_stale\": false, \"last_node\": 0}], "
        "\"memory_pages\": null, \"anon_pages\": null, \"file_pages\": null}]\n");
  auto v = read_process(sys, nodes, 100);
  std::string json = format_show_json({v});
  CHECK(json.find("\"memory_pages\": {\"0\": 4, \"1\": 11}, \"anon_pages\": {\"0\": 4, \"1\": 1}, "
                  "\"file_pages\": {\"1\": 10}}") != std::string::npos);
  CHECK(json.find("\"mem_policy\": \"default\"") != std::string::npos);
  CHECK(json.find("{\"tid\": 103, \"comm\": \"worker\", \"cpus\": \"2\", \"last_cpu\": 2, \"last_cpu_stale\": false, "
                  "\"last_node\": 1}") !=
        std::string::npos);
  CHECK(format_show_json({}) == "[]\n");
}

TEST_CASE("--pinned lists processes with a narrower thread, kernel threads apart") {
  TempRoot root;
  machine(root);
  root.write("proc/self/stat", stat_line(1, "x", 0));  // not a number: not scanned
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  auto allowed = [](pid_t) -> std::optional<CpuSet> { return CpuSet::range(0, 3); };
  auto pinned = find_pinned(sys, nodes, allowed);
  REQUIRE(pinned.size() == 1);
  CHECK(pinned[0].pid == 100);
  CHECK(format_pinned_text(pinned) ==
        "PID  COMM    ALLOWED  PINNED THREADS\n"
        "100  server  0-3      2: 101-103\n");
  CHECK(format_show_json(pinned).find("\"allowed\": \"0-3\"") != std::string::npos);
  // A process allowed only CPU 2 is not pinned by running there.
  auto narrow = [](pid_t pid) -> std::optional<CpuSet> {
    if (pid == 100) return CpuSet::range(2, 2);
    return CpuSet::range(0, 3);
  };
  CHECK(find_pinned(sys, nodes, narrow).empty());
  // Unknown allowed sets are skipped.
  CHECK(find_pinned(sys, nodes, [](pid_t) -> std::optional<CpuSet> { return std::nullopt; }).empty());
}

TEST_CASE("show: names are data, escaped in text and valid UTF-8 in JSON") {
  TempRoot root;
  machine(root);
  // A main thread that clears the screen, sets the terminal's title and
  // breaks the line; a thread whose name is not UTF-8; one with a printable
  // UTF-8 name (kept, and counted as one cell per character).
  root.write("proc/400/stat", stat_line(400, "\x1b[2J\x1b]0;pwn\a\n", 0));
  root.write("proc/400/status", status("0-3"));
  add_thread(root, 400, 400, "\x1b[2J\x1b]0;pwn\a\n", "0-3", 0);
  add_thread(root, 400, 401, "\xff", "1", 1);
  add_thread(root, 400, 402, "caf\xc3\xa9", "2", 2);
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  auto v = read_process(sys, nodes, 400);
  CHECK(format_show_text({v}) ==
        "400 \\e[2J\\e]0;pwn\\x07\\n  cpus 0-3 (mixed)  cpuset nodes 0-1  mem policy unknown  pages unknown\n"
        "  CPUS  THREADS  TIDS  LAST CPUS  NODES  COMM\n"
        "  0-3   1        400   0          0      \\e[2J\\e]0;pwn\\x07\\n\n"
        "  1     1        401   1          0      \\xff\n"
        "  2     1        402   2          1      caf\xc3\xa9\n");
  auto allowed = [](pid_t) -> std::optional<CpuSet> { return CpuSet::range(0, 3); };
  auto pinned = find_pinned(sys, nodes, allowed);
  REQUIRE(pinned.size() == 2);
  CHECK(format_pinned_text(pinned) ==
        "PID  COMM                 ALLOWED  PINNED THREADS\n"
        "100  server               0-3      2: 101-103\n"
        "400  \\e[2J\\e]0;pwn\\x07\\n  0-3      1: 401; 2: 402\n");
  // A printable UTF-8 name takes one cell per character: the columns stay aligned.
  root.write("proc/600/stat", stat_line(600, "caf\xc3\xa9", 0));
  root.write("proc/600/status", status("0-3"));
  add_thread(root, 600, 600, "caf\xc3\xa9", "3", 3);
  CHECK(format_pinned_text(find_pinned(sys, nodes, allowed)) ==
        "PID  COMM                 ALLOWED  PINNED THREADS\n"
        "100  server               0-3      2: 101-103\n"
        "400  \\e[2J\\e]0;pwn\\x07\\n  0-3      1: 401; 2: 402\n"
        "600  caf\xc3\xa9                 0-3      3: 600\n");
  CHECK(format_show_json({v}) ==
        "[{\"pid\": 400, \"comm\": \"\\u001b[2J\\u001b]0;pwn\\u0007\\n\", \"cpus\": \"0-3\", \"mems\": \"0-1\", "
        "\"mem_policy\": null, \"threads\": ["
        "{\"tid\": 400, \"comm\": \"\\u001b[2J\\u001b]0;pwn\\u0007\\n\", \"cpus\": \"0-3\", \"last_cpu\": 0, \"last_cpu_stale\": false, "
        "\"last_node\": 0}, "
        "{\"tid\": 401, \"comm\": \"\xef\xbf\xbd\", \"cpus\": \"1\", \"last_cpu\": 1, \"last_cpu_stale\": false, \"last_node\": 0}, "
        "{\"tid\": 402, \"comm\": \"caf\xc3\xa9\", \"cpus\": \"2\", \"last_cpu\": 2, \"last_cpu_stale\": false, \"last_node\": 1}], "
        "\"memory_pages\": null, \"anon_pages\": null, \"file_pages\": null}]\n");
}

TEST_CASE("show: the TIDS column is capped, the header's cpus are the threads' union") {
  TempRoot root;
  machine(root);
  // 60 threads on 0-1 with every other TID (no ranges), one on 2-3.
  root.write("proc/500/stat", stat_line(500, "many", 0));
  root.write("proc/500/status", status("0-1"));
  for (pid_t tid = 500; tid < 620; tid += 2) add_thread(root, 500, tid, "many", "0-1", 0);
  add_thread(root, 500, 1000, "odd", "2-3", 3);
  root.write("proc/500/numa_maps", "1000 bind:1 anon=9 N1=9\n2000 default N0=3\n3000 interleave:0-1 N0=4 N1=4\n");
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  auto v = read_process(sys, nodes, 500);
  CHECK(format_show_text({v}) ==
        "500 many  cpus 0-3 (mixed)  cpuset nodes 0-1  mem policy bind:1  anon 0:7 1:13; file none\n"
        "  CPUS  THREADS  TIDS                                  LAST CPUS  NODES  COMM\n"
        "  0-1   60       500,502,504,506,508,510,512 +53 more  0          0      many\n"
        "  2-3   1        1000                                  3          1      odd\n");
  // JSON has every TID, the union and the policy.
  std::string json = format_show_json({v});
  CHECK(json.find("\"cpus\": \"0-3\", \"mems\": \"0-1\", \"mem_policy\": \"bind:1\"") != std::string::npos);
  CHECK(json.find("\"tid\": 618,") != std::string::npos);
  CHECK(json.find("more") == std::string::npos);
}

TEST_CASE("show: a last CPU outside the thread's list is marked stale") {
  TempRoot root;
  machine(root);
  // Pinned to 1 and 3 while asleep on 0 and 2: not run since; one that ran
  // on 3 after the pin.
  root.write("proc/700/stat", stat_line(700, "sleeper", 0));
  root.write("proc/700/status", status("1,3"));
  add_thread(root, 700, 700, "sleeper", "1,3", 0);
  add_thread(root, 700, 701, "sleeper", "1,3", 2);
  add_thread(root, 700, 702, "sleeper", "1,3", 3);
  add_thread(root, 700, 703, "other", "0-3", 1);
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  auto v = read_process(sys, nodes, 700);
  CHECK(v.threads[0].last_cpu_stale());
  CHECK_FALSE(v.threads[2].last_cpu_stale());
  CHECK(format_show_text({v}) ==
        "700 sleeper  cpus 0-3 (mixed)  cpuset nodes 0-1  mem policy unknown  pages unknown\n"
        "  CPUS  THREADS  TIDS     LAST CPUS  NODES  COMM\n"
        "  1,3   3        700-702  0*,2*,3    0-1    sleeper\n"
        "  0-3   1        703      1          0      other\n");
  std::string json = format_show_json({v});
  CHECK(json.find("{\"tid\": 700, \"comm\": \"sleeper\", \"cpus\": \"1,3\", \"last_cpu\": 0, \"last_cpu_stale\": true, ") !=
        std::string::npos);
  CHECK(json.find("{\"tid\": 702, \"comm\": \"sleeper\", \"cpus\": \"1,3\", \"last_cpu\": 3, \"last_cpu_stale\": false, ") !=
        std::string::npos);
}
