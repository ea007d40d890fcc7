#include "slice_rank.hpp"

#include <fmt/format.h>

#include "error.hpp"

namespace affix {

namespace {

unsigned env_number(const std::string& name, const std::string& value) {
  auto v = parse_decimal(value, k_max_id);
  if (!v)
    throw Error(ErrorKind::Resolution,
                fmt::format("--slice rank: {}='{}' is not a number", name, value));
  return static_cast<unsigned>(*v);
}

std::optional<LauncherRank> pair(const EnvLookup& env, const std::string& rank_var,
                                 const std::string& size_var) {
  auto rank = env(rank_var);
  if (!rank) return std::nullopt;
  auto size = env(size_var);
  if (!size)
    throw Error(ErrorKind::Resolution,
                fmt::format("--slice rank: {} is set but {} is not", rank_var, size_var));
  LauncherRank out;
  out.rank = env_number(rank_var, *rank);
  out.size = env_number(size_var, *size);
  out.source = rank_var + "/" + size_var;
  return out;
}

}  // namespace

std::optional<unsigned> slurm_tasks_on_node(std::string_view spec, unsigned node_id) {
  // Groups "C" or "C(xR)", comma-separated.
  size_t pos = 0;
  unsigned long long seen = 0;
  while (pos <= spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view group = spec.substr(pos, end - pos);
    std::string_view count_text = group;
    unsigned long long repeat = 1;
    size_t paren = group.find('(');
    if (paren != std::string_view::npos) {
      if (group.size() < paren + 4 || group.substr(paren, 2) != "(x" || group.back() != ')')
        return std::nullopt;
      auto r = parse_decimal(group.substr(paren + 2, group.size() - paren - 3), k_max_id);
      if (!r || *r == 0) return std::nullopt;
      repeat = *r;
      count_text = group.substr(0, paren);
    }
    auto count = parse_decimal(count_text, k_max_id);
    if (!count) return std::nullopt;
    if (node_id < seen + repeat) return static_cast<unsigned>(*count);
    seen += repeat;
    if (end == spec.size()) break;
    pos = end + 1;
  }
  return std::nullopt;
}

std::optional<LauncherRank> launcher_rank(const EnvLookup& env) {
  if (auto r = pair(env, "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE")) return r;
  if (auto r = pair(env, "MPI_LOCALRANKID", "MPI_LOCALNRANKS")) return r;
  if (auto r = pair(env, "PMI_LOCAL_RANK", "PMI_LOCAL_SIZE")) return r;
  auto local_id = env("SLURM_LOCALID");
  if (!local_id) return std::nullopt;
  auto tasks = env("SLURM_STEP_TASKS_PER_NODE");
  auto node_id = env("SLURM_NODEID");
  if (!tasks || !node_id)
    throw Error(ErrorKind::Resolution,
                "--slice rank: SLURM_LOCALID is set but SLURM_STEP_TASKS_PER_NODE or "
                "SLURM_NODEID is not");
  LauncherRank out;
  out.rank = env_number("SLURM_LOCALID", *local_id);
  unsigned node = env_number("SLURM_NODEID", *node_id);
  auto size = slurm_tasks_on_node(*tasks, node);
  if (!size)
    throw Error(ErrorKind::Resolution,
                fmt::format("--slice rank: SLURM_STEP_TASKS_PER_NODE='{}' has no entry for "
                            "SLURM_NODEID={}",
                            *tasks, node));
  out.size = *size;
  out.source = "SLURM_LOCALID/SLURM_STEP_TASKS_PER_NODE";
  return out;
}

LauncherRank require_launcher_rank(const EnvLookup& env) {
  auto r = launcher_rank(env);
  if (!r)
    throw Error(ErrorKind::Resolution,
                "--slice rank: no launcher rank found (OMPI_COMM_WORLD_LOCAL_RANK, "
                "MPI_LOCALRANKID, PMI_LOCAL_RANK, SLURM_LOCALID are unset)",
                "start affix under mpirun or srun, or give --slice K/N");
  if (r->rank >= r->size)
    throw Error(ErrorKind::Resolution,
                fmt::format("--slice rank: local rank {} is not below local size {} ({})", r->rank,
                            r->size, r->source));
  return *r;
}


}  // namespace affix
