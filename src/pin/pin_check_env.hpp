#pragma once
// pin --check --gpu: whether a process's environment names the GPU that
// run --gpu would give it (affix(1), GPUS, "Checking a rank"), as its
// /proc/PID/environ shows it (what it was started with: a variable the
// program set itself later is not there).

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sysroot.hpp"

namespace affix {

using NameValues = std::vector<std::pair<std::string, std::string>>;

// What the environment must hold: `required` each with its value; `if_set`
// each with its value where the process has it at all.
// The variable that names the GPU (CUDA_VISIBLE_DEVICES of an NVIDIA GPU,
// ROCR_VISIBLE_DEVICES of an AMD one) agrees where its value names that
// GPU alone, however written (an index, a UUID or a prefix of one, a MIG
// instance of it): `names_gpu` says whether it does, and what it names
// ("gpu2 (0000:5e:00.0)", or why it names none); without it, or for the
// other variables, the texts are compared.
struct GpuNaming {
  bool same = false;
  std::string named;
};

struct EnvExpect {
  std::string gpu;  // "gpu1 (0000:81:00.0)", for the lines
  NameValues required;
  NameValues if_set;
  std::string gpu_var;  // "CUDA_VISIBLE_DEVICES"; empty: none
  std::function<GpuNaming(const std::string& value)> names_gpu;
};

struct EnvMismatch {
  std::string name;
  std::optional<std::string> value;  // nullopt: unset
  std::string want;
  std::string named;  // what the GPU's variable names instead (GpuNaming::named); empty: the texts differ
};

struct EnvCheck {
  pid_t pid = 0;
  bool readable = false;  // environ could be read
  std::vector<EnvMismatch> wrong;
  NameValues have;  // the required variables as the process has them
  bool ok = false;
};

EnvCheck check_env(const SysRoot& root, pid_t pid, const EnvExpect& expect);

// "  4242: its environment names gpu1 (0000:81:00.0): ROCR_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=0",
// or a line per variable that disagrees ("  4242: CUDA_VISIBLE_DEVICES=1, not 0 (gpu0 (0000:3b:00.0))",
// "... unset, not ..."; where names_gpu read it, "  4242: CUDA_VISIBLE_DEVICES=0 names gpu0 (0000:3b:00.0),
// not gpu1 (0000:81:00.0)"), or "  4242: environment unknown (its environ cannot be read)".
std::string env_check_lines(const EnvCheck& check, const EnvExpect& expect);

}  // namespace affix
