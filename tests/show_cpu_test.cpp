// show --cpu LIST (cpu_view.hpp): which threads may run on the CPUs and
// which ran there, classified on a fake /proc tree (pinned, bound kernel
// threads, unpinned counted per process), and the IRQs delivered there
// from /proc/irq/N/effective_affinity_list.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "corpus.hpp"
#include "cpu_view.hpp"
#include "near.hpp"
#include "temp_root.hpp"
#include "topology.hpp"

using namespace affix;
using affix::test::TempRoot;

namespace {

constexpr unsigned long k_user = 0x400100;
constexpr unsigned long k_kernel = 0x208040;            // PF_KTHREAD
constexpr unsigned long k_kernel_bound = 0x4208040;     // PF_KTHREAD | PF_NO_SETAFFINITY

std::string stat_line(pid_t id, const std::string& comm, int last_cpu, unsigned long flags) {
  return fmt::format("{} ({}) S 1 {} {} 0 -1 {} 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 {} 0 0\n",
                     id, comm, id, id, flags, last_cpu);
}

void add_thread(TempRoot& root, pid_t pid, pid_t tid, const std::string& comm, const std::string& cpus, int last_cpu,
                unsigned long flags = k_user) {
  if (pid == tid) root.write(fmt::format("proc/{}/stat", pid), stat_line(pid, comm, last_cpu, flags));
  root.write(fmt::format("proc/{}/task/{}/stat", pid, tid), stat_line(tid, comm, last_cpu, flags));
  root.write(fmt::format("proc/{}/task/{}/status", pid, tid),
             "Name:\tx\nCpus_allowed_list:\t" + cpus + "\nMems_allowed_list:\t0\n");
}

void irq(TempRoot& root, unsigned n, const std::string& cpus, const std::string& effective = {}) {
  root.write(fmt::format("proc/irq/{}/smp_affinity_list", n), cpus + "\n");
  if (!effective.empty()) root.write(fmt::format("proc/irq/{}/effective_affinity_list", n), effective + "\n");
}

// Four online CPUs, 0-3:
//   100 server: 100 on 0-3 (last 1), 101-102 "worker" on 1 (last 1, 0*),
//       103 "io" on 2-3
//   200 idle: 200 on 0-3 (last 3)
//   300 cpuhp/1 and 301 ksoftirqd/2: kernel threads that cannot move, on 1 and 2
//   302 irq/25-eth0: a kernel thread on 1 that can be moved
//   303 kworker/u8:0 (cannot move, but on 0-3, last 1), 304 kthreadd (0-3, last 0)
//   400 "a<TAB>b": 400 on 1-2 (last 2)
// IRQs: 24 on 0-3 delivered on 1; 25 on 1 delivered on 0; 26 on 0-1, no
// effective list; 27 on 2-3 delivered on 2.
void machine(TempRoot& root) {
  add_thread(root, 100, 100, "server", "0-3", 1);
  add_thread(root, 100, 101, "worker", "1", 1);
  add_thread(root, 100, 102, "worker", "1", 0);
  add_thread(root, 100, 103, "io", "2-3", 2);
  add_thread(root, 200, 200, "idle", "0-3", 3);
  add_thread(root, 300, 300, "cpuhp/1", "1", 1, k_kernel_bound);
  add_thread(root, 301, 301, "ksoftirqd/2", "2", 2, k_kernel_bound);
  add_thread(root, 302, 302, "irq/25-eth0", "1", 1, k_kernel);
  add_thread(root, 303, 303, "kworker/u8:0", "0-3", 1, k_kernel_bound);
  add_thread(root, 304, 304, "kthreadd", "0-3", 0, k_kernel);
  add_thread(root, 400, 400, "a\tb", "1-2", 2);
  root.write("proc/interrupts",
             "           CPU0       CPU1       CPU2       CPU3\n"
             "  24:          5         70          0          0  IO-APIC   5-edge      eth0\n"
             "  25:          0          3          0          0  IO-APIC   6-edge      eth1\n"
             "  26:          1          2          0          0  IO-APIC   4-edge      ttyS0\n"
             " NMI:          0          0          0          0   Non-maskable interrupts\n");
  irq(root, 24, "0-3", "1");
  irq(root, 25, "1", "0");
  irq(root, 26, "0-1");
  irq(root, 27, "2-3", "2");
}

CpuSet cpus(const std::string& list) { return *parse_cpulist(list).value; }

std::vector<pid_t> tids(const std::vector<CpuThread>& threads) {
  std::vector<pid_t> out;
  for (const auto& t : threads) out.push_back(t.tid);
  return out;
}

}  // namespace

