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

namespace {

// A .go.buildinfo section in the inline format (Go 1.18 and later).
std::string buildinfo(const std::string& version, const std::string& modinfo = {}) {
  std::string out("\xff Go buildinf:", 14);
  out += '\x08';
  out += '\x02';
  out += std::string(16, '\0');
  out += static_cast<char>(version.size());
  out += version;
  if (modinfo.size() < 128) {
    out += static_cast<char>(modinfo.size());
  } else {  // a two-byte varint
    out += static_cast<char>((modinfo.size() & 0x7f) | 0x80);
    out += static_cast<char>(modinfo.size() >> 7);
  }
  out += modinfo;
  return out;
}

}  // namespace

TEST_CASE("parse_go_buildinfo: the version and the build lines; not Go's bytes are nothing") {
  auto go = parse_go_buildinfo(buildinfo("go1.19.8", "path\texample.com/x\nbuild\tGOOS=linux\n"));
  REQUIRE(go);
  CHECK(go->version == "go1.19.8");
  CHECK(go->modinfo == "path\texample.com/x\nbuild\tGOOS=linux\n");
  std::string long_mod(300, 'x');
  CHECK(parse_go_buildinfo(buildinfo("go1.22.1", long_mod))->modinfo == long_mod);
  // Before Go 1.18 (flags without 2): Go, its version unknown here.
  std::string old = buildinfo("go1.17");
  old[15] = '\0';
  REQUIRE(parse_go_buildinfo(old));
  CHECK(parse_go_buildinfo(old)->version.empty());
  CHECK_FALSE(parse_go_buildinfo("\x7f" "ELF not go at all, long enough to be a header......"));
  CHECK_FALSE(parse_go_buildinfo(buildinfo("go1.22").substr(0, 20)));
}

TEST_CASE("go_warning: a Go program without GOMAXPROCS that lost CPUs, and what to set") {
  GoBuild go = *parse_go_buildinfo(buildinfo("go1.22.1"));
  CHECK(go_warning(42, go, env({"HOME=/"}), cpus("0-7"), cpus("0-3")) ==
        "42 is a Go program (go1.22.1) started without GOMAXPROCS: Go sized GOMAXPROCS once, at its start, to the "
        "CPUs it had then (8 before this pin); it now has 4 CPUs (restart it with GOMAXPROCS=4, or under 'affix --env')");
  CHECK_FALSE(go_warning(42, go, env({"GOMAXPROCS=4"}), cpus("0-7"), cpus("0-3")));  // set: GOMAXPROCS's own
  CHECK_FALSE(go_warning(42, go, env({}), cpus("0-3"), cpus("4-7")));               // as many as before
  // Go 1.25 and later follow their CPU list, unless updatemaxprocs=0.
  GoBuild now = *parse_go_buildinfo(buildinfo("go1.25.0"));
  CHECK_FALSE(go_warning(42, now, env({}), cpus("0-7"), cpus("0")));
  CHECK(go_warning(42, now, env({"GODEBUG=updatemaxprocs=0"}), cpus("0-7"), cpus("0")));
  GoBuild old_module = *parse_go_buildinfo(buildinfo("go1.26.0", "build\tDefaultGODEBUG=updatemaxprocs=0,x=1\n"));
  CHECK(go_updates_maxprocs(now, env({})));
  CHECK_FALSE(go_updates_maxprocs(old_module, env({})));
  CHECK(go_updates_maxprocs(old_module, env({"GODEBUG=updatemaxprocs=1"})));
  CHECK(go_warning(42, old_module, env({}), cpus("0-1"), cpus("0")) ==
        "42 is a Go program (go1.26.0) started without GOMAXPROCS: Go sized GOMAXPROCS once, at its start, to the "
        "CPUs it had then (2 before this pin); it now has 1 CPU (restart it with GOMAXPROCS=1, or under 'affix --env')");
  GoBuild unknown;
  CHECK(go_warning(42, unknown, env({}), cpus("0-1"), cpus("0"))->find("(before go1.18)") != std::string::npos);
}
