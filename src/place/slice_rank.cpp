#include "slice_rank.hpp"

#include <fmt/format.h>

#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

// The launchers with a rank and a size variable (Slurm's size is computed).
struct Pair {
  const char* rank;
  const char* size;
};
constexpr Pair k_before_slurm[] = {
    {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
    {"MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"},
    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
    {"PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"},
};
constexpr Pair k_after_slurm[] = {
    {"PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE"},
    {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE"},
    {"LOCAL_RANK", "LOCAL_WORLD_SIZE"},
};
// Variables of a rank among all the job's (not the node's): set where a
// launcher started the command as one of several, whatever its local rank.
constexpr const char* k_global_ranks[] = {"OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "PMI_RANK",
                                          "SLURM_PROCID", "PMIX_RANK", "PALS_RANKID", "RANK"};

unsigned env_number(std::string_view option, const std::string& name, const std::string& value) {
  auto v = parse_decimal(value, k_max_id);
  if (!v)
    throw Error(ErrorKind::Resolution, fmt::format("{}: {}='{}' is not a number", option, name, printable(value)));
  return static_cast<unsigned>(*v);
}

std::optional<LauncherRank> pair(const EnvLookup& env, std::string_view option, const Pair& p) {
  auto rank = env(p.rank);
  if (!rank) return std::nullopt;
  auto size = env(p.size);
  if (!size)
    throw Error(ErrorKind::Resolution, fmt::format("{}: {} is set but {} is not", option, p.rank, p.size));
  LauncherRank out;
  out.rank = env_number(option, p.rank, *rank);
  out.size = env_number(option, p.size, *size);
  out.source = std::string(p.rank) + "/" + p.size;
  return out;
}

std::optional<LauncherRank> slurm(const EnvLookup& env, std::string_view option) {
  auto local_id = env("SLURM_LOCALID");
  if (!local_id) return std::nullopt;
  auto tasks = env("SLURM_STEP_TASKS_PER_NODE");
  auto node_id = env("SLURM_NODEID");
  if (!tasks || !node_id)
    throw Error(ErrorKind::Resolution,
                fmt::format("{}: SLURM_LOCALID is set but SLURM_STEP_TASKS_PER_NODE or SLURM_NODEID is not",
                            option));
  LauncherRank out;
  out.rank = env_number(option, "SLURM_LOCALID", *local_id);
  unsigned node = env_number(option, "SLURM_NODEID", *node_id);
  auto size = slurm_tasks_on_node(*tasks, node);
  if (!size)
    throw Error(ErrorKind::Resolution,
                fmt::format("{}: SLURM_STEP_TASKS_PER_NODE='{}' has no entry for SLURM_NODEID={}", option, printable(*tasks),
                            node));
  out.size = *size;
  out.source = "SLURM_LOCALID/SLURM_STEP_TASKS_PER_NODE";
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

std::string launcher_rank_variables() {
  std::string out;
  for (const Pair& p : k_before_slurm) out += std::string(out.empty() ? "" : ", ") + p.rank;
  out += ", SLURM_LOCALID";
  for (const Pair& p : k_after_slurm) out += std::string(", ") + p.rank;
  return out;
}

std::optional<LauncherRank> launcher_rank(const EnvLookup& env, std::string_view option) {
  for (const Pair& p : k_before_slurm)
    if (auto r = pair(env, option, p)) return r;
  if (auto r = slurm(env, option)) return r;
  for (const Pair& p : k_after_slurm)
    if (auto r = pair(env, option, p)) return r;
  return std::nullopt;
}

std::optional<std::string> global_rank_variable(const EnvLookup& env) {
  for (const char* name : k_global_ranks)
    if (auto v = env(name)) return std::string(name) + "=" + *v;
  return std::nullopt;
}

void check_rank(const LauncherRank& r, std::string_view option) {
  if (r.rank >= r.size)
    throw Error(ErrorKind::Resolution,
                fmt::format("{}: local rank {} is not below local size {} ({})", option, r.rank, r.size, r.source));
}

LauncherRank require_launcher_rank(const EnvLookup& env, std::string_view option) {
  auto r = launcher_rank(env, option);
  if (!r)
    throw Error(ErrorKind::Resolution,
                fmt::format("{}: no launcher rank found ({} are unset)", option, launcher_rank_variables()),
                "start affix under mpirun or srun, or give --slice K/N");
  check_rank(*r, option);
  return *r;
}

}  // namespace affix