TEST_CASE("show --cpu: a thread is pinned where its list lacks an online CPU, bound where the kernel also "
          "refuses to move it", "[show_cpu]") {
  CpuSet online = cpus("0-3");
  CpuThread t;
  t.cpus = cpus("0-3");
  CHECK(classify_thread(t, online) == CpuThreadKind::Unpinned);
  t.cpus = cpus("0-7");  // offline CPUs in its list: still every online one
  CHECK(classify_thread(t, online) == CpuThreadKind::Unpinned);
  t.cpus = cpus("0-2");
  CHECK(classify_thread(t, online) == CpuThreadKind::Pinned);
  t.kernel = true;
  CHECK(classify_thread(t, online) == CpuThreadKind::Pinned);  // a kernel thread that may be moved
  t.no_setaffinity = true;
  CHECK(classify_thread(t, online) == CpuThreadKind::Bound);
  t.cpus = cpus("0-3");  // an unbound kworker: it cannot move, but it is not bound there
  CHECK(classify_thread(t, online) == CpuThreadKind::Unpinned);
}

TEST_CASE("show --cpu 1 on a fake /proc: pinned first, bound kernel threads, unpinned counted, IRQs by their "
          "effective list", "[show_cpu]") {
  TempRoot root;
  machine(root);
  SysRoot sys(root.path());
  LinuxIrqOs irqs(sys);
  CpuView v = read_cpu_view(sys, irqs, cpus("1"), cpus("0-3"));
  CHECK(v.processes == 8);
  // 103 (2-3) may not run on 1; 301 is bound to 2.
  CHECK(tids(v.pinned) == std::vector<pid_t>{101, 102, 302, 400});
  CHECK(tids(v.bound) == std::vector<pid_t>{300});
  REQUIRE(v.unpinned.size() == 2);
  CHECK(v.unpinned[0].pid == 100);
  CHECK(v.unpinned[0].threads == 1);
  CHECK(v.unpinned[0].ran == std::vector<pid_t>{100});
  CHECK(v.unpinned[1].pid == 200);
  CHECK(v.unpinned[1].ran.empty());
  CHECK(v.unpinned_kernel.threads == 2);
  CHECK(v.unpinned_kernel.ran == std::vector<pid_t>{303});
  REQUIRE(v.irqs);
  REQUIRE(v.irqs->size() == 2);  // 25 may go to 1 but is delivered on 0
  CHECK((*v.irqs)[0].irq == 24);
  CHECK(format_cpulist(*(*v.irqs)[0].effective) == "1");
  CHECK((*v.irqs)[1].irq == 26);
  CHECK_FALSE((*v.irqs)[1].effective);
  REQUIRE(v.per_cpu.size() == 1);
  const CpuLine& l = v.per_cpu[0];
  CHECK(l.cpu == 1);
  CHECK(l.pinned == 4);
  CHECK(l.bound == 1);
  CHECK(l.may_run == 9);  // 100-102, 200, 300, 302-304, 400
  CHECK(l.ran == 5);      // 100, 101, 300, 302, 303
  CHECK(l.irqs == 2);

  CHECK(format_cpu_text(v) ==
        "CPUs 1 (online 0-3)\n"
        "CPU  PINNED  BOUND  MAY RUN  RAN  IRQS\n"
        "1    4       1      9        5    2\n"
        "\n"
        "Pinned threads (CPU lists narrower than the online CPUs, 0-3)\n"
        "  PID  PROCESS        CPUS  THREADS  TIDS     RAN  LAST CPUS  NAMES\n"
        "  100  server         1     2        101-102  1    0-1        worker\n"
        "  302  [irq/25-eth0]  1     1        302      1    1          irq/25-eth0\n"
        "  400  a\\tb           1-2   1        400      0    2          a\\tb\n"
        "\n"
        "Kernel threads bound there (PF_NO_SETAFFINITY: they cannot be moved)\n"
        "  CPUS  THREADS  TIDS  RAN  LAST CPUS  NAMES\n"
        "  1     1        300   1    1          cpuhp/1\n"
        "\n"
        "Unpinned threads (any online CPU), counted per process that ran there\n"
        "  PID  PROCESS           THREADS  RAN\n"
        "  100  server            1        1\n"
        "  -    [kernel threads]  2        1\n"
        "  and 1 thread of 1 process that did not run there last\n"
        "\n"
        "IRQs delivered there (effective affinity, else the CPU list)\n"
        "  IRQ  EFFECTIVE  CPUS  COUNTS  NAME\n"
        "  24   1          0-3   1:70    eth0\n"
        "  26   -          0-1   1:2     ttyS0\n");

  CHECK(format_cpu_json(v) ==
        R"({"cpus": "1", "online": "0-3", "processes": 8, )"
        R"("per_cpu": [{"cpu": 1, "pinned": 4, "bound": 1, "may_run": 9, "ran": 5, "irqs": 2}], )"
        R"("pinned": [)"
        R"({"pid": 100, "tid": 101, "comm": "worker", "process": "server", "cpus": "1", "last_cpu": 1, "ran": true, "kernel": false}, )"
        R"({"pid": 100, "tid": 102, "comm": "worker", "process": "server", "cpus": "1", "last_cpu": 0, "ran": false, "kernel": false}, )"
        R"({"pid": 302, "tid": 302, "comm": "irq/25-eth0", "process": "irq/25-eth0", "cpus": "1", "last_cpu": 1, "ran": true, "kernel": true}, )"
        R"({"pid": 400, "tid": 400, "comm": "a\tb", "process": "a\tb", "cpus": "1-2", "last_cpu": 2, "ran": false, "kernel": false}], )"
        R"("bound": [{"pid": 300, "tid": 300, "comm": "cpuhp/1", "process": "cpuhp/1", "cpus": "1", "last_cpu": 1, "ran": true}], )"
        R"("unpinned": [{"pid": 100, "process": "server", "threads": 1, "ran": 1, "ran_tids": [100]}, )"
        R"({"pid": 200, "process": "idle", "threads": 1, "ran": 0, "ran_tids": []}], )"
        R"("unpinned_kernel": {"threads": 2, "ran": 1, "ran_tids": [303]}, )"
        R"("irqs": [{"irq": 24, "actions": "eth0", "cpus": "0-3", "effective": "1", "counts": {"1": 70}}, )"
        R"({"irq": 26, "actions": "ttyS0", "cpus": "0-1", "effective": null, "counts": {"1": 2}}]})"
        "\n");
}

