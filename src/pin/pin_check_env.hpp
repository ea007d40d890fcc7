#pragma once
// pin --check --gpu: whether a process's environment names the GPU that
// run --gpu would give it (affix(1), GPUS, "Checking a rank"), as its
// /proc/PID/environ shows it (what it was started with: a variable the
// program set itself later is not there).

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sysroot.hpp"

namespace affix {

using NameValues = std::vector<std::pair<std::string, std::string>>;

// What the environment must hold: `required` each with its value; `if_set`
// each with its value where the process has it at all.
struct EnvExpect {
  std::string gpu;  // "gpu1 (0000:81:00.0)", for the lines
  NameValues required;
  NameValues if_set;
};

struct EnvMismatch {
  std::string name;
  std::optional<std::string> value;  // nullopt: unset
  std::string want;
};

struct EnvCheck {
  pid_t pid = 0;
  bool readable = false;  // environ could be read
  std::vector<EnvMismatch> wrong;
  bool ok = false;
};

EnvCheck check_env(const SysRoot& root, pid_t pid, const EnvExpect& expect);

// "  4242: its environment names gpu1 (0000:81:00.0): ROCR_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=0",
// or a line per variable that disagrees ("  4242: CUDA_VISIBLE_DEVICES=1, not 0 (gpu0 (0000:3b:00.0))",
// "... unset, not ..."), or "  4242: environment unknown (its environ cannot be read)".
std::string env_check_lines(const EnvCheck& check, const EnvExpect& expect);

}  // namespace affix
