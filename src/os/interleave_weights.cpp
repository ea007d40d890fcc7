#include "interleave_weights.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "error.hpp"
#include "text.hpp"

namespace affix {

namespace {

// The names the auto mode file has had (interleave_weights.hpp).
constexpr const char* k_auto_names[] = {"auto", "__auto_type"};

// A weight file is one number and a newline.
constexpr size_t k_max_weight_file = 64;

std::string quoted(std::string_view text) {
  text = trim_space(text);
  return printable(text.substr(0, 40));
}

// Writes `text` to a sysfs file in one write: 0 or errno.
int write_sysfs(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n = ::write(fd, text.data(), text.size());
  int err = n < 0 ? errno : static_cast<size_t>(n) != text.size() ? EIO : 0;
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

std::string kernel_path(std::string_view name) { return fmt::format("/{}/{}", k_weights_dir, name); }

}  // namespace

std::optional<unsigned> parse_weight(std::string_view text) {
  auto v = parse_decimal(trim_space(text), k_max_weight);
  if (!v || *v == 0) return std::nullopt;
  return static_cast<unsigned>(*v);
}

std::optional<bool> parse_auto_mode(std::string_view text) {
  text = trim_space(text);
  if (text == "true" || text == "Y" || text == "1") return true;
  if (text == "false" || text == "N" || text == "0") return false;
  return std::nullopt;
}

InterleaveWeights read_interleave_weights(const SysRoot& root) {
  InterleaveWeights out;
  if (!root.exists(k_weights_dir)) return out;
  out.present = true;
  std::vector<std::string> names;
  try {
    names = root.list(k_weights_dir);
  } catch (const Error& e) {
    out.warnings.push_back(fmt::format("{} (left out)", e.what()));
    return out;
  }
  for (const std::string& name : names) {
    std::string rel = fmt::format("{}/{}", k_weights_dir, name);
    bool is_auto = false;
    for (const char* a : k_auto_names) is_auto = is_auto || name == a;
    std::optional<std::string> text;
    try {
      if (is_auto || name.rfind("node", 0) == 0) text = root.read(rel, k_max_weight_file);
    } catch (const Error& e) {
      out.warnings.push_back(fmt::format("{} (left out)", e.what()));
      continue;
    }
    if (is_auto) {
      out.auto_file = name;
      if (text) out.auto_mode = parse_auto_mode(*text);
      if (!text || !out.auto_mode)
        out.warnings.push_back(fmt::format("{}: expected true or false, found '{}' (left out)", root.path(rel),
                                           text ? quoted(*text) : std::string()));
      continue;
    }
    auto node = parse_decimal(std::string_view(name).substr(4), 1u << 20);
    if (name.rfind("node", 0) != 0 || !node) continue;
    auto weight = text ? parse_weight(*text) : std::nullopt;
    if (!weight) {
      out.warnings.push_back(fmt::format("{}: expected a weight from 1 to {}, found '{}' (left out)", root.path(rel),
                                         k_max_weight, text ? quoted(*text) : std::string()));
      continue;
    }
    out.weights[static_cast<unsigned>(*node)] = *weight;
  }
  return out;
}

int check_sysfs_weight_file(const std::string& name) {
  int fd = ::open(kernel_path(name).c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ::close(fd);
  return 0;
}

int write_sysfs_weight_file(const std::string& name, const std::string& text) {
  return write_sysfs(kernel_path(name), text);
}

}  // namespace affix