TEST_CASE("show --cpu 0,2: a line per CPU, bound threads per CPU list, IRQs on either", "[show_cpu]") {
  TempRoot root;
  machine(root);
  SysRoot sys(root.path());
  LinuxIrqOs irqs(sys);
  CpuView v = read_cpu_view(sys, irqs, cpus("0,2"), cpus("0-3"));
  CHECK(tids(v.pinned) == std::vector<pid_t>{103, 400});
  CHECK(tids(v.bound) == std::vector<pid_t>{301});
  REQUIRE(v.irqs);
  REQUIRE(v.irqs->size() == 3);
  CHECK((*v.irqs)[0].irq == 25);  // delivered on 0, though its list is 1
  CHECK((*v.irqs)[1].irq == 26);
  CHECK((*v.irqs)[2].irq == 27);  // no line in /proc/interrupts: no name, no counts
  CHECK((*v.irqs)[2].actions.empty());
  CHECK((*v.irqs)[2].counts.empty());
  REQUIRE(v.per_cpu.size() == 2);
  CHECK(v.per_cpu[0].cpu == 0);
  CHECK(v.per_cpu[0].may_run == 4);  // 100, 200, 303, 304
  CHECK(v.per_cpu[0].ran == 1);      // 304; 102 last ran on 0 but may not run there now: not read
  CHECK(v.per_cpu[0].irqs == 2);     // 25, 26
  CHECK(v.per_cpu[1].cpu == 2);
  CHECK(v.per_cpu[1].pinned == 2);   // 103, 400
  CHECK(v.per_cpu[1].bound == 1);    // 301
  CHECK(v.per_cpu[1].may_run == 7);  // those 3 and the 4 unpinned
  CHECK(v.per_cpu[1].ran == 3);      // 103, 301, 400
  CHECK(v.per_cpu[1].irqs == 1);
}

