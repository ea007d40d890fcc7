// show: each thread's scheduling policy, as the kernel reads it back
// (process_view.hpp, SchedLookup): from sched_getattr on this machine, from
// /proc/PID/task/TID/sched in a captured root, in the POLICY column and the
// "sched" object of JSON.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "fake_os.hpp"
#include "process_view.hpp"
#include "root_builders.hpp"
#include "show_output.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::TempRoot;

namespace {

void add_thread(TempRoot& root, pid_t pid, pid_t tid, const std::string& cpus, const std::string& sched) {
  root.write(fmt::format("proc/{}/task/{}/stat", pid, tid),
             fmt::format("{} (w) S 1 {} {} 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 "
                         "0 0 0\n", tid, pid, pid));
  root.write(fmt::format("proc/{}/task/{}/status", pid, tid),
             "Name:\tw\nCpus_allowed_list:\t" + cpus + "\nMems_allowed_list:\t0\n");
  if (!sched.empty()) root.write(fmt::format("proc/{}/task/{}/sched", pid, tid), sched);
}

void process(TempRoot& root) {
  write_node(root, 0, "0-3");
  root.write("proc/10/stat", "10 (w) S 1 10 10 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
                             "0 17 0 0 0\n");
  root.write("proc/10/status", "Name:\tw\nCpus_allowed_list:\t0-3\nMems_allowed_list:\t0\n");
  add_thread(root, 10, 10, "0-3", "policy : 0\nprio : 120\nse.slice : 3000000\n");
  add_thread(root, 10, 11, "0-1", "policy : 1\nprio : 49\n");
  add_thread(root, 10, 12, "0-1", "policy : 1\nprio : 49\n");
  add_thread(root, 10, 13, "0-1", "policy : 3\nprio : 125\nse.slice : 1000000\n");
  add_thread(root, 10, 14, "0-1", "");  // no sched file: unknown
}

}  // namespace

TEST_CASE("show: the threads' policies from a captured root's sched files") {
  TempRoot root;
  process(root);
  SysRoot sys(root.path());
  auto nodes = read_node_cpus(sys);
  auto v = read_process(sys, nodes, 10, sched_lookup(sys, nullptr));
  CHECK(format_show_text({v}) ==
        "10 w  cpus 0-3 (mixed)  cpuset nodes 0  mem policy unknown  pages unknown\n"
        "  CPUS  THREADS  TIDS   LAST CPUS  NODES  POLICY                  COMM\n"
        "  0-3   1        10     0          0      other slice 3ms         w\n"
        "  0-1   2        11-12  0          0      fifo:50                 w\n"
        "  0-1   1        13     0          0      batch nice 5 slice 1ms  w\n"
        "  0-1   1        14     0          0      -                       w\n");
  std::string json = format_show_json({v});
  CHECK(json.find("\"tid\": 11, \"comm\": \"w\", \"cpus\": \"0-1\", \"last_cpu\": 0, \"last_cpu_stale\": false, "
                  "\"last_node\": 0, \"sched\": {\"policy\": \"fifo\", \"priority\": 50, \"nice\": null, \"slice_ns\": "
                  "null, \"runtime_ns\": null, \"deadline_ns\": null, \"period_ns\": null, \"uclamp\": null, \"text\": "
                  "\"fifo:50\"}}") != std::string::npos);
  CHECK(json.find("\"sched\": {\"policy\": \"batch\", \"priority\": null, \"nice\": 5, \"slice_ns\": 1000000, ") !=
        std::string::npos);
  CHECK(json.find("\"tid\": 14, \"comm\": \"w\", \"cpus\": \"0-1\", \"last_cpu\": 0, \"last_cpu_stale\": false, "
                  "\"last_node\": 0, \"sched\": null}") != std::string::npos);
  // Without a lookup (--pinned's scan before it knows), no column.
  CHECK(format_show_text({read_process(sys, nodes, 10)}).find("POLICY") == std::string::npos);
}

TEST_CASE("show: on this machine the kernel's own answer (sched_getattr), deadline times included") {
  TempRoot root;
  process(root);
  SysRoot sys(root.path());
  affix::test::FakeOs os;
  os.default_affinity = CpuSet::range(0, 3);
  SchedAttr dl;
  dl.policy = SchedPolicy::Deadline;
  dl.runtime_ns = 2000000;
  dl.deadline_ns = dl.period_ns = 10000000;
  os.sched[11] = dl;
  os.get_sched_errors[12] = EPERM;  // refused: the sched file answers
  auto v = read_process(sys, read_node_cpus(sys), 10, sched_lookup(sys, &os));
  CHECK(sched_attr_text(*v.threads[0].sched) == "other");  // the fake's own answer, not the file's
  CHECK(sched_attr_text(*v.threads[1].sched) == "deadline:2ms/10ms/10ms");
  CHECK(sched_attr_text(*v.threads[2].sched) == "fifo:50");
  CHECK(format_show_json({v}).find("\"sched\": {\"policy\": \"deadline\", \"priority\": null, \"nice\": null, "
                                   "\"slice_ns\": null, \"runtime_ns\": 2000000, \"deadline_ns\": 10000000, "
                                   "\"period_ns\": 10000000, \"uclamp\": null, \"text\": "
                                   "\"deadline:2ms/10ms/10ms\"}") != std::string::npos);
}
