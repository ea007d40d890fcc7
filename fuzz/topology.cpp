// Fuzz target: the topology reader and the allowed-set reader fed arbitrary
// file contents. The input describes a root directory:
//
//   === sys/devices/system/cpu/online
//   0-3
//   === sys/devices/system/cpu/cpu0/topology/core_id
//   0
//
// (a line "=== PATH" starts a file, the lines up to the next one are its
// content; "=== PATH -> TARGET" makes a symbolic link). The tree is written
// to a private temporary directory, then read_topology, read_allowed, both
// topo outputs and the resolver ("all", "core:0", "node:0.cpu:0") run on
// it. Every outcome must be a result or an affix::Error.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "error.hpp"
#include "resolver.hpp"
#include "topo_output.hpp"
#include "os.hpp"
#include "topology.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path& scratch() {
  static fs::path dir = [] {
    // Memory-backed where there is one: every input writes a tree.
    std::error_code ec;
    fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::string tmpl = (base / "affix-fuzz-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) std::abort();
    return fs::path(tmpl);
  }();
  return dir;
}

// A relative path of plain names: no "..", no absolute path, no odd bytes.
bool safe_path(std::string_view p) {
  if (p.empty() || p.size() > 200 || p.front() == '/') return false;
  for (char c : p) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c == '/';
    if (!ok) return false;
  }
  return p.find("..") == std::string_view::npos && p.find("//") == std::string_view::npos;
}

void write_tree(const fs::path& root, std::string_view text) {
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(root);
  int files = 0;
  while (!text.empty() && files < 512) {
    size_t nl = text.find('\n');
    std::string_view header = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (header.substr(0, 4) != "=== ") continue;
    header.remove_prefix(4);
    size_t next = 0;
    while (next < text.size()) {
      if (text.substr(next, 4) == "=== " && (next == 0 || text[next - 1] == '\n')) break;
      size_t e = text.find('\n', next);
      next = e == std::string_view::npos ? text.size() : e + 1;
    }
    std::string_view content = text.substr(0, next);
    text.remove_prefix(next);
    size_t arrow = header.find(" -> ");
    std::string_view path = header.substr(0, arrow);
    if (!safe_path(path)) continue;
    fs::path target = root / std::string(path);
    fs::create_directories(target.parent_path(), ec);
    if (ec) continue;
    ++files;
    if (arrow != std::string_view::npos) {
      std::string_view link = header.substr(arrow + 4);
      if (safe_path(link) || link == "." || link == "..") fs::create_symlink(std::string(link), target, ec);
      continue;
    }
    std::ofstream(target, std::ios::binary) << content;
  }
}

std::optional<std::string> no_env(const std::string&) { return std::nullopt; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fs::path root = scratch() / "root";
  write_tree(root, std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    affix::SysRoot sysroot(root.string());
    affix::Topology topo = affix::read_topology(sysroot);
    affix::Allowed allowed = affix::read_allowed(sysroot, topo, affix::linux_os());
    if (!allowed.cpus.is_subset_of(topo.online)) std::abort();
    affix::topo_json(topo, allowed);
    affix::topo_text(topo, allowed);
    for (const char* where : {"all", "core:0", "node:0.cpu:0", "socket:all.core:0", "llc:0-1+die:0"}) {
      affix::PlacementRequest req;
      req.where = where;
      try {
        affix::resolve(req, topo, allowed, no_env);
      } catch (const affix::Error& e) {
        if (e.kind() != affix::ErrorKind::Resolution && e.kind() != affix::ErrorKind::Spec) std::abort();
      }
    }
  } catch (const affix::Error& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
