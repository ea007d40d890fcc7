// Hostile roots: `affix topo --root DIR` and `affix explain --root DIR` on
// directories built to hurt (missing, empty and garbage files, huge numbers,
// a cpulist with a million ranges, a 64 MiB file, an endless file, a
// self-referencing symlink, a node directory with 100,000 entries, a mount
// table of 96 MiB). Each gives one error line (exit 1) where the CPUs or
// which are online cannot be read, else the answer (exit 0), with `topo`
// warning about each attribute it left out; never a crash or a hang, and in
// bounded memory: the child's peak RSS (wait4) may exceed that of the same
// command on the intact machine by at most k_memory_slack_kb. Fixtures are
// made at test time from a captured machine.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "child_process.hpp"
#include "corpus.hpp"
#include "cpuset.hpp"
#include "error.hpp"
#include "location.hpp"
#include "root_builders.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::ChildResult;
using affix::test::run_child;
using affix::test::run_in_child;
namespace fs = std::filesystem;

namespace {

#if defined(__SANITIZE_ADDRESS__)
// Under ASan freed memory sits in a quarantine (256 MiB) and every block
// has redzones: peak memory says little there, the normal build asserts it.
constexpr long k_memory_slack_kb = 1024 * 1024;
#else
constexpr long k_memory_slack_kb = 48 * 1024;
#endif
constexpr const char* k_machine = "8em64t-2s2ca2c";  // 8 CPUs, 2 sockets, 1 node
const std::string k_cpu = "sys/devices/system/cpu";
const std::string k_node = "sys/devices/system/node";

// A copy of the captured machine in a fresh temporary directory.
struct HostileRoot : affix::test::TempRoot {
  HostileRoot() : TempRoot(affix::test::corpus_root(k_machine)) {}
  std::string root() const { return path(); }
  // The capture's files are replaced, never written through (some are links).
  void write(const std::string& rel, const std::string& content) const { replace(rel, content); }
};

ChildResult run_affix(const std::vector<std::string>& args) {
  std::vector<std::string> argv{AFFIX_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_child(argv);
}

const ChildResult& intact_topo() {
  static ChildResult r = [] {
    HostileRoot root;
    return run_affix({"topo", "--root", root.root()});
  }();
  return r;
}

// The command ended by itself (no signal) within the memory bound.
void check_bounded(const ChildResult& r) {
  INFO("stderr: " << r.err);
  REQUIRE(r.exited);
  CHECK(r.maxrss_kb <= intact_topo().maxrss_kb + k_memory_slack_kb);
}

void check_error(const ChildResult& r, const std::string& message, int code = 1) {
  check_bounded(r);
  CHECK(r.code == code);
  CHECK(r.out.empty());
  CHECK(r.err == "affix: error: " + message + "\n");
}

// The command worked (exit 0) and warned exactly `warnings` on stderr.
void check_warned(const ChildResult& r, const std::vector<std::string>& warnings) {
  check_bounded(r);
  CHECK(r.code == 0);
  CHECK_FALSE(r.out.empty());
  std::string expected;
  for (auto& w : warnings) expected += "affix: warning: " + w + "\n";
  CHECK(r.err == expected);
}

void check_intact_answer(const ChildResult& r) {
  check_bounded(r);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out == intact_topo().out);
}

std::string repeated(const std::string& item, size_t times, const std::string& sep) {
  std::string s;
  s.reserve((item.size() + sep.size()) * times);
  for (size_t i = 0; i < times; ++i) {
    if (i) s += sep;
    s += item;
  }
  return s;
}

}  // namespace

TEST_CASE("hostile root: the intact copy is read correctly") {
  const ChildResult& r = intact_topo();
  REQUIRE(r.exited);
  CHECK(r.code == 0);
  CHECK(r.out.rfind("machine    8 CPUs (8 online), 2 sockets, 1 node, 8 cores, SMT 1, 4 llc\n", 0) == 0);
  CHECK(r.maxrss_kb > 0);
}

TEST_CASE("hostile root: missing and empty roots") {
  HostileRoot root;
  std::string missing = root.root() + "/nothing-here";
  check_error(run_affix({"topo", "--root", missing}), missing + ": no such directory");
  fs::create_directory(root.path("empty"));
  check_error(run_affix({"topo", "--root", root.path("empty")}),
              root.path("empty") + "/" + k_cpu + ": no such directory");
  check_error(run_affix({"explain", "--root", missing, "all"}), missing + ": no such directory");
}

