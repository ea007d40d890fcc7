// read_allowed: the cgroup cpuset (v2, v1, old /dev/cpuset), found through
// proc/PID/cgroup or proc/PID/cpuset and the mount table; else the status
// file; else, under a captured root, every online CPU.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include "corpus.hpp"
#include "error.hpp"
#include "fake_os.hpp"
#include "root_builders.hpp"
#include "temp_root.hpp"
#include "topology.hpp"

using namespace affix;
using namespace affix::test;

namespace {

Allowed allowed_of(const TempRoot& r, const std::string& pid = "self") {
  SysRoot root(r.path());
  Topology topo = read_topology(root);
  FakeAffinity lists;  // never asked: the root is not this machine's
  return read_allowed(root, topo, lists, pid);
}

const char* k_status = "Name:\tcat\nCpus_allowed:\tff\nCpus_allowed_list:\t1-3\nMems_allowed_list:\t0\n";

}  // namespace

TEST_CASE("cgroup v2: cpuset.cpus.effective, walking up where the controller is off") {
  TempRoot r;
  simple_machine(r, 8, 1);
  write_cgroup2(r, "self", "/a/b", "", "");  // the controller is off in b
  r.write("proc/self/status", k_status);
  r.write("sys/fs/cgroup/a/cpuset.cpus.effective", "2-5\n");
  r.write("sys/fs/cgroup/a/cpuset.mems.effective", "0\n");
  Allowed a = allowed_of(r);
  CHECK(format_cpulist(a.cpus) == "2-5");
  CHECK(format_cpulist(a.mems) == "0");
  CHECK(a.source == "cgroup2:/sys/fs/cgroup/a/cpuset.cpus.effective");
  CHECK(a.mems_source == "cgroup2:/sys/fs/cgroup/a/cpuset.mems.effective");
  r.write("sys/fs/cgroup/a/b/cpuset.cpus.effective", "4-9\n");  // 8-9 are not online
  a = allowed_of(r);
  CHECK(format_cpulist(a.cpus) == "4-7");
  CHECK(a.source == "cgroup2:/sys/fs/cgroup/a/b/cpuset.cpus.effective");
}

TEST_CASE("cgroup v1: cpuset.effective_cpus, the mount root taken off the path") {
  TempRoot r;
  simple_machine(r, 8, 1);
  r.write("proc/self/cgroup", "5:memory:/x\n3:cpuset,cpuacct:/jobs/42\n0::/\n");
  r.write("proc/self/mountinfo",
          "30 1 0:25 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
          "31 1 0:26 /jobs /sys/fs/cgroup/cpu\\040set rw,relatime - cgroup cgroup rw,cpuset,cpuacct\n");
  r.write("sys/fs/cgroup/cpu set/42/cpuset.effective_cpus", "0,6\n");
  r.write("sys/fs/cgroup/cpu set/42/cpuset.effective_mems", "0\n");
  Allowed a = allowed_of(r);
  CHECK(format_cpulist(a.cpus) == "0,6");
  CHECK(a.source == "cgroup1:/sys/fs/cgroup/cpu set/42/cpuset.effective_cpus");
  CHECK(a.mems_source == "cgroup1:/sys/fs/cgroup/cpu set/42/cpuset.effective_mems");
}

TEST_CASE("old cpuset mounts (noprefix, /dev/cpuset) found through proc/self/cpuset and proc/mounts") {
  SysRoot root(corpus_root("16amd64-8n2c-cpusets"));
  Topology topo = read_topology(root);
  FakeAffinity lists;
  Allowed a = read_allowed(root, topo, lists);
  CHECK(a.source == "cpuset:/dev/cpuset/dummy/cpus");
  CHECK(a.mems_source == "cpuset:/dev/cpuset/dummy/mems");
  CHECK(format_cpulist(a.cpus) == "0-3,5-6,12-15");  // 4 is offline
  CHECK(format_cpulist(a.mems) == "1-4");
  SysRoot reorder(corpus_root("16em64t-4s2ca2c-cpusetreorder"));
  Allowed b = read_allowed(reorder, read_topology(reorder), lists);
  CHECK(b.source == "cpuset:/dev/cpuset/prout/cpus");
  CHECK(format_cpulist(b.cpus) == "2-11,13");
  SysRoot fake(corpus_root("4fake-4gr1nu1pu"));
  Allowed c = read_allowed(fake, read_topology(fake), lists);
  CHECK(c.source == "cgroup1:/sys/fs/cgroup/cpuset/dummy/cpuset.cpus");  // no effective_cpus there
  CHECK(format_cpulist(c.mems) == "0,2");
}

