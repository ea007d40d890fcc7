#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "error.hpp"
#include "fake_root.hpp"
#include "process_view.hpp"
#include "show_output.hpp"

using namespace affix;
using affix::test::FakeRoot;

namespace {

std::string stat_line(pid_t id, const std::string& comm, int last_cpu, unsigned long flags = 4194560) {
  return fmt::format("{} ({}) S 1 {} {} 0 -1 {} 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 {} 0 0\n",
                     id, comm, id, id, flags, last_cpu);
}

std::string status(const std::string& cpus, const std::string& mems = "0-1") {
  return "Name:\tx\nCpus_allowed_list:\t" + cpus + "\nMems_allowed_list:\t" + mems + "\n";
}

void add_thread(FakeRoot& root, pid_t pid, pid_t tid, const std::string& comm, const std::string& cpus,
                int last_cpu) {
  root.write(fmt::format("proc/{}/task/{}/stat", pid, tid), stat_line(tid, comm, last_cpu));
  root.write(fmt::format("proc/{}/task/{}/status", pid, tid), status(cpus));
}

// A two-node machine (CPUs 0-1 node 0, 2-3 node 1) with:
//   100 "server": 100 on 0-3, 101-103 "worker" on 2, 104 "io" on 0-3
//   200 "idle":   200 on 0-3
//   300 a kernel thread on 1
void machine(FakeRoot& root) {
  root.write("sys/devices/system/node/node0/cpulist", "0-1\n");
  root.write("sys/devices/system/node/node1/cpulist", "2-3\n");
  root.write("proc/100/stat", stat_line(100, "server", 3));
  root.write("proc/100/status", status("0-3"));
  root.write("proc/100/numa_maps", "1000 default anon=5 N0=4 N1=1\n2000 default N1=10\n");
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
  FakeRoot root;
  machine(root);
  SysRoot sys(root.path());
  CpuNodes nodes(sys);
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
  // Without numa_maps the pages are unknown; a thread whose files are gone is left out.
  std::filesystem::remove(root.path() + "/proc/100/numa_maps");
  std::filesystem::remove_all(root.path() + "/proc/100/task/102");
  root.write("proc/100/task/103/stat", "");  // vanished mid-read: the directory stays, empty
  std::filesystem::remove(root.path() + "/proc/100/task/103/stat");
  auto w = read_process(sys, nodes, 100);
  CHECK_FALSE(w.pages);
  CHECK(w.threads.size() == 3);
}

TEST_CASE("a process that does not exist or vanishes is a clean error") {
  FakeRoot root;
  machine(root);
  SysRoot sys(root.path());
  CpuNodes nodes(sys);
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
  FakeRoot root;
  machine(root);
  SysRoot sys(root.path());
  CpuNodes nodes(sys);
  CHECK(format_show_text({read_process(sys, nodes, 100), read_process(sys, nodes, 200)}) ==
        "100 server  cpus 0-3  mems 0-1  pages 0:4 1:11\n"
        "  CPUS  THREADS  TIDS     LAST CPUS  NODES  COMM\n"
        "  0-3   2        100,104  0,3        0-1    io,server\n"
        "  2     3        101-103  2          1      worker\n"
        "200 idle  cpus 0-3  mems 0-1  pages unknown\n"
        "  CPUS  THREADS  TIDS  LAST CPUS  NODES  COMM\n"
        "  0-3   1        200   1          0      idle\n");
}

TEST_CASE("show JSON carries the contract's fields") {
  FakeRoot root;
  machine(root);
  SysRoot sys(root.path());
  CpuNodes nodes(sys);
  CHECK(format_show_json({read_process(sys, nodes, 200)}) ==
        "[{\"pid\": 200, \"comm\": \"idle\", \"cpus\": \"0-3\", \"mems\": \"0-1\", \"threads\": "
        "[{\"tid\": 200, \"comm\": \"idle\", \"cpus\": \"0-3\", \"last_cpu\": 1, \"last_node\": 0}], "
        "\"memory_pages\": null}]\n");
  auto v = read_process(sys, nodes, 100);
  std::string json = format_show_json({v});
  CHECK(json.find("\"memory_pages\": {\"0\": 4, \"1\": 11}") != std::string::npos);
  CHECK(json.find("{\"tid\": 103, \"comm\": \"worker\", \"cpus\": \"2\", \"last_cpu\": 2, \"last_node\": 1}") !=
        std::string::npos);
  CHECK(format_show_json({}) == "[]\n");
}

TEST_CASE("--pinned lists processes with a narrower thread, kernel threads apart") {
  FakeRoot root;
  machine(root);
  root.write("proc/self/stat", stat_line(1, "x", 0));  // not a number: not scanned
  SysRoot sys(root.path());
  CpuNodes nodes(sys);
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