TEST_CASE("hostile root: empty and garbage files") {
  HostileRoot root;
  // An empty online list: no CPU online, which no running Linux shows.
  root.write(k_cpu + "/online", "");
  check_error(run_affix({"topo", "--root", root.root()}),
              root.path(k_cpu + "/online") + ": no CPUs online");
  check_error(run_affix({"explain", "--root", root.root(), "all"}),
              root.path(k_cpu + "/online") + ": no CPUs online");
  root.write(k_cpu + "/online", "garbage\n");
  check_error(run_affix({"topo", "--root", root.root()}),
              root.path(k_cpu + "/online") + ": invalid cpulist 'garbage': unexpected 'g' at offset 0");
  root.write(k_cpu + "/online", "0-7\n");
  // One odd attribute file: left out, `topo` says so, every command works.
  root.write(k_cpu + "/cpu0/topology/physical_package_id", "");
  check_warned(run_affix({"topo", "--root", root.root()}),
               {root.path(k_cpu + "/cpu0/topology/physical_package_id") +
                ": expected a number from -1 to 1048576, found '' (left out)"});
  ChildResult quiet = run_affix({"explain", "--root", root.root(), "socket:0.core:1"});
  check_bounded(quiet);
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());
  root.write(k_cpu + "/cpu0/topology/physical_package_id", "\x01\xff\xfe garbage");
  ChildResult binary = run_affix({"topo", "--root", root.root()});
  check_bounded(binary);
  CHECK(binary.code == 0);
  CHECK(binary.err.rfind("affix: warning: " + root.path(k_cpu + "/cpu0/topology/physical_package_id") +
                             ": expected a number from -1 to 1048576, found '",
                         0) == 0);
  root.write(k_cpu + "/cpu0/topology/physical_package_id", "0\n");
  root.write(k_cpu + "/cpu0/topology/thread_siblings", "zz\n");
  check_warned(run_affix({"topo", "--root", root.root()}),
               {root.path(k_cpu + "/cpu0/topology/thread_siblings") +
                ": invalid cpu mask 'zz': unexpected 'z' at offset 0 (left out)"});
}

TEST_CASE("hostile root: huge numbers") {
  HostileRoot root;
  root.write(k_cpu + "/cpu0/topology/physical_package_id", "99999999999999999999999\n");
  check_warned(run_affix({"topo", "--root", root.root()}),
               {root.path(k_cpu + "/cpu0/topology/physical_package_id") +
                ": expected a number from -1 to 1048576, found '99999999999999999999999' (left out)"});
  root.write(k_cpu + "/cpu0/topology/physical_package_id", "0\n");
  root.write(k_cpu + "/online", "0-4294967296\n");
  check_error(run_affix({"topo", "--root", root.root()}),
              root.path(k_cpu + "/online") +
                  ": invalid cpulist '0-4294967296': number beyond 1048576 at offset 2");
  root.write(k_cpu + "/online", "0-7\n");
  // The largest CPU number affix supports, present but without a directory:
  // the answer is the intact machine with one more (offline) CPU.
  root.write(k_cpu + "/present", "0-7,65535\n");
  ChildResult wide = run_affix({"topo", "--root", root.root()});
  check_bounded(wide);
  CHECK(wide.code == 0);
  CHECK(wide.out.rfind("machine    9 CPUs (8 online), 2 sockets", 0) == 0);
  CHECK(wide.out.find("offline    65535\n") != std::string::npos);
  root.write(k_cpu + "/present", "0-7,1048576\n");
  ChildResult beyond = run_affix({"topo", "--root", root.root()});
  check_warned(beyond, {root.path(k_cpu + "/present") + ": CPU number 1048576 is beyond the supported 65535 (left out)"});
  CHECK(beyond.out == intact_topo().out);
  root.write(k_cpu + "/online", "0-7,1048576\n");
  check_error(run_affix({"topo", "--root", root.root()}),
              root.path(k_cpu + "/online") + ": CPU number 1048576 is beyond the supported 65535");
  root.write(k_cpu + "/online", "0-7\n");
  root.write(k_cpu + "/present", "0-7\n");
  std::string meminfo = affix::test::slurp(root.path(k_node + "/node0/meminfo"));
  size_t at = meminfo.find("MemTotal:");
  REQUIRE(at != std::string::npos);
  size_t digits = meminfo.find_first_of("0123456789", at);
  size_t end = meminfo.find_first_not_of("0123456789", digits);
  root.write(k_node + "/node0/meminfo",
             meminfo.substr(0, digits) + "99999999999999999999999" + meminfo.substr(end));
  check_warned(run_affix({"topo", "--root", root.root()}),
               {root.path(k_node + "/node0/meminfo") +
                ": MemTotal is not a number of kB: '99999999999999999999999' (left out)"});
}

