// scope_for: a read without the tree (the launch fast path for a bare CPU
// list) must resolve every plain CPU list exactly as the full topology does:
// same CPUs, or the same error, on every captured machine; scope_for must
// keep the tree for everything that needs it, and caches and memory where
// the placement depends on them.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "corpus.hpp"
#include "error.hpp"
#include "fake_os.hpp"
#include "resolver.hpp"
#include "topology.hpp"
#include "launch_scope.hpp"
#include "temp_root.hpp"

using namespace affix;
using affix::test::TempRoot;

namespace {

const ReadScope k_cpus_only{false, false, false};

EnvLookup no_env() {
  return [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
}

// "cpus:0-3" or "error:KIND:message".
std::string outcome(const std::string& where, const Topology& topo, const Allowed& allowed) {
  PlacementRequest request;
  request.where = where;
  try {
    return "cpus:" + format_cpulist(resolve(request, topo, allowed, no_env()).cpus);
  } catch (const Error& e) {
    return "error:" + std::to_string(static_cast<int>(e.kind())) + ":" + e.what();
  }
}

std::vector<std::string> specs_for(const Topology& full) {
  unsigned end = static_cast<unsigned>(full.possible.end());
  std::vector<std::string> specs = {"0", "0-1", "1,0", "0-3:2", "0-0", std::to_string(end) + "-" + std::to_string(end + 2), "1048577"};
  for (unsigned cpu = 0; cpu <= end && cpu < 300; ++cpu) specs.push_back(std::to_string(cpu));
  if (end > 2) specs.push_back("0-" + std::to_string(end - 1));
  if (end > 4) specs.push_back("1-" + std::to_string(end - 2) + ":3");
  specs.push_back("3-1");   // a spec error, the same either way
  specs.push_back("0,,1");
  return specs;
}

}  // namespace


TEST_CASE("launch_scope: plain CPU lists resolve as on the full topology, on every capture") {
  auto names = test::corpus_names();
  REQUIRE(names.size() == 26);
  size_t compared = 0;
  for (const auto& name : names) {
    SysRoot root(test::corpus_root(name));
    test::FakeAffinity lists;  // never asked: the root is a capture
    Topology full = read_topology(root);
    Topology light = read_topology(root, k_cpus_only);
    INFO(name);
    CHECK(format_cpulist(light.possible) == format_cpulist(full.possible));
    CHECK(format_cpulist(light.online) == format_cpulist(full.online));
    Allowed allowed_full = read_allowed(root, full, lists);
    Allowed allowed_light = read_allowed(root, light, lists);
    CHECK(format_cpulist(allowed_light.cpus) == format_cpulist(allowed_full.cpus));
    CHECK(allowed_light.source == allowed_full.source);
    for (const auto& spec : specs_for(full)) {
      INFO(spec);
      CHECK(outcome(spec, light, allowed_light) == outcome(spec, full, allowed_full));
      ++compared;
    }
  }
  CHECK(compared > 26 * 10);
}

TEST_CASE("launch_scope: a read without the tree reads no per-CPU topology") {
  SysRoot root(test::corpus_root("64amd64-4s2n4ca2co"));
  Topology light = read_topology(root, k_cpus_only);
  CHECK(format_cpulist(light.online) == "0-63");
  CHECK(light.sockets.empty());
  CHECK(light.cores.empty());
  CHECK(light.threads.size() == 64);
  CHECK(light.cpus[5].known);
  CHECK(light.cpus[5].socket == -1);
  CHECK(light.cpus[5].core == -1);
  CHECK(light.nodes.size() == 8);  // the nodes' CPUs are read: the cpuset's memory nodes are right
  CHECK(light.warnings.empty());
}

TEST_CASE("launch_scope: only a bare list without tree options takes the fast path") {
  auto plain = [](const std::string& where) {
    PlacementRequest r;
    r.where = where;
    return !scope_for(r).tree;
  };
  CHECK(plain("0"));
  CHECK(plain("0-3,8,10-20:2"));
  CHECK_FALSE(plain(""));
  CHECK_FALSE(plain("all"));
  CHECK_FALSE(plain("cpu:0"));
  CHECK_FALSE(plain("socket:0"));
  CHECK_FALSE(plain("0+1"));
  CHECK_FALSE(plain("node:0.cpu:1"));
  PlacementRequest r;
  r.where = "0-3";
  r.no_smt = true;
  CHECK(scope_for(r).tree);
  r = PlacementRequest{};
  r.where = "0-3";
  r.count = 2;
  CHECK(scope_for(r).tree);
  r = PlacementRequest{};
  r.where = "0-3";
  r.exclude = "1";
  CHECK(scope_for(r).tree);
  r = PlacementRequest{};
  r.where = "0-3";
  r.order = Order::Scatter;
  CHECK(scope_for(r).tree);
  r = PlacementRequest{};
  r.where = "0-3";
  r.slice = SliceRequest{false, 0, 2};
  CHECK(scope_for(r).tree);
  r = PlacementRequest{};
  r.where = "0-3";
  r.mem = MemRequest{};
  CHECK(scope_for(r).tree);
}

TEST_CASE("launch_scope: every source of possible CPUs counts, as in the full read") {
  // online 0-1, present 0-2, a directory for cpu3, node 0 with CPUs 4-5.
  TempRoot tmp;
  const std::string& dir = tmp.path();
  auto write = [&](const std::string& rel, const std::string& text) { tmp.write(rel, text); };
  write("sys/devices/system/cpu/online", "0-1\n");
  write("sys/devices/system/cpu/present", "0-2\n");
  write("sys/devices/system/cpu/cpu0/topology/core_id", "0\n");
  write("sys/devices/system/cpu/cpu1/topology/core_id", "1\n");
  write("sys/devices/system/cpu/cpu3/online", "0\n");
  write("sys/devices/system/node/node0/cpumap", "33\n");
  SysRoot root(dir);
  test::FakeAffinity lists;  // never asked: the root is not this machine's
  Topology full = read_topology(root);
  Topology light = read_topology(root, k_cpus_only);
  CHECK(format_cpulist(full.possible) == "0-5");
  CHECK(format_cpulist(light.possible) == "0-5");
  Allowed allowed_full = read_allowed(root, full, lists);
  Allowed allowed_light = read_allowed(root, light, lists);
  for (const char* spec : {"0", "1", "2", "3", "4", "5", "6", "0-1", "0-2"}) {
    INFO(spec);
    CHECK(outcome(spec, light, allowed_light) == outcome(spec, full, allowed_full));
  }
  CHECK(outcome("6", light, allowed_light).find("no cpu 6 on this machine (cpus: 0-5)") != std::string::npos);
  CHECK(outcome("3", light, allowed_light).find("CPU 3 is offline") != std::string::npos);
}

namespace {

std::string outcome_of(const PlacementRequest& request, const Topology& topo, const Allowed& allowed) {
  try {
    Placement p = resolve(request, topo, allowed, no_env());
    std::string mem = p.mem_policy ? " mem:" + format_cpulist(p.mem_nodes) : "";
    return "cpus:" + format_cpulist(p.cpus) + mem;
  } catch (const Error& e) {
    return "error:" + std::to_string(static_cast<int>(e.kind())) + ":" + e.what();
  }
}

}  // namespace

TEST_CASE("launch_scope: scope_for reads caches and memory only where the placement needs them") {
  auto scope = [](const std::string& where) {
    PlacementRequest r;
    r.where = where;
    return scope_for(r);
  };
  CHECK_FALSE(scope("0-3").tree);
  CHECK(scope("socket:0").tree);
  CHECK_FALSE(scope("socket:0").caches);
  CHECK_FALSE(scope("socket:0").memory);
  CHECK_FALSE(scope("node:0-1+socket:1+cpu:3+0-2").caches);
  CHECK_FALSE(scope("package:all+numa:1+pu:0+thread:1").caches);
  CHECK(scope("socket:0.core:0").caches);
  CHECK(scope("socket:1.cpu:0").caches);
  CHECK(scope("llc:0").caches);
  CHECK(scope("l3:0").caches);
  CHECK(scope("core:1").caches);
  CHECK(scope("die:0").caches);
  CHECK(scope("socket:0+core:1").caches);
  CHECK(scope("bogus:1").caches);
  PlacementRequest r;
  r.where = "socket:0";
  r.count = 2;
  CHECK(scope_for(r).caches);
  r = PlacementRequest{};
  r.where = "socket:0";
  r.slice = SliceRequest{false, 0, 2};
  CHECK(scope_for(r).caches);
  r = PlacementRequest{};
  r.where = "socket:0";
  r.exclude = "core:0";
  CHECK(scope_for(r).caches);
  r = PlacementRequest{};
  r.where = "socket:0";
  r.mem = MemRequest{};
  CHECK(scope_for(r).memory);
  CHECK_FALSE(scope_for(r).caches);
}

TEST_CASE("launch_scope: a scoped read selects the same CPUs as the full read, on every capture") {
  size_t compared = 0, scoped = 0;
  for (const auto& name : test::corpus_names()) {
    SysRoot root(test::corpus_root(name));
    test::FakeAffinity lists;  // never asked: the root is a capture
    Topology full = read_topology(root);
    Allowed allowed_full = read_allowed(root, full, lists);
    std::vector<std::string> wheres = {"socket:all", "node:all", "cpu:all", "package:0", "numa:0",
                                       "node:0+socket:1", "socket:0+3", "socket:9", "node:40"};
    for (const auto& u : full.sockets) wheres.push_back("socket:" + std::to_string(u.id));
    for (const auto& u : full.numa) wheres.push_back("node:" + std::to_string(u.id));
    for (const auto& where : wheres) {
      for (int variant = 0; variant < 4; ++variant) {
        PlacementRequest r;
        r.where = where;
        r.no_smt = variant & 1;
        if (variant & 2) r.exclude = "cpu:0";
        ReadScope scope = scope_for(r);
        REQUIRE_FALSE(scope.caches);
        Topology part = read_topology(root, scope);
        Allowed allowed_part = read_allowed(root, part, lists);
        INFO(name << " " << where << " variant " << variant);
        CHECK(outcome_of(r, part, allowed_part) == outcome_of(r, full, allowed_full));
        ++compared;
      }
    }
    // With --mem, memory is read and the nodes agree too.
    PlacementRequest m;
    m.where = "socket:all";
    m.mem = MemRequest{};
    Topology with_mem = read_topology(root, scope_for(m));
    CHECK(outcome_of(m, with_mem, read_allowed(root, with_mem, lists)) == outcome_of(m, full, allowed_full));
    ++scoped;
  }
  CHECK(scoped == 26);
  CHECK(compared > 26 * 40);
}

TEST_CASE("launch_scope: memory tiers, kinds, HMAT and weights only where --mem needs them") {
  auto tiers = [](const std::string& where, std::optional<std::string> mem) {
    PlacementRequest r;
    r.where = where;
    if (mem) r.mem = parse_mem_option(*mem);
    ReadScope s = scope_for(r);
    return s.tiers;
  };
  CHECK_FALSE(tiers("0", std::nullopt));
  CHECK_FALSE(tiers("socket:0", std::nullopt));
  CHECK_FALSE(tiers("node:0", "bind"));
  CHECK_FALSE(tiers("node:0", "interleave:0-1"));
  CHECK(tiers("node:0", "weighted"));
  CHECK(tiers("0", "weighted:0,2"));
  CHECK(tiers("node:0", "bind:tier:22"));
  CHECK(tiers("node:0", "interleave:0+mem:cxl"));
  // A launch that does not read them has none.
  TempRoot root;
  root.write("sys/devices/system/cpu/online", "0\n");
  root.write("sys/devices/virtual/memory_tiering/memory_tier4/nodelist", "0\n");
  ReadScope none = k_cpus_only;
  none.tiers = false;
  CHECK(read_topology(SysRoot(root.path()), none).tiers.empty());
  CHECK(read_topology(SysRoot(root.path())).tiers.size() == 1);
}