TEST_CASE("show --cpu on a root without processes or /proc/irq says so", "[show_cpu]") {
  TempRoot root;
  root.mkdir("proc");
  SysRoot sys(root.path());
  LinuxIrqOs irqs(sys);
  CpuView v = read_cpu_view(sys, irqs, cpus("0-1"), cpus("0-3"));
  CHECK(v.processes == 0);
  CHECK_FALSE(v.irqs);
  CHECK(format_cpu_text(v) == fmt::format("CPUs 0-1 (online 0-3)\n"
                                          "CPU  PINNED  BOUND  MAY RUN  RAN  IRQS\n"
                                          "0    -       -      -        -    -\n"
                                          "1    -       -      -        -    -\n"
                                          "\n"
                                          "Threads: none read: {0}/proc holds no process\n"
                                          "\n"
                                          "IRQs delivered there (effective affinity, else the CPU list)\n"
                                          "  unknown: {0}/proc/irq cannot be read\n",
                                          root.path()));
  CHECK(format_cpu_json(v) ==
        R"({"cpus": "0-1", "online": "0-3", "processes": 0, "per_cpu": [)"
        R"({"cpu": 0, "pinned": null, "bound": null, "may_run": null, "ran": null, "irqs": null}, )"
        R"({"cpu": 1, "pinned": null, "bound": null, "may_run": null, "ran": null, "irqs": null}], )"
        R"("pinned": [], "bound": [], "unpinned": [], "unpinned_kernel": {"threads": 0, "ran": 0, "ran_tids": []}, )"
        R"("irqs": null})"
        "\n");
}

TEST_CASE("show --cpu socket:1 on a captured machine with CPUs offline, processes added: WHERE resolved on its "
          "online CPUs, a list with offline CPUs not pinned", "[show_cpu]") {
  // 16 CPUs in 4 sockets, CPUs 2,5,13,14 offline; socket:1 is CPUs 1,5,9,13.
  TempRoot root(affix::test::corpus_root("16em64t-4s2c2t-offlines"));
  add_thread(root, 10, 10, "migration/9", "9", 9, k_kernel_bound);
  add_thread(root, 11, 11, "migration/3", "3", 3, k_kernel_bound);
  add_thread(root, 500, 500, "db", "0-15", 9);     // every CPU, offline ones too: unpinned
  add_thread(root, 500, 501, "db-io", "1,9", 1);   // socket:1's online CPUs: pinned
  add_thread(root, 600, 600, "batch", "0-7", 4);   // the first half: pinned, may run on 1
  add_thread(root, 700, 700, "web", "3-4", 3);     // not on socket 1
  irq(root, 40, "0-15", "9");
  SysRoot sys(root.path());
  Topology topo = read_topology(sys);
  PlacementRequest request;
  request.where = "socket:1";
  Placement p = resolve_on_machine(sys, request, topo, [](const std::string&) { return std::optional<std::string>(); });
  CHECK(format_cpulist(p.cpus) == "1,9");
  LinuxIrqOs irqs(sys);
  CpuView v = read_cpu_view(sys, irqs, p.cpus, topo.online);
  CHECK(format_cpu_text(v) ==
        "CPUs 1,9 (online 0-1,3-4,6-12,15)\n"
        "CPU  PINNED  BOUND  MAY RUN  RAN  IRQS\n"
        "1    2       0      3        1    0\n"
        "9    1       1      3        2    1\n"
        "\n"
        "Pinned threads (CPU lists narrower than the online CPUs, 0-1,3-4,6-12,15)\n"
        "  PID  PROCESS  CPUS  THREADS  TIDS  RAN  LAST CPUS  NAMES\n"
        "  500  db       1,9   1        501   1    1          db-io\n"
        "  600  batch    0-7   1        600   0    4          batch\n"
        "\n"
        "Kernel threads bound there (PF_NO_SETAFFINITY: they cannot be moved)\n"
        "  CPUS  THREADS  TIDS  RAN  LAST CPUS  NAMES\n"
        "  9     1        10    1    9          migration/9\n"
        "\n"
        "Unpinned threads (any online CPU), counted per process that ran there\n"
        "  PID  PROCESS  THREADS  RAN\n"
        "  500  db       1        1\n"
        "\n"
        "IRQs delivered there (effective affinity, else the CPU list)\n"
        "  IRQ  EFFECTIVE  CPUS  COUNTS  NAME\n"
        "  40   9          0-15  none    -\n");
}
