#pragma once
// The machines and the resolver call --gpu's tests share (gpu_place_test,
// gpu_errors_test): synthetic NVIDIA and AMD machines (gpu_builders.hpp),
// a launcher's variables, a --gpu request, and a placement or its error in
// one line.

#include <cstdio>
#include <map>
#include <string>

#include <fmt/format.h>

#include "error.hpp"
#include "fixtures.hpp"
#include "gpu_builders.hpp"
#include "near.hpp"
#include "resolver.hpp"
#include "temp_root.hpp"
#include "topo_builder.hpp"

namespace affix::test {

using Env = std::map<std::string, std::string>;

// 2 nodes of 4 cores of 2 threads (node 0: CPUs 0-7, node 1: 8-15), two
// NVIDIA GPUs on each node, each with its UUID.
inline void nvidia_machine(const TempRoot& root) {
  gpu_machine(root, 2, 4, 2);
  const char* bdfs[] = {"0000:1b:00.0", "0000:3b:00.0", "0000:88:00.0", "0000:b1:00.0"};
  for (unsigned i = 0; i < 4; ++i) {
    GpuSpec g = gpu_on(bdfs[i], "0x10de", i / 2, 8);
    g.nvidia_uuid = "GPU-" + std::to_string(i) + "a2b3c4d-0000-1111-2222-333344445555";
    write_gpu(root, g);
  }
}

// 4 nodes of 4 cores of 1 thread (node n: CPUs 4n to 4n+3), two AMD GPUs
// on each; the first of each node with a unique_id, the second without.
inline void amd_machine(const TempRoot& root) {
  gpu_machine(root, 4, 4, 1);
  for (unsigned i = 0; i < 8; ++i) {
    char bdf[16];
    std::snprintf(bdf, sizeof bdf, "0000:%02x:00.0", 0x10 + 0x20 * i);
    GpuSpec g = gpu_on(bdf, "0x1002", i / 2, 4);
    if (i % 2 == 0) g.unique_id = "00000000000000a" + std::to_string(i);
    write_gpu(root, g);
  }
}

inline Env ompi(unsigned rank, unsigned size) {
  return {{"OMPI_COMM_WORLD_LOCAL_RANK", std::to_string(rank)}, {"OMPI_COMM_WORLD_LOCAL_SIZE", std::to_string(size)}};
}

inline PlacementRequest gpu_request(const std::string& gpu, bool slice_rank = true, const std::string& where = "all") {
  PlacementRequest r;
  r.where = where;
  GpuRequest g;
  g.text = gpu;
  if (gpu == "closest") {
    g.closest = true;
  } else {
    for (size_t at = 0; at <= gpu.size();) {
      size_t comma = gpu.find(',', at);
      if (comma == std::string::npos) comma = gpu.size();
      g.indices.push_back(static_cast<unsigned>(std::stoul(gpu.substr(at, comma - at))));
      at = comma + 1;
    }
  }
  r.gpu = g;
  if (slice_rank) r.slice = SliceRequest{true, 0, 1};
  return r;
}

inline Placement place(const std::string& dir, const PlacementRequest& r, const Env& env,
                const char* allowed_cpus = nullptr) {
  SysRoot sys(dir);
  Topology topo = read_topology(sys);
  RequestLocations locations = parse_locations(r);
  read_location_devices(sys, locations, topo);
  read_request_gpus(sys, r, topo);
  Allowed allowed = allow_all(topo);
  if (allowed_cpus) {
    allowed.cpus = set_of(allowed_cpus);
    allowed.source = "cgroup1:/sys/fs/cgroup/cpuset/job/cpuset.effective_cpus";
  }
  return resolve(r, locations, topo, allowed, env_of(env));
}
inline Placement place(const TempRoot& root, const PlacementRequest& r, const Env& env,
                const char* allowed_cpus = nullptr) {
  return place(root.path(), r, env, allowed_cpus);
}

// "gpu1 0-3 bind:0 CUDA_VISIBLE_DEVICES=... CUDA_DEVICE_ORDER=PCI_BUS_ID"
inline std::string summary(const Placement& p) {
  std::string out = p.gpu ? p.gpu->gpu.device.name : std::string("none");
  out += " " + format_cpulist(p.cpus);
  if (p.mem_policy) out += fmt::format(" {}:{}", mem_policy_name(*p.mem_policy), format_cpulist(p.mem_nodes));
  if (p.gpu)
    for (const auto& [name, value] : p.gpu->env) out += " " + name + "=" + value;
  return out;
}

inline std::string error_of(const std::string& dir, const PlacementRequest& r, const Env& env,
                            const char* allowed_cpus = nullptr) {
  try {
    place(dir, r, env, allowed_cpus);
  } catch (const Error& e) {
    return std::string(e.what()) + " | " + e.hint();
  }
  return "no error";
}
inline std::string error_of(const TempRoot& root, const PlacementRequest& r, const Env& env,
                     const char* allowed_cpus = nullptr) {
  try {
    place(root, r, env, allowed_cpus);
  } catch (const Error& e) {
    return std::string(e.what()) + " | " + e.hint();
  }
  return "no error";
}

}  // namespace affix::test
