// This machine: `affix topo --json` agrees with `lscpu -p` (CPU, core,
// socket, node, online) and `numactl --hardware` (nodes, their CPUs, sizes,
// distances).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "mini_json.hpp"

using namespace affix::test;

namespace {

Json machine_json() {
  int status = 0;
  std::string out = run_command(std::string(AFFIX_BINARY) + " topo --json", status);
  REQUIRE(status == 0);
  return parse_json(out);
}

std::set<std::set<long>> groups(const std::map<long, long>& of) {
  std::map<long, std::set<long>> g;
  for (auto& [cpu, unit] : of) g[unit].insert(cpu);
  std::set<std::set<long>> out;
  for (auto& [k, v] : g) out.insert(v);
  return out;
}

}  // namespace

TEST_CASE("this machine: topo --json agrees with lscpu -p") {
  Json doc = machine_json();
  int status = 0;
  // lscpu -p: "CPU,Core,Socket,Node" for online CPUs (it numbers cores by its
  // own logical index, so cores are compared as groups).
  std::string out = run_command("lscpu -p=CPU,CORE,SOCKET,NODE", status);
  REQUIRE(status == 0);
  std::map<long, long> core, socket, node;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string f[4];
    for (auto& x : f) std::getline(ls, x, ',');
    long cpu = std::stol(f[0]);
    core[cpu] = std::stol(f[1]);
    socket[cpu] = std::stol(f[2]);
    node[cpu] = f[3].empty() ? 0 : std::stol(f[3]);
  }
  REQUIRE(!core.empty());
  std::map<long, long> my_core, my_socket, my_node;
  for (auto& c : doc["cpus"].array) {
    if (!c["online"].boolean) continue;
    long cpu = static_cast<long>(c["cpu"].number);
    my_core[cpu] = c["core"].number;
    my_socket[cpu] = c["socket"].number;
    my_node[cpu] = c["node"].number;
    CHECK(c["socket"].number == socket[cpu]);  // kernel numbers, as lscpu shows them
    CHECK(c["node"].number == node[cpu]);
  }
  CHECK(my_core.size() == core.size());
  CHECK(groups(my_core) == groups(core));
  CHECK(groups(my_socket) == groups(socket));
  CHECK(groups(my_node) == groups(node));
}

TEST_CASE("this machine: topo --json agrees with numactl --hardware") {
  Json doc = machine_json();
  int status = 0;
  std::string out = run_command("numactl --hardware", status);
  REQUIRE(status == 0);
  std::istringstream in(out);
  std::string line;
  std::map<long, std::string> cpus;
  std::map<long, long long> size_mb;
  std::vector<std::vector<long>> distances;
  bool in_distances = false;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string w1, w2, w3;
    ls >> w1 >> w2 >> w3;
    if (w1 == "node" && w3 == "cpus:") {
      std::string list, cpu;
      while (ls >> cpu) list += (list.empty() ? "" : ",") + cpu;
      cpus[std::stol(w2)] = list;
    } else if (w1 == "node" && w3 == "size:") {
      long long mb;
      ls >> mb;
      size_mb[std::stol(w2)] = mb;
    } else if (w1 == "node" && w2 == "distances:") {
      in_distances = true;
      std::getline(in, line);  // header: node numbers
    } else if (in_distances && !w1.empty() && w1.back() == ':') {
      std::istringstream rs(line.substr(line.find(':') + 1));
      std::vector<long> row;
      long d;
      while (rs >> d) row.push_back(d);
      distances.push_back(row);
    }
  }
  // Memory can grow or shrink on a live machine (balloon, hotplug): a second
  // reading after numactl's brackets its value.
  Json after = machine_json();
  auto& nodes = doc["nodes"].array;
  REQUIRE(nodes.size() == cpus.size());
  REQUIRE(after["nodes"].array.size() == nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    long n = static_cast<long>(nodes[i]["node"].number);
    INFO("node " << n);
    // numactl lists the CPUs one by one; compare as sets of numbers.
    std::set<long> theirs, mine;
    std::istringstream t(cpus[n]);
    std::string x;
    while (std::getline(t, x, ',')) theirs.insert(std::stol(x));
    for (auto& c : doc["cpus"].array)
      if (c["online"].boolean && !c["node"].is_null() && c["node"].number == n) mine.insert(static_cast<long>(c["cpu"].number));
    CHECK(mine == theirs);
    long long before_mb = nodes[i]["memory_total_kb"].number / 1024;
    long long after_mb = after["nodes"][i]["memory_total_kb"].number / 1024;
    CHECK(size_mb[n] >= std::min(before_mb, after_mb));
    CHECK(size_mb[n] <= std::max(before_mb, after_mb));
    std::vector<long> row;
    for (auto& d : nodes[i]["distances"].array) row.push_back(static_cast<long>(d.number));
    REQUIRE(i < distances.size());
    CHECK(row == distances[i]);
  }
}