TEST_CASE("proc/PID/cpuset alone: the path is looked up on cgroup2 mounts as well as cgroup1") {
  TempRoot r;
  simple_machine(r, 8, 1);
  r.write("proc/self/cpuset", "/jobs/7\n");
  r.write("proc/self/mountinfo", "24 1 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
  r.write("proc/self/status", k_status);
  r.write("sys/fs/cgroup/jobs/7/cpuset.cpus.effective", "4-5\n");
  r.write("sys/fs/cgroup/jobs/7/cpuset.mems.effective", "0\n");
  Allowed a = allowed_of(r);
  CHECK(format_cpulist(a.cpus) == "4-5");
  CHECK(a.source == "cgroup2:/sys/fs/cgroup/jobs/7/cpuset.cpus.effective");
}

TEST_CASE("a mount table of megabytes (a container host's) is read line by line") {
  TempRoot r;
  simple_machine(r, 8, 1);
  r.write("proc/self/cgroup", "0::/a\n");
  r.write("proc/self/status", k_status);
  std::string table;
  for (size_t i = 0; table.size() <= (5u << 20); ++i)
    table += std::to_string(100 + i) + " 1 0:" + std::to_string(i) + " / /var/lib/docker/overlay2/" +
             std::to_string(i) + "/merged rw,relatime - overlay overlay rw,lowerdir=/l" + std::to_string(i) + "\n";
  table += "99 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
  r.write("proc/self/mountinfo", table);
  r.write("sys/fs/cgroup/a/cpuset.cpus.effective", "6-7\n");
  Allowed a = allowed_of(r);
  CHECK(format_cpulist(a.cpus) == "6-7");
  CHECK(a.source == "cgroup2:/sys/fs/cgroup/a/cpuset.cpus.effective");
}

TEST_CASE("no readable cpuset: the status file; neither under a root: every online CPU") {
  TempRoot r;
  simple_machine(r, 4, 1);
  r.write("proc/self/cgroup", "0::/gone\n");
  r.write("proc/mounts", "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n");
  r.write("proc/self/status", k_status);
  Allowed a = allowed_of(r);
  CHECK(format_cpulist(a.cpus) == "1-3");
  CHECK(format_cpulist(a.mems) == "0");
  CHECK(a.source == "status:/proc/self/status");
  CHECK(a.mems_source == "status:/proc/self/status");
  r.write("proc/self/status", "Name:\tcat\nCpus_allowed_list:\t1-3\n");  // no Mems_allowed_list
  CHECK(allowed_of(r).mems_source == "all-nodes");
  r.write("proc/self/status", "Name:\tcat\n");
  a = allowed_of(r);
  CHECK(format_cpulist(a.cpus) == "0-3");
  CHECK(a.source == "all-online");
  CHECK(a.mems_source == "all-nodes");
}

TEST_CASE("no hierarchy has the cpuset controller: every online CPU, not the target's affinity") {
  // A process pinned to 1-3 (its status) where cpuset is on no hierarchy (a
  // v1 cpuset just unmounted): the kernel's top cpuset holds it, so pin may
  // move it anywhere online; its status still gives its memory nodes.
  TempRoot r;
  simple_machine(r, 4, 1);
  r.write("proc/42/cgroup", "0::/user.slice\n");
  r.write("proc/42/status", k_status);
  r.write("proc/42/mountinfo", "24 1 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n");
  r.write("sys/fs/cgroup/cgroup.controllers", "cpu io memory pids\n");
  Allowed a = allowed_of(r, "42");
  CHECK(format_cpulist(a.cpus) == "0-3");
  CHECK(a.source == "no-cpuset:/sys/fs/cgroup/cgroup.controllers");
  CHECK(format_cpulist(a.mems) == "0");
  CHECK(a.mems_source == "status:/proc/42/status");
  // The controller on v2 (the root's effective CPUs, here 0-2): the cpuset.
  r.write("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  r.write("sys/fs/cgroup/cpuset.cpus.effective", "0-2\n");
  a = allowed_of(r, "42");
  CHECK(format_cpulist(a.cpus) == "0-2");
  CHECK(a.source == "cgroup2:/sys/fs/cgroup/cpuset.cpus.effective");
  // cpuset named in cgroup.controllers but no file found: not known, the status.
  r.remove("sys/fs/cgroup/cpuset.cpus.effective");
  a = allowed_of(r, "42");
  CHECK(format_cpulist(a.cpus) == "1-3");
  CHECK(a.source == "status:/proc/42/status");
  // A v1 cpuset mounted (its files unreadable here): not "no hierarchy".
  r.write("sys/fs/cgroup/cgroup.controllers", "cpu io memory pids\n");
  r.write("proc/42/mountinfo",
          "24 1 0:22 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
          "31 1 0:26 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n");
  a = allowed_of(r, "42");
  CHECK(a.source == "status:/proc/42/status");
  // No cgroup filesystem visible at all (a container without one): the status.
  r.write("proc/42/mountinfo", "20 1 0:5 / / rw - overlay overlay rw\n");
  a = allowed_of(r, "42");
  CHECK(format_cpulist(a.cpus) == "1-3");
  CHECK(a.source == "status:/proc/42/status");
  // A v1 cpuset hierarchy unmounted but alive (it has cgroups): the target
  // in one of its cpusets is not free; in its root it is.
  r.write("proc/42/mountinfo", "24 1 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n");
  r.write("proc/42/cgroup", "3:cpuset:/affix-system\n0::/user.slice\n");
  CHECK(allowed_of(r, "42").source == "status:/proc/42/status");
  r.write("proc/42/cgroup", "3:cpuset:/\n0::/user.slice\n");
  CHECK(allowed_of(r, "42").source == "no-cpuset:/sys/fs/cgroup/cgroup.controllers");
  r.write("proc/42/cgroup", "0::/user.slice\n");
  // cgroup.controllers unreadable: not known, the status.
  r.write("proc/42/mountinfo", "24 1 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n");
  r.remove("sys/fs/cgroup/cgroup.controllers");
  CHECK(allowed_of(r, "42").source == "status:/proc/42/status");
}

TEST_CASE("a target in another mount namespace: its cgroup files through proc/PID/root (v1 and v2)") {
  TempRoot r;
  simple_machine(r, 8, 1);
  r.write("proc/self/status", k_status);
  r.mkdir("proc/self/ns");
  ::symlink("mnt:[4026531841]", (r.path() + "/proc/self/ns/mnt").c_str());
  r.mkdir("proc/42/ns");
  r.write("proc/42/status", k_status);
  r.write("proc/42/cgroup", "0::/docker/c1\n");
  // Its cgroup2 mount shows the container's cgroup at its own /sys/fs/cgroup.
  r.write("proc/42/mountinfo", "24 1 0:22 /docker/c1 /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n");
  r.write("sys/fs/cgroup/cpuset.cpus.effective", "0-7\n");  // the host's view of that path
  r.write("proc/42/root/sys/fs/cgroup/cpuset.cpus.effective", "6\n");
  r.write("proc/42/root/sys/fs/cgroup/cpuset.mems.effective", "0\n");
  ::symlink("mnt:[4026532999]", (r.path() + "/proc/42/ns/mnt").c_str());
  Allowed a = allowed_of(r, "42");
  CHECK(format_cpulist(a.cpus) == "6");
  CHECK(a.source == "cgroup2:/proc/42/root/sys/fs/cgroup/cpuset.cpus.effective");
  CHECK(a.mems_source == "cgroup2:/proc/42/root/sys/fs/cgroup/cpuset.mems.effective");
  // The same namespace: the paths are affix's own.
  r.remove("proc/42/ns/mnt");
  ::symlink("mnt:[4026531841]", (r.path() + "/proc/42/ns/mnt").c_str());
  a = allowed_of(r, "42");
  CHECK(a.source == "cgroup2:/sys/fs/cgroup/cpuset.cpus.effective");
  // cgroup v1, the Docker way: the container's cpuset as its own mount.
  r.write("proc/42/cgroup", "3:cpuset:/docker/c1\n");
  r.write("proc/42/mountinfo", "31 1 0:26 /docker/c1 /sys/fs/cgroup/cpuset ro - cgroup cgroup rw,cpuset\n");
  r.write("sys/fs/cgroup/cpuset/cpuset.effective_cpus", "0-7\n");
  r.write("proc/42/root/sys/fs/cgroup/cpuset/cpuset.effective_cpus", "5\n");
  r.remove("proc/42/ns/mnt");
  ::symlink("mnt:[4026532999]", (r.path() + "/proc/42/ns/mnt").c_str());
  a = allowed_of(r, "42");
  CHECK(format_cpulist(a.cpus) == "5");
  CHECK(a.source == "cgroup1:/proc/42/root/sys/fs/cgroup/cpuset/cpuset.effective_cpus");
}

TEST_CASE("another process: its own proc files; bad or missing PIDs are errors") {
  TempRoot r;
  simple_machine(r, 4, 1);
  r.write("proc/42/status", "Cpus_allowed_list:\t2\nMems_allowed_list:\t0\n");
  Allowed a = allowed_of(r, "42");
  CHECK(format_cpulist(a.cpus) == "2");
  CHECK(a.source == "status:/proc/42/status");
  CHECK_THROWS_WITH(allowed_of(r, "43"), "no such process: 43");
  CHECK_THROWS_WITH(allowed_of(r, "-1"), "'-1' is not a process ID");
  r.write("proc/42/status", "Cpus_allowed_list:\t2-1\n");
  CHECK_THROWS_WITH(allowed_of(r, "42"), Catch::StartsWith(r.path() + "/proc/42/status: Cpus_allowed_list:"));
}

TEST_CASE("this machine: the allowed set holds this process's affinity") {
  SysRoot root;
  Topology topo = read_topology(root);
  Allowed a = read_allowed(root, topo, linux_os());
  CHECK(!a.cpus.empty());
  CHECK(a.cpus.is_subset_of(topo.online));
  bool known_source = a.source.rfind("cgroup2:/", 0) == 0 || a.source.rfind("cgroup1:/", 0) == 0 ||
                      a.source.rfind("cpuset:/", 0) == 0 || a.source.rfind("no-cpuset:/", 0) == 0 ||
                      a.source == "status:/proc/self/status";
  CHECK(known_source);
  // The kernel keeps a process's affinity inside its cpuset.
  std::ifstream status("/proc/self/status");
  std::string line;
  std::optional<CpuSet> affinity;
  while (std::getline(status, line))
    if (line.rfind("Cpus_allowed_list:", 0) == 0) affinity = parse_cpulist(line.substr(18)).value;
  REQUIRE(affinity);
  CHECK(affinity->is_subset_of(a.cpus));
  Allowed by_pid = read_allowed(root, topo, linux_os(), std::to_string(::getpid()));
  CHECK(by_pid.cpus == a.cpus);
  CHECK(by_pid.source.find("/proc/self/") == std::string::npos);
}

TEST_CASE("this machine: affix's own list (inherited) is the one its AffinityOs gives") {
  SysRoot root;
  Topology topo = read_topology(root);
  FakeAffinity lists;
  const CpuSet one = CpuSet::range(topo.online.first(), topo.online.first());
  lists.affinity[0] = one;
  auto inherited = read_inherited(root, lists);
  REQUIRE(inherited);
  CHECK(*inherited == one);
  Allowed a = read_allowed(root, topo, lists);
  REQUIRE(a.inherited);
  CHECK(*a.inherited == one);
  CHECK(lists.get_affinity_calls == std::vector<pid_t>{0, 0});
  lists.affinity.clear();  // get_affinity fails: unknown
  CHECK_FALSE(read_inherited(root, lists));
}
