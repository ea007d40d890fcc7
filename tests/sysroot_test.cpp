// SysRoot: paths under the root, NUL padding of sysfs attributes, and files
// read line by line in bounded memory.
#include <catch2/catch.hpp>

#include <cerrno>
#include <string>
#include <vector>

#include "error.hpp"
#include "sysroot.hpp"
#include "temp_root.hpp"

using namespace affix;
using namespace affix::test;

namespace {

std::vector<std::string> lines_of(const SysRoot& root, const std::string& rel, size_t max_line = 1u << 16,
                                  size_t stop_after = 1000) {
  std::vector<std::string> out;
  bool found = root.for_each_line(rel, [&](std::string_view line) {
    out.emplace_back(line);
    return out.size() < stop_after;
  }, max_line);
  if (!found) out.push_back("(missing)");
  return out;
}

}  // namespace

TEST_CASE("sysroot: paths under the root") {
  CHECK(SysRoot().path("sys/devices") == "/sys/devices");
  CHECK(SysRoot("/tmp/r/").path("/proc/self") == "/tmp/r/proc/self");
  CHECK(SysRoot("").is_default());
}

TEST_CASE("sysroot: NUL bytes after a sysfs attribute are dropped, elsewhere kept") {
  using namespace std::string_literals;
  TempRoot r;
  r.write("sys/a", "0-3\n\0\0"s);
  r.write("proc/b", "x\0y\0"s);
  SysRoot root(r.path());
  CHECK(root.read("sys/a") == "0-3\n");
  CHECK(root.read("proc/b") == "x\0y\0"s);
  CHECK(format_cpulist(*root.read_cpulist("sys/a")) == "0-3");
}

TEST_CASE("sysroot: for_each_line passes each line, cut to max_line, and stops when asked") {
  TempRoot r;
  r.write("proc/t", "one\n\ntwo three\nlast without newline");
  r.write("proc/long", std::string(100, 'x') + "\nshort\n");
  SysRoot root(r.path());
  CHECK(lines_of(root, "proc/t") == std::vector<std::string>{"one", "", "two three", "last without newline"});
  CHECK(lines_of(root, "proc/long", 10) == std::vector<std::string>{std::string(10, 'x'), "short"});
  CHECK(lines_of(root, "proc/t", 1u << 16, 2) == std::vector<std::string>{"one", ""});
  CHECK(lines_of(root, "proc/none") == std::vector<std::string>{"(missing)"});
}

TEST_CASE("sysroot: for_each_line reads past any buffer, and refuses an endless file") {
  TempRoot r;
  std::string big;
  for (int i = 0; i < 100000; ++i) big += "line " + std::to_string(i) + "\n";
  r.write("proc/big", big);
  SysRoot root(r.path());
  auto lines = lines_of(root, "proc/big", 1u << 16, 1000000);
  REQUIRE(lines.size() == 100000);
  CHECK(lines[65535] == "line 65535");
  CHECK(lines.back() == "line 99999");
  CHECK_THROWS_WITH(root.for_each_line("proc/big", [](std::string_view) { return true; }, 64, 4096),
                    r.path() + "/proc/big: file larger than 4096 bytes");
}

TEST_CASE("sysroot: read_head reads at most its bytes, and says whether more follow") {
  TempRoot r;
  r.write("proc/exact", std::string(10, 'a'));
  r.write("proc/empty", "");
  r.write("proc/big", std::string(100000, 'b'));
  r.write("sys/attr", std::string("x\0\0", 3));
  SysRoot root(r.path());
  bool more = true;
  CHECK(root.read_head("proc/exact", 10, more) == std::string(10, 'a'));
  CHECK_FALSE(more);
  CHECK(root.read_head("proc/exact", 9, more) == std::string(9, 'a'));
  CHECK(more);
  CHECK(root.read_head("proc/empty", 10, more) == "");
  CHECK_FALSE(more);
  CHECK(root.read_head("proc/big", 4096, more) == std::string(4096, 'b'));  // past any buffer: no error
  CHECK(more);
  CHECK(root.read_head("sys/attr", 10, more) == std::string("x\0\0", 3));  // its bytes, as they are
  CHECK_FALSE(root.read_head("proc/none", 10, more));
  CHECK_FALSE(more);
}

TEST_CASE("sysroot: at() reads a directory's files relative to it, and names them as the root does") {
  using namespace std::string_literals;
  TempRoot r;
  r.write("sys/devices/system/cpu/cpu3/topology/core_id", "7\n");
  r.write("sys/devices/system/cpu/cpu3/topology/core_cpus", "8\n\0\0"s);
  r.write("sys/devices/system/cpu/cpu3/cache/index0/level", "1\n");
  r.write("sys/devices/system/cpu/cpu3/bad", "x\n");
  SysRoot root(r.path());
  SysRoot cpu = root.at("sys/devices/system/cpu/cpu3");
  CHECK(cpu.path("topology/core_id") == r.path() + "/sys/devices/system/cpu/cpu3/topology/core_id");
  CHECK(cpu.read_int("topology/core_id") == 7);
  CHECK(cpu.read("topology/core_cpus") == "8\n");  // under sys/: NUL padding dropped
  CHECK(cpu.list("cache") == std::vector<std::string>{"index0"});
  CHECK(cpu.exists("cache/index0"));
  CHECK(cpu.exists(""));
  CHECK_FALSE(cpu.exists("online"));
  CHECK(cpu.error_of("online") == ENOENT);
  CHECK_THROWS_WITH(cpu.read_int("bad"), r.path() + "/sys/devices/system/cpu/cpu3/bad: expected a number from -1 to "
                                             "1048576, found 'x'");
  // A directory that is not there: every read fails, as by the whole path.
  SysRoot gone = root.at("sys/devices/system/cpu/cpu9");
  CHECK_FALSE(gone.read("topology/core_id"));
  CHECK(gone.list("cache").empty());
  CHECK(gone.path("online") == r.path() + "/sys/devices/system/cpu/cpu9/online");
}