TEST_CASE("hostile root: a cpulist with a million ranges") {
  HostileRoot root;
  // A million ranges do not fit in the 1 MiB a sysfs file may have.
  root.write(k_cpu + "/online", repeated("0-7", 1000000, ",") + "\n");
  check_error(run_affix({"topo", "--root", root.root()}),
              root.path(k_cpu + "/online") + ": file larger than 1048576 bytes");
  // 200,000 ranges that do fit: the correct answer.
  root.write(k_cpu + "/online", repeated("0-7", 200000, ",") + "\n");
  check_intact_answer(run_affix({"topo", "--root", root.root()}));
  root.write(k_cpu + "/online", repeated("7,6,5,4,3,2,1,0", 25000, ",") + "\n");
  check_intact_answer(run_affix({"topo", "--root", root.root()}));
}

TEST_CASE("hostile input: a million ranges in the parsers, in bounded memory") {
  ChildResult idle = run_in_child([] {});
  REQUIRE(idle.exited);
  // Descending singletons near the largest number: each one touches the
  // top of the set (quadratic before CpuSet::set_range).
  std::string list;
  for (unsigned i = 0; i < 1000000; ++i) {
    if (i) list += ',';
    list += std::to_string(k_max_id - (i % 1024));
  }
  ChildResult parsed = run_in_child([&] {
    auto p = parse_cpulist(list);
    if (!p || p.value->count() != 1024 || format_cpulist(*p.value) != "1047553-1048576")
      throw 1;
  });
  REQUIRE(parsed.exited);
  CHECK(parsed.code == 0);
  CHECK(parsed.maxrss_kb <= idle.maxrss_kb + k_memory_slack_kb);
  // As a location, a million ranges are refused up front.
  ChildResult spec = run_in_child([&] {
    try {
      parse_location(list);
    } catch (const Error& e) {
      if (std::string(e.what()).find("location too long (") == 0) return;
    }
    throw 1;
  });
  REQUIRE(spec.exited);
  CHECK(spec.code == 0);
  CHECK(spec.maxrss_kb <= idle.maxrss_kb + k_memory_slack_kb);
}

TEST_CASE("hostile root: a 64 MiB file and an endless one") {
  HostileRoot root;
  {
    std::ofstream f(root.path(k_cpu + "/online"), std::ios::binary | std::ios::trunc);
    std::string chunk(1u << 20, '0');
    for (int i = 0; i < 64; ++i) f << chunk;
  }
  REQUIRE(fs::file_size(root.path(k_cpu + "/online")) == 64u << 20);
  check_error(run_affix({"topo", "--root", root.root()}),
              root.path(k_cpu + "/online") + ": file larger than 1048576 bytes");
  check_error(run_affix({"explain", "--root", root.root(), "all"}),
              root.path(k_cpu + "/online") + ": file larger than 1048576 bytes");
  fs::remove(root.path(k_cpu + "/online"));
  fs::create_symlink("/dev/zero", root.path(k_cpu + "/online"));
  check_error(run_affix({"topo", "--root", root.root()}),
              root.path(k_cpu + "/online") + ": file larger than 1048576 bytes");
  // A distance row is bounded tighter (64 KiB); beyond, the row is left out.
  fs::remove(root.path(k_node + "/node0/distance"));
  fs::create_symlink("/dev/zero", root.path(k_node + "/node0/distance"));
  fs::remove(root.path(k_cpu + "/online"));
  root.write(k_cpu + "/online", "0-7\n");
  check_warned(run_affix({"topo", "--root", root.root()}),
               {root.path(k_node + "/node0/distance") + ": file larger than 65536 bytes (left out)"});
}

