#include "id_args.hpp"

#include <sys/resource.h>

#include <cstdlib>

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "error.hpp"
#include "proc.hpp"

namespace affix {

std::vector<pid_t> parse_pid_arguments(const std::vector<std::string>& words, std::string_view what) {
  std::vector<pid_t> ids;
  for (const auto& word : words) {
    auto id = parse_pid(word);
    if (!id)
      throw Error(ErrorKind::Usage,
                  fmt::format("invalid {} '{}': expected a number from 1 to {}", what, word, k_max_pid));
    if (std::find(ids.begin(), ids.end(), *id) == ids.end()) ids.push_back(*id);
  }
  return ids;
}

void refuse_thread_ids(const SysRoot& root, const std::vector<pid_t>& ids) {
  for (pid_t id : ids) {
    std::optional<StatusInfo> status;
    try {
      status = read_status(root, proc_dir(id));
    } catch (const Error&) {
      continue;  // not what /proc writes: the caller's reading says so
    }
    if (status && status->tgid > 0 && status->tgid != id) {
      throw Error(ErrorKind::Usage, fmt::format("{} is a thread of process {}", id, status->tgid),
                  fmt::format("'{}' shows the whole process", status->tgid));
    }
  }
}

std::optional<double> parse_seconds(const std::string& text) {
  if (text.empty() || text.size() > 16 || text.find_first_not_of("0123456789.") != std::string::npos ||
      text.front() == '.' || text.back() == '.' || text.find('.') != text.rfind('.'))
    return std::nullopt;
  double v = std::strtod(text.c_str(), nullptr);
  if (!(v >= 0.1 && v <= 3600)) return std::nullopt;
  return v;
}

void raise_open_files() {
  rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

}  // namespace affix
