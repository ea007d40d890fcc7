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
        "[{\"pid\": 200, \"ppid\": 1, \"comm\": \"idle\", \"cmdline\": null, \"cpus\": \"0-3\", \"mems\": \"0-1\", \"mem_policy\": null, \"threads\": "
        "[{\"tid\": 200, \"comm\": \"idle\", \"cpus\": \"0-3\", \"last_cpu\": 1, \"last_cpu_stale\": false, \"last_node\": 0, \"sched\": null}], "
        "\"memory_pages\": null, \"anon_pages\": null, \"file_pages\": null}]\n");
  auto v = read_process(sys, nodes, 100);
  std::string json = format_show_json({v});
  CHECK(json.find("\"memory_pages\": {\"0\": 4, \"1\": 11}, \"anon_pages\": {\"0\": 4, \"1\": 1}, "
                  "\"file_pages\": {\"1\": 10}}") != std::string::npos);
  CHECK(json.find("\"mem_policy\": \"default\"") != std::string::npos);
  CHECK(json.find("{\"tid\": 103, \"comm\": \"worker\", \"cpus\": \"2\", \"last_cpu\": 2, \"last_cpu_stale\": false, "
                  "\"last_node\": 1, \"sched\": null}") !=
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
        "PID  COMM    ALLOWED  PINNED THREADS  CMD\n"
        "100  server  0-3      2: 101-103      -\n");
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
        "PID  COMM                 ALLOWED  PINNED THREADS  CMD\n"
        "100  server               0-3      2: 101-103      -\n"
        "400  \\e[2J\\e]0;pwn\\x07\\n  0-3      1: 401; 2: 402  -\n");
  // A printable UTF-8 name takes one cell per character: the columns stay aligned.
  root.write("proc/600/stat", stat_line(600, "caf\xc3\xa9", 0));
  root.write("proc/600/status", status("0-3"));
  add_thread(root, 600, 600, "caf\xc3\xa9", "3", 3);
  CHECK(format_pinned_text(find_pinned(sys, nodes, allowed)) ==
        "PID  COMM                 ALLOWED  PINNED THREADS  CMD\n"
        "100  server               0-3      2: 101-103      -\n"
        "400  \\e[2J\\e]0;pwn\\x07\\n  0-3      1: 401; 2: 402  -\n"
        "600  caf\xc3\xa9                 0-3      3: 600          -\n");
  CHECK(format_show_json({v}) ==
        "[{\"pid\": 400, \"ppid\": 1, \"comm\": \"\\u001b[2J\\u001b]0;pwn\\u0007\\n\", \"cmdline\": null, \"cpus\": \"0-3\", \"mems\": \"0-1\", "
        "\"mem_policy\": null, \"threads\": ["
        "{\"tid\": 400, \"comm\": \"\\u001b[2J\\u001b]0;pwn\\u0007\\n\", \"cpus\": \"0-3\", \"last_cpu\": 0, \"last_cpu_stale\": false, "
        "\"last_node\": 0, \"sched\": null}, "
        "{\"tid\": 401, \"comm\": \"\xef\xbf\xbd\", \"cpus\": \"1\", \"last_cpu\": 1, \"last_cpu_stale\": false, \"last_node\": 0, \"sched\": null}, "
        "{\"tid\": 402, \"comm\": \"caf\xc3\xa9\", \"cpus\": \"2\", \"last_cpu\": 2, \"last_cpu_stale\": false, \"last_node\": 1, \"sched\": null}], "
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

namespace {

std::string tree_stat(pid_t id, const std::string& comm, pid_t ppid, int last_cpu, char state = 'S') {
  return fmt::format("{} ({}) {} {} {} {} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 {} 0 0\n",
                     id, comm, state, ppid, id, id, last_cpu);
}

// A process of one thread (TID = PID) with a command line (nullopt: no
// cmdline file) and its main thread's children file (nullopt: none).
void add_process(TempRoot& root, pid_t pid, const std::string& comm, pid_t ppid, const std::string& cpus, int last_cpu,
                 std::optional<std::string> cmdline, std::optional<std::string> children, char state = 'S') {
  root.write(fmt::format("proc/{}/stat", pid), tree_stat(pid, comm, ppid, last_cpu, state));
  root.write(fmt::format("proc/{}/status", pid), status(cpus));
  root.write(fmt::format("proc/{}/task/{}/stat", pid, pid), tree_stat(pid, comm, ppid, last_cpu, state));
  root.write(fmt::format("proc/{}/task/{}/status", pid, pid), status(cpus));
  if (cmdline) root.write(fmt::format("proc/{}/cmdline", pid), *cmdline);
  if (children) root.write(fmt::format("proc/{}/task/{}/children", pid, pid), *children);
}

using namespace std::string_literals;

// On machine()'s two nodes, three levels:
//   10 sh (threads 10 and 15: each has a child)
//     11 worker
//     12 sup
//       13 leaf: its arguments hold ESC, a new line and a byte that is not UTF-8
//       14 gone: a zombie (no arguments left)
void tree(TempRoot& root) {
  machine(root);
  add_process(root, 10, "sh", 1, "0-3", 0, "sh\0-c\0run\0"s, "11 ");
  add_thread(root, 10, 15, "sh", "0-3", 0);
  root.write("proc/10/task/15/children", "12 ");
  add_process(root, 11, "worker", 10, "2", 2, "worker\0--id\0001\0"s, "");
  add_process(root, 12, "sup", 10, "0-3", 1, "sup\0"s, "13 14 ");
  add_process(root, 13, "leaf", 12, "0-3", 3, "le\x1b[1maf\0a\nb\0\xff\0"s, "");
  add_process(root, 14, "gone", 12, "0-3", 0, ""s, "", 'Z');
}

const char* const k_tree_text =
    "10 sh  cpus 0-3  cpuset nodes 0-1  mem policy unknown  pages unknown\n"
    "  cmd sh -c run\n"
    "  CPUS  THREADS  TIDS   LAST CPUS  NODES  COMM\n"
    "  0-3   2        10,15  0          0      sh\n"
    "  11 worker  cpus 2  cpuset nodes 0-1  mem policy unknown  pages unknown\n"
    "    cmd worker --id 1\n"
    "    CPUS  THREADS  TIDS  LAST CPUS  NODES  COMM\n"
    "    2     1        11    2          1      worker\n"
    "  12 sup  cpus 0-3  cpuset nodes 0-1  mem policy unknown  pages unknown\n"
    "    cmd sup\n"
    "    CPUS  THREADS  TIDS  LAST CPUS  NODES  COMM\n"
    "    0-3   1        12    1          0      sup\n"
    "    13 leaf  cpus 0-3  cpuset nodes 0-1  mem policy unknown  pages unknown\n"
    "      cmd le\\e[1maf a\\nb \\xff\n"
    "      CPUS  THREADS  TIDS  LAST CPUS  NODES  COMM\n"
    "      0-3   1        13    3          1      leaf\n"
    "    14 gone  cpus 0-3  cpuset nodes 0-1  mem policy unknown  pages unknown\n"
    "      cmd [gone] <defunct>\n"
    "      CPUS  THREADS  TIDS  LAST CPUS  NODES  COMM\n"
    "      0-3   1        14    0          0      gone\n";

std::vector<pid_t> pids_of(const std::vector<ProcessView>& views) {
  std::vector<pid_t> out;
  for (const auto& v : views) out.push_back(v.pid);
  return out;
}

std::vector<unsigned> depths_of(const std::vector<ProcessView>& views) {
  std::vector<unsigned> out;
  for (const auto& v : views) out.push_back(v.depth);
  return out;
}

}  // namespace

TEST_CASE("show: the command line, joined as ps joins it, bounded") {
  CHECK(join_cmdline("nginx\0-g\0daemon off;\0"s, false) == "nginx -g daemon off;");
  // A rewritten title, padded with NULs (nginx's workers); an empty argument.
  CHECK(join_cmdline("nginx: worker process\0\0\0\0"s, false) == "nginx: worker process");
  CHECK(join_cmdline("a\0\0b\0"s, false) == "a  b");
  CHECK(join_cmdline("", false).empty());
  // Cut: marked, never inside a UTF-8 character.
  CHECK(join_cmdline("ab\0cd"s, true) == "ab cd...");
  CHECK(join_cmdline("ab\xc3", true) == "ab...");
  CHECK(join_cmdline("ab\xe2\x82", true) == "ab...");
  CHECK(join_cmdline("ab\xe2\x82\xac", true) == "ab\xe2\x82\xac...");
  CHECK(join_cmdline("ab\xff", true) == "ab\xff...");

  TempRoot root;
  machine(root);
  std::string huge = "java";
  while (huge.size() < 10000) huge += "\0-Dprop=value"s;
  root.write("proc/200/cmdline", huge + '\0');
  SysRoot sys(root.path());
  auto cmd = read_cmdline(sys, 200);
  REQUIRE(cmd);
  CHECK(cmd->size() == k_max_cmdline + 3);
  CHECK(cmd->substr(0, 18) == "java -Dprop=value ");
  CHECK(cmd->substr(cmd->size() - 3) == "...");
  CHECK_FALSE(read_cmdline(sys, 100));  // no cmdline file: unknown
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  auto v = read_process(sys, nodes, 200);
  // Text: cut after 80 columns ('+'); JSON: all that was read.
  auto second_line = [](const std::string& text) {
    auto start = text.find('\n') + 1;
    return text.substr(start, text.find('\n', start) - start);
  };
  CHECK(second_line(format_show_text({v})) ==
        "  cmd java -Dprop=value -Dprop=value -Dprop=value -Dprop=value -Dprop=value -Dprop=va+");
  CHECK(format_show_json({v}).find("\"cmdline\": \"" + *cmd + "\"") != std::string::npos);
  // A kernel thread: no arguments; "[comm]" as ps shows it, "" in JSON.
  root.write("proc/300/cmdline", "");
  auto k = read_process(sys, nodes, 300);
  CHECK(format_show_text({k}) ==
        "300 kworker/1:0  cpus 1  cpuset nodes 0-1  mem policy unknown  pages unknown\n"
        "  cmd [kworker/1:0]\n"
        "  CPUS  THREADS  TIDS  LAST CPUS  NODES  COMM\n"
        "  1     1        300   1          0      kworker/1:0\n");
  // A cmdline that fits in 80 columns by its characters, not its bytes: whole.
  std::string wide;
  for (int i = 0; i < 40; ++i) wide += "\xc3\xa9";
  root.write("proc/200/cmdline", wide);
  CHECK(second_line(format_show_text({read_process(sys, nodes, 200)})) == "  cmd " + wide);
  CHECK(format_show_json({k}).find("\"comm\": \"kworker/1:0\", \"cmdline\": \"\", ") != std::string::npos);
}

TEST_CASE("show --tree: each process followed by its descendants, indented") {
  TempRoot root;
  tree(root);
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  auto views = read_process_tree(sys, nodes, 10);
  CHECK(pids_of(views) == std::vector<pid_t>{10, 11, 12, 13, 14});
  CHECK(depths_of(views) == std::vector<unsigned>{0, 1, 1, 2, 2});
  CHECK(format_show_text(views) == k_tree_text);
  auto leaf = [](pid_t pid, const std::string& comm, pid_t ppid, const std::string& cmdline, const std::string& cpus,
                 int last_cpu, int last_node, const std::string& children) {
    return fmt::format("{{\"pid\": {0}, \"ppid\": {2}, \"comm\": \"{1}\", \"cmdline\": \"{3}\", \"cpus\": \"{4}\", "
                       "\"mems\": \"0-1\", \"mem_policy\": null, \"threads\": [{{\"tid\": {0}, \"comm\": \"{1}\", "
                       "\"cpus\": \"{4}\", \"last_cpu\": {5}, \"last_cpu_stale\": false, \"last_node\": {6}, \"sched\": null}}], "
                       "\"memory_pages\": null, \"anon_pages\": null, \"file_pages\": null, \"children\": [{7}]}}",
                       pid, comm, ppid, cmdline, cpus, last_cpu, last_node, children);
  };
  std::string sup = leaf(12, "sup", 10, "sup", "0-3", 1, 0,
                         leaf(13, "leaf", 12, "le\\u001b[1maf a\\nb \xef\xbf\xbd", "0-3", 3, 1, "") + ", " +
                             leaf(14, "gone", 12, "", "0-3", 0, 0, ""));
  std::string json =
      "[{\"pid\": 10, \"ppid\": 1, \"comm\": \"sh\", \"cmdline\": \"sh -c run\", \"cpus\": \"0-3\", \"mems\": \"0-1\", "
      "\"mem_policy\": null, \"threads\": ["
      "{\"tid\": 10, \"comm\": \"sh\", \"cpus\": \"0-3\", \"last_cpu\": 0, \"last_cpu_stale\": false, \"last_node\": 0, \"sched\": null}, "
      "{\"tid\": 15, \"comm\": \"sh\", \"cpus\": \"0-3\", \"last_cpu\": 0, \"last_cpu_stale\": false, \"last_node\": 0, \"sched\": null}], "
      "\"memory_pages\": null, \"anon_pages\": null, \"file_pages\": null, \"children\": [" +
      leaf(11, "worker", 10, "worker --id 1", "2", 2, 1, "") + ", " + sup + "]}]\n";
  CHECK(format_show_json(views, true) == json);
  // Without --tree no "children"; a subtree named on its own is one of depth 0.
  CHECK(format_show_json(views).find("children") == std::string::npos);
  auto both = read_process_tree(sys, nodes, 12);
  auto eleven = read_process_tree(sys, nodes, 11);
  both.insert(both.end(), eleven.begin(), eleven.end());
  CHECK(format_show_json(both, true) == "[" + sup + ", " + leaf(11, "worker", 10, "worker --id 1", "2", 2, 1, "") + "]\n");
  CHECK(format_show_json({}, true) == "[]\n");
  // --pinned has the command line last.
  eleven[0].allowed = CpuSet::range(0, 3);
  CHECK(format_pinned_text(eleven) ==
        "PID  COMM    ALLOWED  PINNED THREADS  CMD\n"
        "11   worker  0-3      2: 11           worker --id 1\n");
}

TEST_CASE("show --tree: children by their parent where the children files cannot be trusted") {
  TempRoot root;
  tree(root);
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  CHECK(read_children(sys, 10) == std::vector<pid_t>{11, 12});
  CHECK(read_children(sys, 999) == std::vector<pid_t>{});  // gone: none
  // A thread without a children file (no CONFIG_PROC_CHILDREN, a capture).
  root.remove("proc/10/task/15/children");
  CHECK_FALSE(read_children(sys, 10));
  CHECK(format_show_text(read_process_tree(sys, nodes, 10)) == k_tree_text);
  // A child listed that is gone by the check: the walk may have skipped one.
  root.write("proc/12/task/12/children", "13 14 99 ");
  CHECK_FALSE(read_children(sys, 12));
  // Too long for one read: each read resumes by position.
  std::string many;
  while (many.size() < 4096) many += "11 ";
  root.write("proc/11/task/11/children", many);
  CHECK_FALSE(read_children(sys, 11));
  CHECK(format_show_text(read_process_tree(sys, nodes, 10)) == k_tree_text);
}

TEST_CASE("show --tree: a PID shown once, a reused one left out, parents that loop end") {
  TempRoot root;
  tree(root);
  // 11's children file names 20, whose parent is another process by the
  // time it is read (the child exited, its PID went on); 12 names 10, the
  // root itself (a reused PID).
  add_process(root, 20, "other", 1, "0-3", 0, "other\0"s, "");
  root.write("proc/11/task/11/children", "20 ");
  root.write("proc/12/task/12/children", "10 13 14 ");
  SysRoot sys(root.path());
  std::vector<NodeInfo> nodes = read_node_cpus(sys);
  CHECK(pids_of(read_process_tree(sys, nodes, 10)) == std::vector<pid_t>{10, 11, 12, 13, 14});
  // Parents that loop (a captured root; no children files): each shown once.
  add_process(root, 30, "a", 31, "0-3", 0, "a\0"s, std::nullopt);
  add_process(root, 31, "b", 30, "0-3", 0, "b\0"s, std::nullopt);
  auto loop = read_process_tree(sys, nodes, 30);
  CHECK(pids_of(loop) == std::vector<pid_t>{30, 31});
  CHECK(depths_of(loop) == std::vector<unsigned>{0, 1});
  // A descendant gone while read is left out with its own.
  std::filesystem::remove_all(root.path() + "/proc/12");
  CHECK(pids_of(read_process_tree(sys, nodes, 10)) == std::vector<pid_t>{10, 11});
  CHECK_THROWS_WITH(read_process_tree(sys, nodes, 12), "no such process: 12");
}
