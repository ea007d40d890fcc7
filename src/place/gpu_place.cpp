#include "gpu_place.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "devices.hpp"
#include "error.hpp"
#include "gpu_assign.hpp"
#include "gpu_env.hpp"
#include "gpu_pool.hpp"
#include "gpus.hpp"
#include "slice_rank.hpp"
#include "text.hpp"

namespace affix {

namespace {

// "gpu0 (0000:03:00.0), gpu1 (0000:04:00.0)"
std::string gpus_text(const std::vector<Gpu>& gpus) {
  std::string out;
  for (const Gpu& g : gpus) out += fmt::format("{}{}", out.empty() ? "" : ", ", gpu_label(g));
  return out;
}

// The GPUs to give, each with what names it: the job's pool (gpu_pool.hpp),
// or those of N or LIST, each of which must be in it.
std::vector<PoolGpu> pool_of(const GpuRequest& request, const Topology& topo, const GpuPool& pool) {
  if (topo.gpus.empty())
    throw Error(ErrorKind::Resolution,
                request.closest ? std::string("--gpu closest: no NVIDIA or AMD GPU on this machine")
                                : fmt::format("no GPU {} on this machine", fmt::format("gpu{}", request.indices.front())),
                "it has no PCI function of class 03 (display or 3D controller) of NVIDIA or AMD; 'affix topo' "
                "lists its displays");
  std::string given = pool.source.empty() ? std::string("this process may open") : pool.source + " gives";
  std::string in_pool;
  for (const PoolGpu& p : pool.gpus) in_pool += (in_pool.empty() ? "" : ", ") + p.gpu->device.name;
  if (request.closest) {
    if (pool.gpus.empty()) {
      std::string hidden;
      for (const std::string& h : pool.hidden) hidden += (hidden.empty() ? "" : "; ") + h;
      throw Error(ErrorKind::Resolution, fmt::format("--gpu closest: this process may open none of the GPUs: {}", hidden),
                  "a device cgroup (a container's, a job's) forbids their device files: run where the job's GPUs are");
    }
    return pool.gpus;
  }
  std::vector<PoolGpu> out;
  for (unsigned n : request.indices) {
    if (n >= topo.gpus.size())
      throw Error(ErrorKind::Resolution, fmt::format("no GPU {} on this machine", fmt::format("gpu{}", n)),
                  fmt::format("GPUs here, in PCI address order: {}", gpus_text(topo.gpus)));
    const Gpu& g = topo.gpus[n];
    auto at = std::find_if(pool.gpus.begin(), pool.gpus.end(), [&](const PoolGpu& p) { return p.gpu == &g; });
    if (at == pool.gpus.end())
      throw Error(ErrorKind::Resolution,
                  fmt::format("--gpu {}: {} is not among the GPUs {} ({})", request.text, gpu_label(g), given,
                              in_pool.empty() ? std::string("none") : in_pool),
                  "a job's GPUs are its own: name one of them, or give --gpu closest");
    out.push_back(*at);
  }
  return out;
}

std::string rank_text(const LocalRank& rank) {
  return rank.source.empty() ? std::string("the selection")
                             : fmt::format("local rank {} of {}", rank.rank, rank.size);
}

}  // namespace

GpuStep place_gpu(const GpuRequest& request, const Topology& topo, const Allowed& allowed, const LocalRank& rank,
                  const CpuSet& own, const std::vector<CpuSet>& rank_cpus, const EnvLookup& env) {
  GpuStep out;
  GpuPool pool = gpu_pool(topo.gpus, env);
  out.placement.pool_source = pool.source;
  out.placement.hidden = pool.hidden;
  std::vector<const Gpu*> usable;
  std::vector<std::string> ids;
  std::vector<CpuSet> usable_cpus;
  for (const PoolGpu& pg : pool_of(request, topo, pool)) {
    const Gpu* g = pg.gpu;
    DevicePlace place = device_place(topo, g->device);
    CpuSet cpus = place.cpus & allowed.cpus;
    if (cpus.empty()) {
      std::string what = fmt::format("{} is near CPUs {}", gpu_label(*g), format_cpulist(place.cpus));
      if (!request.closest)
        throw Error(ErrorKind::Resolution,
                    fmt::format("--gpu {}: {}, none of them allowed (allowed: {}, from {})", request.text, what,
                                list_or_none(allowed.cpus), printable(allowed.source)),
                    "the cpuset affix runs in leaves out the GPU's CPUs: give a GPU near the allowed ones "
                    "('affix topo' lists the GPUs and their CPUs)");
      out.placement.left_out.push_back(what);
      continue;
    }
    usable.push_back(g);
    ids.push_back(pg.id);
    usable_cpus.push_back(cpus);
  }
  if (usable.empty()) {
    std::string left;
    for (const std::string& l : out.placement.left_out) left += (left.empty() ? "" : "; ") + l;
    throw Error(ErrorKind::Resolution,
                fmt::format("--gpu closest: no GPU is near an allowed CPU: {} (allowed: {}, from {})", left,
                            list_or_none(allowed.cpus), printable(allowed.source)),
                "the cpuset affix runs in leaves out every GPU's CPUs");
  }

  // The rank's GPU, and the other ranks given the same one.
  std::optional<size_t> choice;
  CpuSet shared;
  if (rank_cpus.empty()) {
    std::vector<size_t> near;
    for (size_t g = 0; g < usable.size(); ++g)
      if (usable_cpus[g].intersects(own)) near.push_back(g);
    if (!near.empty()) {
      size_t m = near.size();
      choice = near[rank.rank % m];
      for (size_t r = rank.rank % m; r < rank.size; r += m)
        if (r != rank.rank) shared.set(static_cast<unsigned>(r));
    }
  } else {
    std::vector<std::optional<size_t>> choices = assign_gpus(usable_cpus, rank_cpus);
    choice = choices[rank.rank];
    for (size_t r = 0; r < choices.size(); ++r)
      if (r != rank.rank && choice && choices[r] == choice) shared.set(static_cast<unsigned>(r));
  }
  if (!choice) {
    std::string where;
    for (size_t g = 0; g < usable.size(); ++g)
      where += fmt::format("{}gpu{}: CPUs {}", where.empty() ? "" : ", ", usable[g]->index,
                           format_cpulist(usable_cpus[g]));
    throw Error(ErrorKind::Resolution,
                fmt::format("no GPU of --gpu {} is near CPUs {} ({})", request.text, list_or_none(own),
                            rank_text(rank)),
                fmt::format("the GPUs' CPUs: {}; select CPUs near one (near:gpuN), or name another (--gpu N)", where));
  }
  const Gpu& gpu = *usable[*choice];
  GpuPlacement& p = out.placement;
  p.gpu = gpu;
  p.gpu_cpus = usable_cpus[*choice];
  p.rank = rank;
  p.shared_with = shared;
  p.pool = static_cast<unsigned>(usable.size());
  p.id = ids[*choice];
  GpuEnv vars = gpu_env(gpu, p.id, env);
  p.env = std::move(vars.exported);
  p.replaced = std::move(vars.replaced);
  out.cpus = own & p.gpu_cpus;
  for (const std::string& w : pool.warnings) p.warnings.push_back(w);
  for (const std::string& w : gpu.device.warnings) p.warnings.push_back(w);
  if (device_place(topo, gpu.device).unplaced)
    p.warnings.push_back(fmt::format("the kernel does not say where {} is (numa_node {}): --gpu takes every CPU as "
                                     "near it",
                                     gpu_label(gpu), gpu.device.numa_node));
  if (rank.source.empty())
    if (std::optional<std::string> global = global_rank_variable(env))
      p.warnings.push_back(fmt::format("{} says this is one of several ranks, but no local rank variable is set: "
                                       "it is taken as rank 0 of 1, given {} like every other such rank "
                                       "(give --slice K/N, or set LOCAL_RANK and LOCAL_WORLD_SIZE)",
                                       printable(*global), gpu_label(gpu)));
  if (!shared.empty())
    p.warnings.push_back(fmt::format("local rank {} of {} shares {} with rank{} {} ({} ranks, {} GPU{})", rank.rank,
                                     rank.size, gpu_label(gpu), shared.count() == 1 ? "" : "s",
                                     format_cpulist(shared), rank.size, usable.size(), usable.size() == 1 ? "" : "s"));
  out.warnings = p.warnings;
  return out;
}

}  // namespace affix
