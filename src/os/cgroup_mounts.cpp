#include "cgroup_mounts.hpp"

#include "text.hpp"

namespace affix {

namespace {

// More cgroup mounts than any machine has: the rest of a hostile table is
// not kept.
constexpr size_t k_max_cgroup_mounts = 1024;

// The kernel escapes space, tab, newline and backslash in mount paths as \ooo.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Whether a mount table line can be a cpuset's mount: only those are split
// into fields (a launch reads the table every time).
bool may_be_cpuset(std::string_view line) {
  return line.find("cpuset") != std::string_view::npos || line.find("cgroup2") != std::string_view::npos;
}

}  // namespace

bool mount_has_option(std::string_view options, std::string_view name) {
  for (auto o : split(options, ','))
    if (o == name) return true;
  return false;
}

bool is_cpuset_v1(const CgroupMount& m) {
  return m.fstype == "cpuset" || (m.fstype == "cgroup" && mount_has_option(m.options, "cpuset"));
}

std::vector<CgroupMount> read_cgroup_mounts(const SysRoot& root, const std::string& proc) {
  std::vector<CgroupMount> out;
  auto keep = [&](CgroupMount m) {
    if (m.fstype == "cgroup2" || is_cpuset_v1(m))
      if (out.size() < k_max_cgroup_mounts) out.push_back(std::move(m));
  };
  bool found = root.for_each_line(proc + "/mountinfo", [&](std::string_view line) {
    if (!may_be_cpuset(line)) return true;
    auto f = split(line, ' ');
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (f.size() < 5 || dash + 1 >= f.size()) return true;
    keep(CgroupMount{unescape(f[3]), unescape(f[4]), std::string(f[dash + 1]),
                     dash + 3 < f.size() ? std::string(f[dash + 3]) : std::string()});
    return true;
  });
  if (found) return out;
  auto mounts_line = [&](std::string_view line) {
    if (!may_be_cpuset(line)) return true;
    auto f = split(line, ' ');
    if (f.size() >= 4) keep(CgroupMount{"/", unescape(f[1]), std::string(f[2]), std::string(f[3])});
    return true;
  };
  if (!root.for_each_line("proc/mounts", mounts_line)) root.for_each_line(proc + "/mounts", mounts_line);
  return out;
}

}  // namespace affix
