// The kernel's verdict on a partition (cpuset.cpus.partition) and the error
// each reason gives (kernel/cgroup/cpuset.c, perr_strings).
#include <catch2/catch.hpp>

#include "partition_verdict.hpp"

using namespace affix;

TEST_CASE("verdict: valid types, invalid with and without a reason", "[shield]") {
  auto s = parse_partition("isolated\n");
  CHECK(s.valid);
  CHECK_FALSE(s.invalid);
  CHECK(s.type == "isolated");
  s = parse_partition("root\n");
  CHECK(s.valid);
  s = parse_partition("member\n");
  CHECK_FALSE(s.valid);
  CHECK_FALSE(s.invalid);
  s = parse_partition("root invalid (Cpu list in cpuset.cpus not exclusive)\n");
  CHECK_FALSE(s.valid);
  CHECK(s.invalid);
  CHECK(s.type == "root");
  CHECK(s.reason == "Cpu list in cpuset.cpus not exclusive");
  s = parse_partition("isolated invalid\n");  // 6.12, where a partition's CPUs widened out of exclusivity
  CHECK(s.invalid);
  CHECK(s.reason.empty());
  s = parse_partition("");
  CHECK_FALSE(s.valid);
}

TEST_CASE("verdict: each reason is an error with what to do", "[shield]") {
  const std::string undone = "; the shield was removed, every change put back";
  auto e = partition_error("affix-shield-2", "5-6", parse_partition("root invalid (Cpu list in cpuset.cpus not exclusive)"), undone);
  CHECK(std::string(e.what()) ==
        "the kernel refused shield affix-shield-2 (CPUs 5-6): its CPUs are not exclusive: another partition or "
        "exclusive cpuset holds some of them; the shield was removed, every change put back");
  CHECK(e.hint() ==
        "'affix show --shield' lists the shields and their CPUs; give CPUs no other shield holds, or remove that one "
        "first ('affix shield --off NAME')");
  CHECK(e.kind() == ErrorKind::Runtime);
  struct Case {
    const char* reason;
    const char* says;
  };
  const Case cases[] = {
      {"Invalid cpu list in cpuset.cpus.exclusive", "needs its CPUs in cpuset.cpus.exclusive of every cgroup above it"},
      {"Invalid cpu list in cpuset.cpus", "needs its CPUs in cpuset.cpus.exclusive of every cgroup above it"},
      {"Parent is not a partition root", "its parent cgroup is not a partition, and this kernel has no cpuset.cpus.exclusive"},
      {"Parent is an invalid partition root", "its parent is a partition the kernel made invalid"},
      {"Parent unable to distribute cpu downstream", "its parent would be left without a CPU for the tasks it holds"},
      {"No cpu available due to hotplug", "none of its CPUs is online"},
      {"cpuset.cpus and cpuset.cpus.exclusive are empty", "its cpuset.cpus is empty"},
      {"cpuset.cpus is empty", "its cpuset.cpus is empty"},
      {"partition config conflicts with housekeeping setup", "the kernel was booted to keep for housekeeping"},
      {"Enable partition not permitted", "partitions may not be made here"},
      {"Have remote partition underneath", "a partition below it already holds CPUs"},
  };
  for (const auto& c : cases) {
    auto err = partition_error("s", "1", parse_partition(std::string("isolated invalid (") + c.reason + ")"), undone);
    INFO(c.reason);
    CHECK(std::string(err.what()).find(c.says) != std::string::npos);
    CHECK(std::string(err.what()).find(undone) != std::string::npos);
    CHECK_FALSE(err.hint().empty());
  }
  auto other = partition_error("s", "1", parse_partition("isolated invalid"), "; x");
  CHECK(std::string(other.what()) == "the kernel refused shield s (CPUs 1): cpuset.cpus.partition reads 'isolated invalid'; x");
  auto unknown = partition_error("s\x1b", "1", parse_partition("root invalid (\x1b[31mnew reason)"), "");
  CHECK(std::string(unknown.what()) ==
        "the kernel refused shield s\\e (CPUs 1): cpuset.cpus.partition reads 'root invalid (\\e[31mnew reason)'");
}
