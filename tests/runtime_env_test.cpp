// The warning of a pin that leaves a runtime with more threads than CPUs.
#include <catch2/catch.hpp>

#include <string>

#include "runtime_env.hpp"

using namespace affix;

namespace {

CpuSet cpus(const char* list) { return *parse_cpulist(list).value; }
std::string env(std::initializer_list<const char*> vars) {
  std::string out;
  for (const char* v : vars) out += std::string(v) + '\0';
  return out;
}

}  // namespace

TEST_CASE("GOMAXPROCS and OMP_NUM_THREADS above the new CPU count are told") {
  auto w = runtime_env_warnings(4242, env({"HOME=/", "GOMAXPROCS=8", "OMP_NUM_THREADS=8,4"}), cpus("0-3"));
  REQUIRE(w.size() == 2);
  CHECK(w[0] == "4242 was started with GOMAXPROCS=8; it now has 4 CPUs (restart it under 'affix --env', or set GOMAXPROCS)");
  CHECK(w[1] ==
        "4242 was started with OMP_NUM_THREADS=8; it now has 4 CPUs (restart it under 'affix --env', or set "
        "OMP_NUM_THREADS)");
  CHECK(runtime_env_warnings(1, env({"GOMAXPROCS=2"}), cpus("3"))[0] ==
        "1 was started with GOMAXPROCS=2; it now has 1 CPU (restart it under 'affix --env', or set GOMAXPROCS)");
}

TEST_CASE("counts that fit, and values a runtime would not read, are not told") {
  CHECK(runtime_env_warnings(1, env({"GOMAXPROCS=4", "OMP_NUM_THREADS=2"}), cpus("0-3")).empty());
  CHECK(runtime_env_warnings(1, env({"GOMAXPROCS=abc", "OMP_NUM_THREADS="}), cpus("0")).empty());
  CHECK(runtime_env_warnings(1, env({"XGOMAXPROCS=64", "GOMAXPROCSX=64"}), cpus("0")).empty());
  CHECK(runtime_env_warnings(1, "", cpus("0")).empty());
  // The last variable without its NUL (a cut read) is still read.
  CHECK(runtime_env_warnings(1, "A=1" + std::string(1, '\0') + "GOMAXPROCS=9", cpus("0-7")).size() == 1);
}

TEST_CASE("AFFIX_CPUS naming other CPUs is told; the same CPUs are not") {
  auto w = runtime_env_warnings(7, env({"AFFIX_CPUS=0-7"}), cpus("0-3"));
  REQUIRE(w.size() == 1);
  CHECK(w[0] ==
        "7 was started with AFFIX_CPUS=0-7; it now has CPUs 0-3 (restart it under 'affix --env' so that what it "
        "reads agrees)");
  CHECK(runtime_env_warnings(7, env({"AFFIX_CPUS=0-3"}), cpus("0,1,2,3")).empty());
  CHECK(runtime_env_warnings(7, env({"AFFIX_CPUS=\x1b[31m"}), cpus("0")).empty());
}