TEST_CASE("hostile root: self-referencing symlinks and a FIFO") {
  HostileRoot root;
  // online -> online: unreadable (ELOOP), so each CPU's own online file
  // decides; the answer is the intact machine.
  fs::remove(root.path(k_cpu + "/online"));
  fs::create_symlink("online", root.path(k_cpu + "/online"));
  check_intact_answer(run_affix({"topo", "--root", root.root()}));
  // A node directory that is a link to itself: a node without CPUs or memory.
  fs::remove_all(root.path(k_node + "/node0"));
  fs::create_symlink("node0", root.path(k_node + "/node0"));
  ChildResult node = run_affix({"topo", "--root", root.root()});
  check_bounded(node);
  CHECK(node.code == 0);
  CHECK(node.out.find("node 0                       no CPUs\n") != std::string::npos);
  // A directory loop under a CPU: cache/index9 -> .. is not a cache.
  fs::create_symlink("..", root.path(k_cpu + "/cpu0/cache/index9"));
  ChildResult loop = run_affix({"topo", "--root", root.root()});
  check_bounded(loop);
  CHECK(loop.code == 0);
  // A FIFO without a writer reads as empty: never blocks.
  fs::remove(root.path(k_cpu + "/online"));
  REQUIRE(::mkfifo(root.path(k_cpu + "/online").c_str(), 0600) == 0);
  check_error(run_affix({"topo", "--root", root.root()}),
              root.path(k_cpu + "/online") + ": no CPUs online");
}

TEST_CASE("hostile root: a node directory with 100,000 entries") {
  HostileRoot root;
  // 100,000 entries that are not nodes: ignored, the correct answer.
  for (int i = 1; i <= 100000; ++i) std::ofstream(root.path(k_node + "/junk" + std::to_string(i)));
  check_intact_answer(run_affix({"topo", "--root", root.root()}));
  // 100,000 nodes: node0's one distance cannot describe them; it is left out.
  for (int i = 1; i <= 100000; ++i) {
    fs::remove(root.path(k_node + "/junk" + std::to_string(i)));
    fs::create_directory(root.path(k_node + "/node" + std::to_string(i)));
  }
  check_warned(run_affix({"topo", "--root", root.root()}),
               {root.path(k_node + "/node0/distance") + ": 1 distances for 100001 nodes (left out)"});
  // Without distances they are 100,001 nodes, 100,000 of them empty.
  fs::remove(root.path(k_node + "/node0/distance"));
  ChildResult many = run_affix({"topo", "--root", root.root()});
  check_bounded(many);
  CHECK(many.code == 0);
  CHECK(many.out.find("node 100000                  no CPUs\n") != std::string::npos);
  ChildResult explained = run_affix({"explain", "--root", root.root(), "socket:1"});
  check_bounded(explained);
  CHECK(explained.code == 0);
  CHECK(explained.out.rfind("cpus      1,3,5,7 (4 CPUs)\n", 0) == 0);
}

TEST_CASE("hostile root: a mount table of 96 MiB is read in bounded memory") {
  HostileRoot root;
  // A container host's table: overlay mounts by the ten thousand, then the
  // cgroup2 mount that holds the process's cpuset.
  affix::test::write_cgroup2(root, "self", "/job", "1-2", "0");
  {
    std::ofstream f(root.path("proc/self/mountinfo"), std::ios::binary | std::ios::trunc);
    std::string line;
    for (size_t written = 0, i = 0; written < (96u << 20); ++i, written += line.size()) {
      line = std::to_string(100 + i) + " 1 0:" + std::to_string(i) + " / /var/lib/containers/storage/overlay/" +
             std::to_string(i) + "/merged rw,relatime shared:1 - overlay overlay rw,lowerdir=/var/lib/l/" +
             std::to_string(i) + ",upperdir=/var/lib/u/" + std::to_string(i) + ",workdir=/var/lib/w\n";
      f << line;
    }
    f << "99 1 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n";
  }
  ChildResult r = run_affix({"explain", "--root", root.root(), "all"});
  check_bounded(r);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.rfind("cpus      1-2 (2 CPUs)\n", 0) == 0);
}
