#include "hmat.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "error.hpp"
#include "text.hpp"
#include "topology_read.hpp"

namespace affix {

namespace {

// A figure file holds one decimal number: the largest taken is far beyond
// any memory's MB/s or ns.
constexpr unsigned long long k_max_figure = 1ull << 40;

std::optional<unsigned long long> figure(const SysRoot& root, const std::string& rel, const char* unit,
                                         std::vector<std::string>& warnings) {
  std::optional<std::string> text;
  try {
    text = root.read(rel, 4096);
  } catch (const Error& e) {
    warnings.push_back(fmt::format("{} (left out)", e.what()));
    return std::nullopt;
  }
  if (!text) return std::nullopt;
  std::string_view value = trim_space(*text);
  auto v = parse_decimal(value, k_max_figure);
  if (!v) {
    warnings.push_back(fmt::format("{}: expected a number of {}, found '{}' (left out)", root.path(rel), unit,
                                   printable(value.substr(0, 40))));
    return std::nullopt;
  }
  if (*v == 0) return std::nullopt;  // the kernel's "not given" (hwloc reads it so too)
  return v;
}

}  // namespace

NodeHmat read_node_hmat(const SysRoot& root, unsigned node, std::vector<std::string>& warnings) {
  NodeHmat out;
  std::string dir;
  for (int access : {1, 0}) {
    std::string d = fmt::format("sys/devices/system/node/node{}/access{}/initiators", node, access);
    if (!root.exists(d)) continue;
    dir = d;
    out.access = access;
    break;
  }
  if (out.access < 0) return out;
  out.read_bandwidth = figure(root, dir + "/read_bandwidth", "MB/s", warnings);
  out.write_bandwidth = figure(root, dir + "/write_bandwidth", "MB/s", warnings);
  out.read_latency = figure(root, dir + "/read_latency", "ns", warnings);
  out.write_latency = figure(root, dir + "/write_latency", "ns", warnings);
  try {
    for (const std::string& name : root.list(dir))
      if (auto n = numbered(name, "node", k_max_id)) out.initiators.set(*n);
  } catch (const Error& e) {
    warnings.push_back(fmt::format("{} (left out)", e.what()));
  }
  return out;
}

std::optional<unsigned long long> weight_bandwidth(const NodeHmat& hmat) {
  if (!hmat.read_bandwidth || !hmat.write_bandwidth) return std::nullopt;
  return std::min(*hmat.read_bandwidth, *hmat.write_bandwidth);
}

}  // namespace affix
