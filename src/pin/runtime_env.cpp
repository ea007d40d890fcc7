#include "runtime_env.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include <fmt/format.h>

#include "error.hpp"
#include "proc.hpp"

namespace affix {

namespace {

// exec(2) passes at most a quarter of the stack limit (2 MiB under the usual 8 MiB).
constexpr size_t k_max_environ = 8 << 20;

std::string_view value_of(std::string_view environ, std::string_view name) {
  return environ_value(environ, name).value_or(std::string_view());
}

// GOMAXPROCS=8; OMP_NUM_THREADS=8 or, nested, 8,4 (the outer level counts).
std::optional<unsigned long long> count_of(std::string_view value) {
  value = value.substr(0, value.find(','));
  return parse_decimal(value, 1u << 24);
}

constexpr std::string_view k_go_magic("\xff Go buildinf:", 14);
constexpr size_t k_max_buildinfo = 4096;  // the header, the version and the build lines
constexpr unsigned k_max_sections = 1u << 16;

// A Go varint (unsigned LEB128) at `at`; nullopt past the end.
std::optional<size_t> uvarint(std::string_view s, size_t& at) {
  size_t v = 0;
  for (unsigned shift = 0; at < s.size() && shift < 64; shift += 7) {
    auto b = static_cast<unsigned char>(s[at++]);
    v |= static_cast<size_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  return std::nullopt;
}

// A length-prefixed string of the inline format.
std::optional<std::string> go_string(std::string_view s, size_t& at) {
  auto n = uvarint(s, at);
  if (!n || *n > s.size() - at) return std::nullopt;
  std::string out(s.substr(at, *n));
  at += *n;
  return out;
}

// An ELF file read with pread, in its own byte order.
class ElfFile {
public:
  explicit ElfFile(const std::string& path) : m_fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~ElfFile() {
    if (m_fd >= 0) ::close(m_fd);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  std::optional<std::string> read(unsigned long long offset, size_t size) const {
    if (m_fd < 0) return std::nullopt;
    std::string out(size, '\0');
    ssize_t n = ::pread(m_fd, out.data(), size, static_cast<off_t>(offset));
    if (n < 0 || static_cast<size_t>(n) != size) return std::nullopt;
    return out;
  }
  // The section named `name`: its first `limit` bytes.
  std::optional<std::string> section(std::string_view name, size_t limit) {
    auto ident = read(0, 64);
    if (!ident || ident->compare(0, 4, "\x7f" "ELF") != 0) return std::nullopt;
    m_64 = (*ident)[4] == 2;
    m_little = (*ident)[5] == 1;
    const std::string& h = *ident;
    unsigned long long shoff = m_64 ? word(h, 0x28, 8) : word(h, 0x20, 4);
    unsigned entsize = static_cast<unsigned>(m_64 ? word(h, 0x3a, 2) : word(h, 0x2e, 2));
    unsigned count = static_cast<unsigned>(m_64 ? word(h, 0x3c, 2) : word(h, 0x30, 2));
    unsigned strndx = static_cast<unsigned>(m_64 ? word(h, 0x3e, 2) : word(h, 0x32, 2));
    if (shoff == 0 || count == 0 || count > k_max_sections || strndx >= count || entsize < (m_64 ? 64u : 40u))
      return std::nullopt;
    auto table = read(shoff, static_cast<size_t>(entsize) * count);
    if (!table) return std::nullopt;
    auto header = [&](unsigned i) { return std::string_view(*table).substr(static_cast<size_t>(i) * entsize, entsize); };
    auto offset_of = [&](std::string_view sh) { return m_64 ? word(sh, 0x18, 8) : word(sh, 0x10, 4); };
    auto size_of = [&](std::string_view sh) { return m_64 ? word(sh, 0x20, 8) : word(sh, 0x14, 4); };
    std::string_view strtab_header = header(strndx);
    auto names = read(offset_of(strtab_header), static_cast<size_t>(std::min<unsigned long long>(size_of(strtab_header), 1u << 20)));
    if (!names) return std::nullopt;
    for (unsigned i = 0; i < count; ++i) {
      std::string_view sh = header(i);
      unsigned long long at = word(sh, 0, 4);
      if (at >= names->size()) continue;
      if (std::strncmp(names->c_str() + at, std::string(name).c_str(), name.size() + 1) != 0) continue;
      size_t size = static_cast<size_t>(std::min<unsigned long long>(size_of(sh), limit));
      return read(offset_of(sh), size);
    }
    return std::nullopt;
  }

private:
  unsigned long long word(std::string_view s, size_t at, size_t n) const {
    unsigned long long v = 0;
    if (at + n > s.size()) return 0;
    for (size_t i = 0; i < n; ++i) {
      auto b = static_cast<unsigned char>(s[m_little ? at + n - 1 - i : at + i]);
      v = (v << 8) | b;
    }
    return v;
  }
  int m_fd;
  bool m_64 = true, m_little = true;
};

// The minor version of "go1.22.1", "go1.25rc1", "devel go1.26-abc"; nullopt where none is read.
std::optional<unsigned long long> go_minor(std::string_view version) {
  auto at = version.find("go1.");
  if (at == std::string_view::npos) return std::nullopt;
  version.remove_prefix(at + 4);
  size_t digits = 0;
  while (digits < version.size() && version[digits] >= '0' && version[digits] <= '9') ++digits;
  return parse_decimal(version.substr(0, digits), 1u << 20);
}

// Whether a GODEBUG list ("a=1,updatemaxprocs=0") turns the updates off.
bool updates_off(std::string_view godebug) {
  bool off = false;
  while (!godebug.empty()) {
    auto comma = godebug.find(',');
    std::string_view item = godebug.substr(0, comma);
    if (item == "updatemaxprocs=0") off = true;
    else if (item.substr(0, 15) == "updatemaxprocs=") off = false;
    if (comma == std::string_view::npos) break;
    godebug.remove_prefix(comma + 1);
  }
  return off;
}

}  // namespace

std::optional<GoBuild> parse_go_buildinfo(std::string_view section) {
  if (section.size() < 32 || section.substr(0, k_go_magic.size()) != k_go_magic) return std::nullopt;
  GoBuild out;
  const auto flags = static_cast<unsigned char>(section[15]);
  if (!(flags & 2)) return out;  // before Go 1.18: pointers into the program's memory
  size_t at = 32;
  auto version = go_string(section, at);
  if (!version) return std::nullopt;
  out.version = *version;
  if (auto mod = go_string(section, at)) out.modinfo = *mod;
  return out;
}

std::optional<GoBuild> read_go_build(const SysRoot& root, pid_t pid) {
  ElfFile exe(root.path(proc_dir(pid) + "/exe"));
  auto section = exe.section(".go.buildinfo", k_max_buildinfo);
  if (!section) return std::nullopt;
  return parse_go_buildinfo(*section);
}

bool go_updates_maxprocs(const GoBuild& go, std::string_view environ) {
  auto minor = go_minor(go.version);
  if (!minor || *minor < 25) return false;
  // The build's defaults (a line "build\tDefaultGODEBUG=..."), then the environment's, which win.
  bool off = false;
  std::string_view mod = go.modinfo;
  while (!mod.empty()) {
    auto end = mod.find('\n');
    std::string_view line = mod.substr(0, end);
    constexpr std::string_view key = "build\tDefaultGODEBUG=";
    if (line.substr(0, key.size()) == key) off = updates_off(line.substr(key.size()));
    if (end == std::string_view::npos) break;
    mod.remove_prefix(end + 1);
  }
  if (auto godebug = environ_value(environ, "GODEBUG"); godebug && godebug->find("updatemaxprocs=") != std::string_view::npos)
    off = updates_off(*godebug);
  return !off;
}

std::optional<std::string> go_warning(pid_t pid, const GoBuild& go, std::string_view environ, const CpuSet& before,
                                      const CpuSet& now) {
  if (environ_value(environ, "GOMAXPROCS")) return std::nullopt;  // its own warning, where it is above
  const unsigned had = before.count(), have = now.count();
  if (have == 0 || had <= have || go_updates_maxprocs(go, environ)) return std::nullopt;
  std::string version = go.version.empty() ? std::string("before go1.18") : go.version;
  return fmt::format("{} is a Go program ({}) started without GOMAXPROCS: Go sized GOMAXPROCS once, at its start, to "
                     "the CPUs it had then ({} before this pin); it now has {} (restart it with GOMAXPROCS={}, or "
                     "under 'affix --env')",
                     pid, version, had, have == 1 ? std::string("1 CPU") : fmt::format("{} CPUs", have), have);
}

std::optional<std::string_view> environ_value(std::string_view environ, std::string_view name) {
  while (!environ.empty()) {
    auto end = environ.find('\0');
    std::string_view entry = environ.substr(0, end);
    if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=')
      return entry.substr(name.size() + 1);
    if (end == std::string_view::npos) break;
    environ.remove_prefix(end + 1);
  }
  return std::nullopt;
}

std::optional<std::string> read_environ(const SysRoot& root, pid_t pid) {
  try {
    return root.read(proc_dir(pid) + "/environ", k_max_environ);
  } catch (const Error&) {  // larger than any exec passes: not an environment to trust
  }
  return std::nullopt;
}

std::vector<std::string> runtime_env_warnings(pid_t pid, std::string_view environ, const CpuSet& cpus) {
  std::vector<std::string> out;
  const unsigned have = cpus.count();
  for (std::string_view name : {"GOMAXPROCS", "OMP_NUM_THREADS"}) {
    auto n = count_of(value_of(environ, name));
    if (!n || *n <= have) continue;
    out.push_back(fmt::format("{} was started with {}={}; it now has {} (restart it under 'affix --env', or set {})",
                              pid, name, *n, have == 1 ? std::string("1 CPU") : fmt::format("{} CPUs", have), name));
  }
  std::string_view listed = value_of(environ, "AFFIX_CPUS");
  if (!listed.empty()) {
    auto set = parse_cpulist(listed, false);
    if (set && !(*set.value == cpus)) {
      out.push_back(fmt::format("{} was started with AFFIX_CPUS={}; it now has CPUs {} (restart it under "
                                "'affix --env' so that what it reads agrees)",
                                pid, format_cpulist(*set.value), format_cpulist(cpus)));
    }
  }
  return out;
}

std::vector<std::string> runtime_env_warnings(const SysRoot& root, const PinReport& report) {
  std::vector<std::string> out;
  for (const auto& t : report.targets) {
    if (t.request.scope == PinScope::Thread) continue;  // --tid: the process keeps other lists
    for (const auto& p : t.processes) {
      if (p.exited) continue;
      CpuSet cpus, before;
      for (const auto& th : p.threads) {
        if (th.gone) continue;
        cpus |= th.after;
        before |= th.before;
      }
      if (cpus.empty()) continue;
      std::optional<std::string> environ = read_environ(root, p.pid);
      if (!environ) continue;
      for (auto& w : runtime_env_warnings(p.pid, *environ, cpus)) out.push_back(std::move(w));
      // A Go program without GOMAXPROCS: its executable is read only where it lost CPUs.
      if (before.count() > cpus.count() && !environ_value(*environ, "GOMAXPROCS"))
        if (auto go = read_go_build(root, p.pid))
          if (auto w = go_warning(p.pid, *go, *environ, before, cpus)) out.push_back(std::move(*w));
    }
  }
  return out;
}

}  // namespace affix
