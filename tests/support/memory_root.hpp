#pragma once
// Trees of memory that is not all alike, written into a TempRoot: the
// kernel's memory tiers, a node's HMAT figures, the interleave weights; and
// a machine of two nodes with CPUs (0: CPUs 0-1, 1: CPUs 2-3) and a node 2
// of memory alone (a CXL expander), as Linux 6.12 shows one booted with
// HMAT.

#include <map>
#include <optional>
#include <string>

#include "root_builders.hpp"
#include "temp_root.hpp"

namespace affix::test {

// memory_tierN with its nodelist.
inline void write_tier(const TempRoot& root, unsigned id, const std::string& nodelist) {
  root.write("sys/devices/virtual/memory_tiering/memory_tier" + std::to_string(id) + "/nodelist", nodelist + "\n");
}

// nodeN/accessA/initiators: the four figures (MB/s, ns) and a link per
// initiator node.
inline void write_hmat(const TempRoot& root, unsigned node, unsigned access, unsigned read_bw, unsigned write_bw,
                       unsigned read_lat, unsigned write_lat, const std::string& initiator) {
  std::string dir = "sys/devices/system/node/node" + std::to_string(node) + "/access" + std::to_string(access) +
                    "/initiators/";
  root.write(dir + "read_bandwidth", std::to_string(read_bw) + "\n");
  root.write(dir + "write_bandwidth", std::to_string(write_bw) + "\n");
  root.write(dir + "read_latency", std::to_string(read_lat) + "\n");
  root.write(dir + "write_latency", std::to_string(write_lat) + "\n");
  root.symlink("../../../node" + initiator, dir + "node" + initiator);
}

// weighted_interleave/nodeN for each weight, and the auto mode file under
// `auto_name` where given ("true"/"false").
inline void write_weights(const TempRoot& root, const std::map<unsigned, unsigned>& weights,
                          std::optional<std::string> auto_text = std::nullopt,
                          const std::string& auto_name = "auto") {
  std::string dir = "sys/kernel/mm/mempolicy/weighted_interleave/";
  root.mkdir(dir);
  for (const auto& [node, weight] : weights) root.write(dir + "node" + std::to_string(node), std::to_string(weight) + "\n");
  if (auto_text) root.write(dir + auto_name, *auto_text + "\n");
}

// Two nodes with CPUs and DRAM, node 2 memory alone in its own tier, HMAT
// from CPUs: nodes 0 and 1 12000 MB/s and 100 ns, node 2 from node 0's CPUs
// 10000 MB/s read and 8000 written, 250 and 300 ns; every weight 1: what
// Linux 6.12 shows of tests/vm's 2s2c2t-3n-hmat (tiers 4 and 16).
inline void cxl_machine(const TempRoot& root) {
  simple_machine(root, 4, 1);
  write_node(root, 0, "0-1", 262144, 131072, "10 20 30");
  write_node(root, 1, "2-3", 262144, 131072, "20 10 30");
  write_node(root, 2, "", 262144, 262144, "30 30 10");
  for (unsigned c = 0; c < 4; ++c)
    root.write("sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/core_siblings_list", "0-3\n");
  root.write("sys/devices/system/node/online", "0-2\n");
  root.write("sys/devices/system/node/possible", "0-2\n");
  write_tier(root, 4, "0-1");
  write_tier(root, 16, "2");
  write_hmat(root, 0, 1, 12000, 12000, 100, 100, "0");
  write_hmat(root, 1, 1, 12000, 12000, 100, 100, "1");
  write_hmat(root, 2, 1, 10000, 8000, 250, 300, "0");
  write_weights(root, {{0, 1}, {1, 1}, {2, 1}});
}

}  // namespace affix::test
